// `gpuctl replace-gpu INVENTORY NODE`: after a GPU board swap, name the new card, clear its
// ECC counters, converge and verify the node, record the new serial.
#include "node_workflow_support.hpp"

namespace gpuctl::cli {
namespace {

void register_replace_gpu_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  static NodeWorkflowCliOptions options;
  auto* cmd = app.add_subcommand(
      "replace-gpu",
      "After a GPU board was replaced: compare the node's GPUs with its last recorded facts and name the new "
      "card(s) (slot, PCI bus id, old and new serial and UUID); with Slurm enabled, drain the node and wait for "
      "its jobs (--drain-timeout); check that gpu.count GPUs are visible to nvidia-smi and the PCI bus, reset "
      "the new cards' ECC counters, apply the node's playbooks, verify, record the new serials (gpuctl history "
      "--node NODE) and resume the node in Slurm. A node that fails stays drained with the reason; a node "
      "drained by someone else is never resumed.\n"
      "Needs facts recorded before the swap (any verify or apply records them).\n"
      "Exit codes: 0 ok, 1 no recorded facts or the confirmation declined, 3 the node failed a step or verify, 4 unreachable, "
      "5 another run holds the inventory's lock, 130 interrupted.\n"
      "Example: gpuctl replace-gpu cluster.yaml gpu05 --yes --json");
  add_node_workflow_options(*cmd, options);
  cmd->callback([&] {
    exit_code = run_node_workflow_command(options, globals, "replace-gpu",
                                          "Reset the new GPU's ECC counters on {}, apply and verify it?",
                                          run_replace_gpu);
  });
}

}  // namespace
GPUCTL_COMMAND(520, register_replace_gpu_command);
}  // namespace gpuctl::cli
