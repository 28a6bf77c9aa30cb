// The Slurm drain around a node workflow (replace-gpu, reimage): out of service before the
// workflow's own commands, back in service only once the node verified.
#include "workflow_steps.hpp"

#include <fmt/format.h>

namespace gpuctl::workflow {
namespace {

bool verified(const NodeWorkflowReport& report) {
  if (report.verify.empty()) return false;
  for (const auto& outcome : report.verify)
    if (outcome.outcome.status != exec::NodeStatus::ok) return false;
  return true;
}

// The first failed check with its detail, or the workflow's own reason when it stopped first.
std::string why_not_verified(const NodeWorkflowReport& report) {
  for (const auto& outcome : report.verify)
    for (const auto& check : outcome.checks)
      if (check.status == CheckStatus::fail || check.status == CheckStatus::error)
        return verify_failed_reason(check.detail.empty() ? check.name : fmt::format("{} ({})", check.name, check.detail));
  return fmt::format("{}: failed: {}", k_drain_reason_prefix, report.outcome.reason);
}

exec::NodeStatus status_of(const Error& error) {
  return is_connection_error(error) && error.code != ErrorCode::timeout ? exec::NodeStatus::unreachable
                                                                        : exec::NodeStatus::failed;
}

}  // namespace

bool drain_before_work(const WorkflowContext& context, Transport& transport, NodeWorkflowReport& report,
                       std::string_view step) {
  const Node& node = *context.session.nodes().at(0);
  if (!context.session.inventory().cluster.slurm.enabled) return true;
  const bool become = node.connection.become;
  const auto info = slurm_show_node(transport, node.name, become);
  if (!info) {
    stop(context, report, status_of(info.error()), info.error().message);
    return false;
  }
  const auto decision = decide_drain(*info);
  report.slurm_decision = decision;
  if (decision == DrainDecision::not_in_slurm) return true;
  if (decision == DrainDecision::drained_by_other) {
    report.slurm_drain_reason = (*info)->reason;
    report.slurm_left_drained = (*info)->reason;
    return true;
  }
  report.slurm_drain_reason = drain_reason(step);
  if (auto drained = slurm_drain(transport, node.name, report.slurm_drain_reason, become); !drained) {
    stop(context, report, exec::NodeStatus::failed, "cannot drain: " + drained.error().message);
    return false;
  }
  const auto& options = context.session.options();
  const DrainWaitOptions wait{options.drain_timeout, options.drain_poll, options.cancel};
  if (auto idle = wait_for_no_jobs(transport, node.name, wait, become); !idle) {
    report.slurm_left_drained = report.slurm_drain_reason;
    stop(context, report, status_of(idle.error()), idle.error().message);
    return false;
  }
  return true;
}

void settle_drain(const WorkflowContext& context, NodeWorkflowReport& report) {
  const bool others = report.slurm_decision == DrainDecision::drained_by_other;
  if (others && !(context.resume_drained_by_other && verified(report))) return;
  if (!others && (report.slurm_decision != DrainDecision::drain || !report.slurm_left_drained.empty())) return;
  const Node& node = *context.session.nodes().at(0);
  const bool become = node.connection.become;
  auto transport = context.factory(node);
  if (!transport) {
    report.slurm_left_drained = "cannot reach the node to resume it: " + transport.error().message;
    return;
  }
  if (!verified(report)) {
    report.slurm_left_drained = why_not_verified(report);
    (void)slurm_drain(**transport, node.name, report.slurm_left_drained, become);
    return;
  }
  const auto info = slurm_show_node(**transport, node.name, become);
  if (!info) {
    report.slurm_left_drained = "verified, but cannot ask Slurm to resume it: " + info.error().message;
    return;
  }
  // apply resumes by itself a node it drained for a disruptive change; the workflow's drain
  // is then gone already.
  if (!others && *info && is_drained(**info) && !(*info)->reason.starts_with(k_drain_reason_prefix)) {
    report.slurm_left_drained = (*info)->reason;  // someone drained it while gpuctl worked
    return;
  }
  if (*info && is_drained(**info)) {
    if (auto resumed = slurm_resume(**transport, node.name, become); !resumed) {
      report.slurm_left_drained = "verified, but cannot resume: " + resumed.error().message;
      return;
    }
  }
  report.slurm_resumed = true;
  report.slurm_left_drained.clear();
}

}  // namespace gpuctl::workflow
