#pragma once
// Steps the node workflows (replace_gpu, reimage, remediate) share. Internal to src/api.

#include <gpuctl/api/node_workflows.hpp>

#include <functional>
#include <string_view>

namespace gpuctl::workflow {

// Plans the session's one node, applies the plan when it changes something, verifies, and
// records the gathered facts and the final outcome. Sets report.apply, .verify, .outcome.
// `dcgm.level` > 0: verify runs DCGM's diagnostic at that level, on the GPUs it names (Session::verify).
void converge_verify_record(const WorkflowContext& context, NodeWorkflowReport& report, const DcgmDiagRequest& dcgm = {});

// Verifies the session's one node (DCGM's diagnostic at `dcgm.level` where > 0) looking past
// the workflow's own drain, and records the facts and the outcome. Sets report.verify, .outcome.
void verify_record(const WorkflowContext& context, NodeWorkflowReport& report, const DcgmDiagRequest& dcgm = {});

// Runs `work` (which sets report.outcome, and report.verify when it verified) inside the one
// drain sequence (drain_sequence.hpp) when Slurm is enabled in the inventory: Slurm is asked
// about the node through `transport` (the workflow's own connection), the node drained
// (reason "gpuctl run: STEP") and its jobs waited for; a node drained by someone else is
// noted and left drained unless context.resume_drained_by_other. After the work, a node
// gpuctl drained is resumed when it verified, else its reason is replaced by why it failed.
// Sets report.slurm_*. When the work cannot start (Slurm cannot be asked, the drain failed,
// its jobs did not end in time), it stops the workflow with that outcome.
void run_drained(const WorkflowContext& context, NodeWorkflowReport& report, Transport* transport,
                 std::string_view step, const std::function<void()>& work);

// Ends the workflow early: the outcome, recorded as the node's result.
void stop(const WorkflowContext& context, NodeWorkflowReport& report, exec::NodeStatus status, std::string reason);

}  // namespace gpuctl::workflow
