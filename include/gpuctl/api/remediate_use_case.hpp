#pragma once
// `gpuctl remediate INVENTORY --limit NODES` as a use case: each selected node diagnosed and, when
// it fails on a GPU fault, remedied by the health policy (api/node_workflows.hpp, remediate),
// a batch of nodes at a time, under the inventory's lock, recorded in the run history. Does
// network I/O (the nodes) and file I/O (the store); never prints.

#include <gpuctl/api/node_workflow_use_case.hpp>
#include <gpuctl/apply/rollout.hpp>

#include <vector>

namespace gpuctl {

struct RemediateRequest {
  RunTarget target;                          // target.limit selects the nodes
  RemediateOptions options;
  // Nodes remedied at once (default one: a cluster loses one node's capacity at a time), and
  // --max-fail: no batch starts once more than that share of the nodes so far failed.
  RolloutPolicy rollout{.batch_size = 1, .batch_percent = 0, .max_fail_percent = 100};
  std::chrono::seconds drain_timeout{3600};
  std::chrono::milliseconds drain_poll{2000};
  bool stop_jobs = false;                    // --stop-jobs: cancel a drained node's jobs instead of waiting
};

struct RemediateResult {
  // invalid_input, error, declined, locked, nodes_failed, nodes_unreachable, interrupted, ok.
  Verdict verdict = Verdict::ok;
  std::string error;
  bool declined = false;
  std::vector<NodeWorkflowReport> reports;  // one per node that ran, in inventory order
  std::vector<std::string> not_started;     // --max-fail stopped the rollout before these
};

RemediateResult run_remediate(const RemediateRequest& request, const ConfirmWorkflow& confirm, const RunEnvironment& env);

}  // namespace gpuctl
