#pragma once
// Steps the node workflows (replace_gpu, reimage) share. Internal to src/api.

#include <gpuctl/api/node_workflows.hpp>

namespace gpuctl::workflow {

// Plans the session's one node, applies the plan when it changes something, verifies, and
// records the gathered facts and the final outcome. Sets report.apply, .verify, .outcome.
void converge_verify_record(const WorkflowContext& context, NodeWorkflowReport& report);

// Ends the workflow early: the outcome, recorded as the node's result.
void stop(const WorkflowContext& context, NodeWorkflowReport& report, exec::NodeStatus status, std::string reason);

}  // namespace gpuctl::workflow
