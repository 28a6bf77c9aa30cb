#pragma once
// Steps the node workflows (replace_gpu, reimage) share. Internal to src/api.

#include <gpuctl/api/node_workflows.hpp>

namespace gpuctl::workflow {

// Plans the session's one node, applies the plan when it changes something, verifies, and
// records the gathered facts and the final outcome. Sets report.apply, .verify, .outcome.
void converge_verify_record(const WorkflowContext& context, NodeWorkflowReport& report);

// With Slurm enabled in the inventory: asks Slurm about the node, drains it (reason
// "gpuctl run: STEP") and waits for its jobs to end; a node drained by someone else is noted
// and left drained. Sets report.slurm_*. False when the workflow must stop (Slurm cannot be
// asked, the drain failed, its jobs did not end in time); the outcome is then set.
bool drain_before_work(const WorkflowContext& context, Transport& transport, NodeWorkflowReport& report,
                       std::string_view step);

// After the work: a node gpuctl drained is resumed when the workflow verified it, else its
// drain reason is replaced by why it failed. Nothing for nodes gpuctl did not drain.
void settle_drain(const WorkflowContext& context, NodeWorkflowReport& report);

// Ends the workflow early: the outcome, recorded as the node's result.
void stop(const WorkflowContext& context, NodeWorkflowReport& report, exec::NodeStatus status, std::string reason);

}  // namespace gpuctl::workflow
