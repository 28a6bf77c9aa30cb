// The Slurm drain around a node workflow (replace-gpu, reimage): the one drain sequence
// (drain_sequence.hpp) with the workflows' rules, its record copied into the report.
#include "drain_sequence.hpp"
#include "workflow_steps.hpp"

#include <gpuctl/verify/checks.hpp>

namespace gpuctl::workflow {
namespace {

bool verified(const NodeWorkflowReport& report) {
  if (report.verify.empty()) return false;
  for (const auto& outcome : report.verify)
    if (outcome.outcome.status != exec::NodeStatus::ok) return false;
  return true;
}

std::string first_failed_check(const NodeWorkflowReport& report) {
  for (const auto& outcome : report.verify)
    if (auto check = drain_sequence::first_failed_check(outcome.checks); !check.empty()) return check;
  return {};
}

}  // namespace

void run_drained(const WorkflowContext& context, NodeWorkflowReport& report, Transport* transport,
                 std::string_view step, const std::function<void()>& work) {
  const Node& node = *context.session.nodes().at(0);
  if (!context.session.inventory().cluster.slurm.enabled) {
    work();
    return;
  }
  bool worked = false;
  std::unique_ptr<Transport> reopened;
  const auto& options = context.session.options();
  drain_sequence::Record record;
  const drain_sequence::Sequence sequence{
      .node = node,
      .step = std::string(step),
      .wait = {options.drain_timeout, options.drain_poll, options.cancel, options.drain_stop_jobs},
      .policy = {.resume_drained_by_other = context.resume_drained_by_other,
                 .failure_replaces_reason = true,
                 .ask_before_resume = true,
                 .resume_failure_fails = false},
      // The workflow's own connection before the work; a fresh one after it (the work
      // closes it, and may reboot the node).
      .connect = [&]() -> Result<Transport*> {
        if (!worked && transport) return transport;
        auto opened = context.factory(node);
        if (!opened) return std::unexpected(opened.error());
        reopened = std::move(*opened);
        return reopened.get();
      },
      .work = [&]() -> exec::TaskResult {
        worked = true;
        report.slurm_decision = record.decision;  // the verify looks past the workflow's own drain
        work();
        return {report.outcome.status, report.outcome.reason};
      },
      .verify = [&] {
        return drain_sequence::Verification{verified(report), first_failed_check(report), report.outcome.reason};
      },
      .on_message = {},
  };
  const auto result = drain_sequence::run(sequence, record);
  report.slurm_decision = record.decision;
  report.slurm_drain_reason = record.drain_reason;
  report.slurm_resumed = record.resumed;
  report.slurm_left_drained = record.left_drained;
  if (!worked) stop(context, report, result.status, result.reason);
}

}  // namespace gpuctl::workflow
