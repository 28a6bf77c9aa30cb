// The one drain -> work -> verify -> resume sequence (drain_sequence.hpp).
#include "drain_sequence.hpp"

#include <gpuctl/verify/checks.hpp>

#include <fmt/format.h>

namespace gpuctl::drain_sequence {
namespace {

// A timeout is Slurm's or the jobs', not a lost node.
exec::NodeStatus status_of(const Error& error) {
  return is_connection_error(error) && error.code != ErrorCode::timeout ? exec::NodeStatus::unreachable
                                                                        : exec::NodeStatus::failed;
}

void say(const Sequence& sequence, const std::string& text) {
  if (sequence.on_message) sequence.on_message(text);
}

bool failed(const exec::TaskResult& result) {
  return result.status == exec::NodeStatus::failed || result.status == exec::NodeStatus::unreachable;
}

// After the work: resume when verified (gpuctl's drain, or someone else's when the policy
// says so), else leave the node drained with why. Returns the sequence's outcome.
exec::TaskResult settle(const Sequence& sequence, Record& record, exec::TaskResult outcome) {
  const Node& node = sequence.node;
  const bool become = node.connection.become;
  const bool others = record.decision == DrainDecision::drained_by_other;
  const auto& policy = sequence.policy;
  const bool work_failed = failed(outcome);
  if (others && (work_failed || !policy.resume_drained_by_other)) return outcome;
  if (work_failed && !policy.failure_replaces_reason) {
    record.left_drained = record.drain_reason;
    say(sequence, "apply failed: the node stays drained");
    return outcome;
  }
  const auto verified = sequence.verify();
  if (others && !verified.passed) return outcome;
  if (work_failed || !verified.passed) {
    // gpuctl's reason is replaced by why the node failed, so the admin sees it in sinfo.
    const auto check = verified.failed_check.empty() ? verified.reason : verified.failed_check;
    const bool as_failure = verified.failed_check.empty() && policy.failure_replaces_reason;
    record.left_drained = as_failure ? fmt::format("{}: failed: {}", k_drain_reason_prefix,
                                                   work_failed ? outcome.reason : verified.reason)
                                     : verify_failed_reason(check);
    if (auto transport = sequence.connect(); transport)
      (void)slurm_drain(**transport, node.name, record.left_drained, become);
    else if (!policy.resume_failure_fails)
      record.left_drained = "cannot reach the node to resume it: " + transport.error().message;
    if (work_failed) return outcome;
    say(sequence, fmt::format("verify failed after apply: {}; the node stays drained", check));
    return {exec::NodeStatus::failed, "verify after apply failed: " + check};
  }
  // The connection may have been opened again after a reboot.
  auto transport = sequence.connect();
  if (!transport) {
    if (policy.resume_failure_fails)
      return {is_connection_error(transport.error()) ? exec::NodeStatus::unreachable : exec::NodeStatus::failed,
              transport.error().to_string()};
    record.left_drained = "cannot reach the node to resume it: " + transport.error().message;
    return outcome;
  }
  bool drained = true;
  if (policy.ask_before_resume) {
    const auto info = slurm_show_node(**transport, node.name, become);
    if (!info) {
      record.left_drained = "verified, but cannot ask Slurm to resume it: " + info.error().message;
      return outcome;
    }
    // A drain that is not gpuctl's appeared while gpuctl worked: it is someone else's to lift.
    if (!others && *info && is_drained(**info) && !(*info)->reason.starts_with(k_drain_reason_prefix)) {
      record.left_drained = (*info)->reason;
      return outcome;
    }
    drained = *info && is_drained(**info);  // apply may have resumed it already
  }
  if (drained) {
    if (auto resumed = slurm_resume(**transport, node.name, become); !resumed) {
      record.left_drained = "verified, but cannot resume: " + resumed.error().message;
      if (policy.resume_failure_fails) return {exec::NodeStatus::failed, record.left_drained};
      return outcome;
    }
  }
  record.resumed = true;
  record.left_drained.clear();
  say(sequence, "verified: resumed in Slurm");
  return outcome;
}

}  // namespace

std::string first_failed_check(const std::vector<CheckResult>& checks) {
  for (const auto& check : checks)
    if (check.status == CheckStatus::fail || check.status == CheckStatus::error)
      return check.detail.empty() ? check.name : fmt::format("{} ({})", check.name, check.detail);
  return {};
}

exec::TaskResult run(const Sequence& sequence, Record& record) {
  const Node& node = sequence.node;
  const bool become = node.connection.become;
  // Slurm's view first: a failure here leaves the node untouched (it may be running jobs).
  auto transport = sequence.connect();
  if (!transport) return {status_of(transport.error()), transport.error().to_string()};
  const auto info = slurm_show_node(**transport, node.name, become);
  if (!info) return {status_of(info.error()), info.error().message};
  const auto decision = decide_drain(*info);
  record.decision = decision;
  if (decision == DrainDecision::not_in_slurm) {
    say(sequence, "not known to Slurm: applying without a drain");
    return sequence.work();
  }
  if (decision == DrainDecision::drained_by_other) {
    record.drain_reason = (*info)->reason;
    record.left_drained = (*info)->reason;
    say(sequence, fmt::format("already drained by someone else (reason: {}): applying, and leaving it drained",
                              (*info)->reason));
    return settle(sequence, record, sequence.work());
  }
  record.drain_reason = drain_reason(sequence.step);
  if (auto drained = slurm_drain(**transport, node.name, record.drain_reason, become); !drained)
    return {exec::NodeStatus::failed, "cannot drain: " + drained.error().message};
  say(sequence, fmt::format("drained in Slurm (reason \"{}\"); waiting for its jobs to end", record.drain_reason));
  if (auto idle = wait_for_no_jobs(**transport, node.name, sequence.wait, become); !idle) {
    record.left_drained = record.drain_reason;
    return {status_of(idle.error()), idle.error().message};
  }
  say(sequence, "no jobs left on the node: applying");
  return settle(sequence, record, sequence.work());
}

}  // namespace gpuctl::drain_sequence
