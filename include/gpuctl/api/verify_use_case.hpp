#pragma once
// `gpuctl verify`: gather each node's state and run every check of its program; recorded in
// the run history (no lock: it changes nothing; a history that cannot be written is only a
// notice). Does network I/O (the nodes) and file I/O (the store); never prints.

#include <gpuctl/api/run_request.hpp>
#include <gpuctl/api/session.hpp>
#include <gpuctl/api/verdict.hpp>
#include <gpuctl/verify/nccl_nodes.hpp>

#include <memory>

namespace gpuctl {

// The most nodes --nccl-nodes may put in one set (verify/nccl_nodes.hpp says why).
inline constexpr int k_verify_max_nccl_nodes = k_max_nccl_nodes_per_set;

struct VerifyRequest {
  RunTarget target;
  // > 0: also one NCCL all-reduce across each set of this many nodes, through Slurm
  // (Session::verify_nccl_across_nodes); needs slurm.enabled. 0: none.
  int nccl_nodes = 0;
  // Also one short job through Slurm on each node (check slurm_gpu_job); needs slurm.enabled.
  bool slurm_job = false;
};

struct VerifyResult {
  Verdict verdict = Verdict::ok;   // invalid_input, nodes_failed, nodes_unreachable, interrupted, ok
  std::string error;
  std::vector<NodeVerifyOutcome> outcomes;
  std::shared_ptr<const Inventory> inventory;  // the inventory verified (for the reports' groups)
};

VerifyResult run_verify(const VerifyRequest& request, const RunEnvironment& env);

// The inventory at `path` for a report's groups, loaded and checked; its diagnostics go to
// env.on_diagnostic. Failure invalid_input.
std::expected<std::shared_ptr<const Inventory>, Failure> load_inventory_for_report(const std::string& path,
                                                                                     const RunEnvironment& env);

}  // namespace gpuctl
