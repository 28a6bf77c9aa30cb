// The tail every node workflow ends with: converge (or not), verify, record.
#include "workflow_steps.hpp"

namespace gpuctl::workflow {

void stop(const WorkflowContext& context, NodeWorkflowReport& report, exec::NodeStatus status, std::string reason) {
  report.outcome = {report.node, status, std::move(reason), {}};
  NodeVerifyOutcome recorded;
  recorded.outcome = report.outcome;
  context.recorder.record_outcomes(std::span<const NodeVerifyOutcome>(&recorded, 1));
}

void converge_verify_record(const WorkflowContext& context, NodeWorkflowReport& report, const DcgmDiagRequest& dcgm) {
  const Plan plan = context.session.plan();
  context.recorder.record_plan(plan);
  bool changed = false;
  if (plan.has_changes() || plan.has_errors()) {
    report.apply = context.session.apply(plan, /*check_fresh=*/false);
    for (const auto& applied : report.apply) {
      changed = changed || applied.outcome.status == exec::NodeStatus::changed;
      if (applied.outcome.status != exec::NodeStatus::ok && applied.outcome.status != exec::NodeStatus::changed) {
        context.recorder.record_facts(context.session);
        context.recorder.record_outcomes(report.apply);
        report.outcome = applied.outcome;
        return;
      }
    }
  }
  verify_record(context, report, dcgm);
  if (report.outcome.status == exec::NodeStatus::ok && changed) report.outcome.status = exec::NodeStatus::changed;
}

void verify_record(const WorkflowContext& context, NodeWorkflowReport& report, const DcgmDiagRequest& dcgm) {
  // The workflow's own drain, or one it reports as someone else's, is not a verify failure.
  const auto ignored = report.slurm_decision == DrainDecision::drain              ? IgnoredDrain::own
                       : report.slurm_decision == DrainDecision::drained_by_other ? IgnoredDrain::any
                                                                                  : IgnoredDrain::none;
  report.verify = context.session.verify(ignored, dcgm);
  // The facts of the verify: after every change, so they are what the node is now.
  context.recorder.record_facts(context.session);
  context.recorder.record_outcomes(report.verify);
  for (const auto& verified : report.verify) report.outcome = verified.outcome;
}


}  // namespace gpuctl::workflow
