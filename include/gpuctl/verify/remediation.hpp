#pragma once
// What `gpuctl remediate` does about a failing node: its verify's failed checks and the facts
// they read, mapped through the health policy (health/policy.hpp) to one remedy, the most
// severe its faults call for, with the GPUs a reset must cover. Pure.

#include <gpuctl/facts/facts.hpp>
#include <gpuctl/health/policy.hpp>
#include <gpuctl/verify/checks.hpp>

#include <string>
#include <vector>

namespace gpuctl {

// One fault and what the policy says of it: "Xid 109 on 0000:b3:00" -> reset_gpu.
struct RemedyFinding {
  std::string check;       // the failed check that found it: xid_events
  std::string fault;       // "Xid 109 on 0000:b3:00 (context switch timeout)"
  health::Remedy remedy = health::Remedy::investigate;
  std::string gpu;         // the GPU's PCI address as the Xid line prints it; empty: the node
};

struct RemediationPlan {
  std::vector<RemedyFinding> findings;
  // Failed checks remediation does not handle (configuration: `gpuctl apply` fixes them),
  // as "name (detail)". A node with any of these is not remediated. slurmd_registered (Slurm's
  // view) is neither: the verify after the remedy judges it.
  std::vector<std::string> outside;
  health::Remedy remedy = health::Remedy::none;  // the most severe finding's
  // reset_gpu: the GPUs to reset, as nvidia-smi -i takes them ("0000:b3:00.0"); empty with
  // whole_board: every GPU (and NVSwitch) at once, with the fabric manager stopped.
  std::vector<std::string> reset_gpus;
  bool whole_board = false;

  bool needs_action() const { return health::remedy_needs_drain(remedy); }
};

// Plans from a verify of the node (its checks and the facts they read). `nvswitch_board`:
// the node's GPUs sit on an NVSwitch board, where a reset covers every GPU and switch.
RemediationPlan plan_remediation(const std::vector<CheckResult>& checks, const NodeFacts& facts, bool nvswitch_board,
                                 const health::HealthPolicy& policy);

// "Xid 109 on 0000:b3:00 (context switch timeout) -> reset_gpu", one line per finding.
std::vector<std::string> describe(const RemediationPlan& plan);

}  // namespace gpuctl
