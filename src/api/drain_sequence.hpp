#pragma once
// The one Slurm drain sequence around disruptive work on a node: ask Slurm -> drain (unless
// someone else did) -> wait for the jobs -> work -> verify -> resume, or leave the node
// drained with why. Used by apply (Session, for a disruptive change) and by the node
// workflows (replace-gpu, reimage). Internal to src/api. Does network I/O (scontrol/squeue on
// the node); never prints (messages go to `on_message`).

#include <gpuctl/apply/drain.hpp>
#include <gpuctl/exec/executor.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/transport/transport.hpp>
#include <gpuctl/verify/checks.hpp>

#include <functional>
#include <optional>
#include <string>

namespace gpuctl::drain_sequence {

// Where apply and the workflows differ, each a documented rule (docs/playbooks.md, the guides).
struct Policy {
  // Resume a node that someone else drained, once it verified (the workflows' --resume).
  bool resume_drained_by_other = false;
  // A failed work replaces gpuctl's drain reason by "gpuctl: failed: REASON" (workflows); apply
  // leaves the node drained with the reason it drained it with.
  bool failure_replaces_reason = false;
  // Before resuming, ask Slurm again and resume only a node still drained by gpuctl (the
  // workflows: their apply may have resumed it already, or someone drained it meanwhile).
  bool ask_before_resume = false;
  // A failed resume fails the node (apply); otherwise it is only reported (left_drained).
  bool resume_failure_fails = true;
};

// What the sequence did, for reports: unset decision when Slurm was never asked.
struct Record {
  std::optional<DrainDecision> decision;
  std::string drain_reason;   // gpuctl's ("gpuctl run: STEP"), or the one someone else had set
  bool resumed = false;
  std::string left_drained;   // why the node stays drained; empty when resumed or never drained
};

// The verification after the work: passed, or the first failing check as "name (detail)".
struct Verification {
  bool passed = false;
  std::string failed_check;
  std::string reason;         // the verify's own reason when no check failed (unreachable, ...)
};

struct Sequence {
  const Node& node;
  std::string step;                                   // names gpuctl's drain reason
  DrainWaitOptions wait;
  Policy policy;
  // The node's connection, opened again when it was lost (a reboot in the work).
  std::function<Result<Transport*>()> connect;
  // The work; its outcome (failed or unreachable: the work failed) is the sequence's.
  std::function<exec::TaskResult()> work;
  // Called after a work that succeeded, only when the node may be resumed.
  std::function<Verification()> verify;
  // Progress lines for the operator (optional).
  std::function<void(const std::string&)> on_message;
};

// Runs the sequence; returns the node's outcome and fills `record`. A node Slurm does not
// know is worked on without a drain; a failure before the work (Slurm cannot be asked, the
// drain fails, the jobs outlive the timeout) returns failed/unreachable without working.
exec::TaskResult run(const Sequence& sequence, Record& record);

// "name (detail)" of the first failed or errored check; empty when none failed.
std::string first_failed_check(const std::vector<CheckResult>& checks);

}  // namespace gpuctl::drain_sequence
