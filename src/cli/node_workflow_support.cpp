#include "node_workflow_support.hpp"

#include "exit_codes.hpp"

#include <fmt/format.h>
#include <iostream>
#include <unistd.h>

namespace gpuctl::cli {

Confirmation confirm_workflow(bool yes, std::string_view command, std::string_view question) {
  if (yes) return Confirmation::go;
  if (!::isatty(STDIN_FILENO)) {
    fmt::print(stderr, "gpuctl: refusing to run {} without a terminal to confirm on; pass --yes in scripts\n", command);
    return Confirmation::cannot_ask;
  }
  fmt::print("{} Only 'yes' is accepted: ", question);
  std::fflush(stdout);
  std::string answer;
  std::getline(std::cin, answer);
  if (answer == "yes") return Confirmation::go;
  fmt::print("Cancelled; nothing was changed.\n");
  return Confirmation::declined;
}

void add_node_workflow_options(CLI::App& command, NodeWorkflowCliOptions& options) {
  options.target.command = command.get_name();
  command.add_option("INVENTORY", options.target.inventory, "Cluster inventory (YAML)")
      ->check(CLI::ExistingFile)
      ->required();
  command.add_option("NODE", options.node, "The node (its name in the inventory)")->required();
  add_state_option(command, options.state);
  // Never from gpuctl.conf: a site default must not take away every run's confirmation.
  command.add_flag("-y,--yes", options.yes, "Do not ask for confirmation (needed without a terminal)")->configurable(false);
  command.add_flag("--json", options.json, "The report as JSON on stdout");
  command.add_option("-p,--playbook", options.target.playbooks,
                     "A shipped playbook by name (gpu-node), or a file given as a path (with a / or ending in "
                     ".yaml/.yml); a name never means a file of the working directory (repeatable; default: "
                     "gpu-node and head-node)");
  command.add_option("--templates", options.target.templates_dir, "Directory of templates (default: the shipped ones)");
  add_drain_timeout_option(command, options.drain_timeout_s);
  command.add_flag("--resume", options.resume,
                   "Also resume the node in Slurm when someone else drained it (e.g. you, before the swap), once "
                   "it verifies; without it such a node is left drained");
  command.add_flag("--no-progress", options.target.no_progress, "No live progress view: plain lines on stderr");
}

int run_node_workflow_command(const NodeWorkflowCliOptions& options, const GlobalOptions& globals,
                              std::string_view command, std::string_view question, const NodeWorkflowCall& call) {
  NodeWorkflowRequest request;
  request.target = options.target.run_target();
  request.node = options.node;
  request.drain_timeout = std::chrono::seconds(options.drain_timeout_s);
  request.resume_drained_by_other = options.resume;
  const auto text = fmt::format(fmt::runtime(question), options.node);
  const auto result = call(request, [&] { return confirm_workflow(options.yes, command, text); },
                           make_run_environment(options.target, globals, options.state.path));
  print_failure(result.error);
  if (result.report)
    fmt::print("{}", options.json ? workflow_report_to_json(*result.report) : render_workflow_report(*result.report));
  return exit_code_for(result.verdict);
}

}  // namespace gpuctl::cli
