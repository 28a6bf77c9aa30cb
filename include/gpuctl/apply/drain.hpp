#pragma once
// Slurm drain around disruptive changes (a reboot, a new nvidia-driver-* package): the node is
// drained with a reason naming gpuctl, its running jobs are waited for, the change is applied
// and verified, and the node is resumed only when verify passed. A node drained by someone else
// is worked on but never resumed. The decisions are pure functions; the Slurm commands run on
// the node itself through its Transport (scontrol/squeue of the slurm-client package).

#include <gpuctl/core/error.hpp>
#include <gpuctl/facts/slurm.hpp>
#include <gpuctl/plan/plan.hpp>
#include <gpuctl/transport/transport.hpp>
#include <gpuctl/util/cancellation.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

// Every reason gpuctl sets starts with this; a drain with another reason belongs to someone else.
inline constexpr std::string_view k_drain_reason_prefix = "gpuctl";

// The first change of `plan` that needs the node out of service: a reboot, or any change of one
// of `driver_packages` (the package profile's driver and kernel module: replacing them pulls the
// module from under running jobs); nullptr when there is none. Pure.
const Change* disruptive_change(const NodePlan& plan, const std::vector<std::string>& driver_packages);

// What to do with a node before a disruptive change, from Slurm's view of it (nullopt: Slurm
// does not know the node, e.g. a fresh node not yet in slurm.conf).
enum class DrainDecision {
  not_in_slurm,      // go on without draining
  drained_by_other,  // already drained with a reason not starting with "gpuctl": work, never resume
  drain,             // drain (again, if an earlier gpuctl run left it drained), wait, work, resume
};
DrainDecision decide_drain(const std::optional<facts::SlurmNodeInfo>& node);
std::string_view to_string(DrainDecision decision);

// True when the node has a DRAIN flag or a DRAINED/DRAINING base state. Pure.
bool is_drained(const facts::SlurmNodeInfo& node);

// Whether gpuctl resumes the node after its work: only a node it drained itself, and only
// when the node's verify passed. Pure.
bool should_resume(DrainDecision decision, bool verify_passed);

// "gpuctl run: <step>", the reason set when draining for `step`.
std::string drain_reason(std::string_view step);
// "gpuctl: verify failed: <check>", the reason left on a node whose verify failed.
std::string verify_failed_reason(std::string_view check);

// `scontrol show node` output with gpuctl's own drain taken out (the DRAIN flag dropped from
// State=, the Reason= line removed), so the slurmd_registered check can judge the node as it
// will be once resumed. A drained node DOWN with "Node unexpectedly rebooted" (slurmctld's
// answer to the reboot gpuctl just did) counts as gpuctl's too. With `any_reason`, a drain by
// anyone is taken out (a workflow that reports the node as left drained by someone else).
// Unchanged when the node is not drained by gpuctl or the text does not parse. Pure.
std::string without_own_drain(std::string_view scontrol_output, bool any_reason = false);

// --- Slurm commands on the node (I/O through `transport`, run with `become`) ---

// `scontrol show node NAME`: nullopt when Slurm does not know the node ("not found", no
// /etc/slurm/slurm.conf on the node, or scontrol not installed yet). Errors: transport failures; ErrorCode::remote when scontrol
// fails otherwise (controller unreachable: draining cannot be decided, so the node must not
// be touched).
Result<std::optional<facts::SlurmNodeInfo>> slurm_show_node(Transport& transport, const std::string& name,
                                                            bool become);

// `scontrol update nodename=NAME state=drain reason=REASON` (also replaces the reason of a
// drained node). Error when scontrol exits non-zero.
Result<void> slurm_drain(Transport& transport, const std::string& name, const std::string& reason, bool become);

// `scontrol update nodename=NAME state=resume`. Error when scontrol exits non-zero.
Result<void> slurm_resume(Transport& transport, const std::string& name, bool become);

struct DrainWaitOptions {
  std::chrono::seconds timeout{3600};
  std::chrono::milliseconds poll{2000};
  const util::CancellationToken* cancel = nullptr;
  // Cancel the node's jobs (scancel -w NAME) once it is drained, then wait for them to end,
  // instead of waiting for them to finish (remediate --stop-jobs).
  bool stop_jobs = false;
};

// With options.stop_jobs, first `scancel -w NAME`. Polls `squeue -h -w NAME` until it lists no
// job. Errors: ErrorCode::io when scancel fails; ErrorCode::timeout naming the jobs
// still running after `timeout`; ErrorCode::cancelled when cancelled; ErrorCode::remote when
// squeue fails.
Result<void> wait_for_no_jobs(Transport& transport, const std::string& name, const DrainWaitOptions& options,
                              bool become);

}  // namespace gpuctl
