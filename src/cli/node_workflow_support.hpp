#pragma once
// What `replace-gpu` and `reimage` share: INVENTORY NODE, --yes/--json/--state, confirming,
// the locked and recorded run around one node's workflow, the report and the exit code
// (as apply's). Prints (this is the CLI).

#include "run_support.hpp"
#include "state_support.hpp"

#include <gpuctl/api/node_workflows.hpp>

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

using NodeWorkflow = std::function<Result<NodeWorkflowReport>(const WorkflowContext&)>;

// Confirms (`question`; refused without --yes off a terminal), takes the inventory's lock,
// runs `workflow` on the one node and prints its report. Returns the exit code.
int run_node_workflow(NodeWorkflowCliOptions& options, const GlobalOptions& globals, std::string_view command,
                      std::string_view question, const NodeWorkflow& workflow);

}  // namespace gpuctl::cli
