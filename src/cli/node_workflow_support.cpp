#include "node_workflow_support.hpp"

#include "node_exit_code.hpp"

#include <fmt/format.h>
#include <iostream>
#include <unistd.h>

namespace gpuctl::cli {
namespace {

bool confirmed(const NodeWorkflowCliOptions& options, std::string_view command, std::string_view question,
               int& exit_code) {
  if (options.yes) return true;
  if (!::isatty(STDIN_FILENO)) {
    fmt::print(stderr, "gpuctl: refusing to run {} without a terminal to confirm on; pass --yes in scripts\n", command);
    exit_code = k_exit_usage;
    return false;
  }
  fmt::print("{} Only 'yes' is accepted: ", question);
  std::fflush(stdout);
  std::string answer;
  std::getline(std::cin, answer);
  if (answer == "yes") return true;
  fmt::print("Cancelled; nothing was changed.\n");
  exit_code = k_exit_ok;
  return false;
}

}  // namespace

void add_node_workflow_options(CLI::App& command, NodeWorkflowCliOptions& options) {
  options.target.command = command.get_name();
  command.add_option("INVENTORY", options.target.inventory, "Cluster inventory (YAML)")
      ->check(CLI::ExistingFile)
      ->required();
  command.add_option("NODE", options.node, "The node (its name in the inventory)")->required();
  add_state_option(command, options.state);
  command.add_flag("-y,--yes", options.yes, "Do not ask for confirmation (needed without a terminal)");
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

int run_node_workflow(NodeWorkflowCliOptions& options, const GlobalOptions& globals, std::string_view command,
                      std::string_view question, const NodeWorkflow& workflow) {
  int exit_code = k_exit_ok;
  options.target.limit = options.node;
  auto setup = prepare_run(options.target, globals, exit_code);
  if (!setup) return exit_code;
  setup->session.drain_timeout = std::chrono::seconds(options.drain_timeout_s);
  // --limit also takes groups and hostlists; these commands are for exactly one node.
  if (setup->selected->nodes.size() != 1 || setup->selected->nodes[0]->name != options.node) {
    fmt::print(stderr, "gpuctl: {} works on one node by name; '{}' selects {} node(s)\n", command, options.node,
               setup->selected->nodes.size());
    return k_exit_usage;
  }
  if (!confirmed(options, command, fmt::format(fmt::runtime(question), options.node), exit_code)) return exit_code;
  auto recorded = start_recorded_run(*setup, options.state, command, state::LockMode::exclusive, exit_code);
  if (!recorded) return exit_code;
  Session session(setup->selected->inventory, setup->selected->nodes, std::move(setup->playbooks), setup->factory,
                  setup->session, *setup->hooks);
  const WorkflowContext context{session, setup->factory, *recorded->store, *recorded->recorder, options.resume};
  auto report = workflow(context);
  const bool cancelled = setup->session.cancel->cancelled();
  if (!report) {
    finish_recorded_run(*recorded, state::RunStatus::failed);
    setup->hooks.reset();
    fmt::print(stderr, "gpuctl: {}\n", report.error().to_string());
    return report.error().code == ErrorCode::not_found ? k_exit_error : k_exit_nodes_failed;
  }
  const std::vector<exec::NodeOutcome> outcomes{report->outcome};
  finish_recorded_run(*recorded, run_status_for(outcomes, cancelled));
  setup->hooks.reset();  // the live view gives the terminal back before the report is printed
  fmt::print("{}", options.json ? workflow_report_to_json(*report) : render_workflow_report(*report));
  const std::vector<exec::NodeStatus> statuses{report->outcome.status};
  return exit_code_for_nodes(statuses, cancelled);
}

}  // namespace gpuctl::cli
