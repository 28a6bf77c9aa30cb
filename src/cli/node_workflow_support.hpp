#pragma once
// What `replace-gpu` and `reimage` share on the command line: INVENTORY NODE, --yes/--json/
// --state, the confirmation, the report and the exit code. The use case is in
// api/node_workflow_use_case.hpp. Prints (this is the CLI).

#include "run_support.hpp"

#include <gpuctl/api/node_workflow_use_case.hpp>

#include <functional>
#include <string_view>

namespace gpuctl::cli {

struct NodeWorkflowCliOptions {
  TargetOptions target;
  StateCliOptions state;
  std::string node;
  bool yes = false;
  bool json = false;
  int drain_timeout_s = 3600;
  bool resume = false;
};

// Adds INVENTORY NODE, --yes, --json, --state, --playbook, --templates, --drain-timeout, --resume, --no-progress.
void add_node_workflow_options(CLI::App& command, NodeWorkflowCliOptions& options);

using NodeWorkflowCall = std::function<NodeWorkflowResult(const NodeWorkflowRequest&, const ConfirmWorkflow&,
                                                          const RunEnvironment&)>;

// Asks `question` on the terminal unless `yes`; refused (cannot_ask) without a terminal.
Confirmation confirm_workflow(bool yes, std::string_view command, std::string_view question);

// Runs `call` with the request and a confirmation asking `question` (refused without --yes
// off a terminal), prints its report. Returns the exit code.
int run_node_workflow_command(const NodeWorkflowCliOptions& options, const GlobalOptions& globals,
                              std::string_view command, std::string_view question, const NodeWorkflowCall& call);

}  // namespace gpuctl::cli
