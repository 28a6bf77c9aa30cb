// `gpuctl reimage INVENTORY NODE`: bring a reinstalled node back: its new host key only when
// asked, then everything applied, verified and recorded.
#include "node_workflow_support.hpp"

namespace gpuctl::cli {
namespace {

void register_reimage_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  static NodeWorkflowCliOptions options;
  static ReimageOptions reimage_options;
  auto* cmd = app.add_subcommand(
      "reimage",
      "After a node's disk was re-imaged: check its SSH host key (a changed or unknown key is refused unless "
      "--accept-new-host-key, which replaces only this node's known_hosts entry); if Slurm still knows the "
      "node, drain it and wait for its jobs; apply everything, verify, record, and resume the node it drained.\n"
      "Exit codes: 0 ok, 1 the confirmation declined, 3 a step or verify failed, 4 unreachable or host key refused, 5 another run holds the "
      "inventory's lock, 130 interrupted.\n"
      "Example: gpuctl reimage cluster.yaml gpu05 --accept-new-host-key --yes");
  add_node_workflow_options(*cmd, options);
  cmd->add_flag("--accept-new-host-key", reimage_options.accept_new_host_key,
                "Pin the node's new SSH host key (replacing only its own known_hosts entry)");
  cmd->callback([&] {
    exit_code = run_node_workflow_command(
        options, globals, "reimage", "Apply everything to {} and verify it?",
        [](const NodeWorkflowRequest& request, const ConfirmWorkflow& confirm, const RunEnvironment& env) {
          return run_reimage(request, reimage_options, confirm, env);
        });
  });
}

}  // namespace
GPUCTL_COMMAND(530, register_reimage_command);
}  // namespace gpuctl::cli
