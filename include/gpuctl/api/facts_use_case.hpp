#pragma once
// `gpuctl facts`: gather each node's facts (OS, kernel, driver, CUDA, NCCL, GPUs) in one round
// trip per node, or this host's alone (`--connection local` without an inventory). Does
// network I/O (the nodes); never prints.

#include <gpuctl/api/run_request.hpp>
#include <gpuctl/api/verdict.hpp>
#include <gpuctl/facts/gather.hpp>

namespace gpuctl {

struct FactsRequest {
  std::string inventory;      // empty: this host, which needs connection "local"
  std::string limit;
  std::string connection;     // "", "ssh" or "local"
  int forks = exec::k_default_forks;
};

struct FactsResult {
  Verdict verdict = Verdict::ok;  // invalid_input (no inventory without --connection local, an invalid inventory, a bad --limit), nodes_*, interrupted
  std::string error;
  std::vector<facts::NodeFactsOutcome> outcomes;  // one per node, in inventory order
};

FactsResult run_facts(const FactsRequest& request, const RunEnvironment& env);

}  // namespace gpuctl
