#pragma once
// `gpuctl replace-gpu INVENTORY NODE` and `gpuctl reimage INVENTORY NODE` as use cases: exactly
// one node by name, confirmed, under the inventory's lock, recorded, the workflow
// (api/node_workflows.hpp) run through a Session for that node. Does network I/O (the node)
// and file I/O (the store); never prints.

#include <gpuctl/api/apply_use_case.hpp>
#include <gpuctl/api/node_workflows.hpp>
#include <gpuctl/api/run_request.hpp>
#include <gpuctl/api/verdict.hpp>

#include <functional>
#include <optional>

namespace gpuctl {

struct NodeWorkflowRequest {
  RunTarget target;                          // its limit is ignored: `node` is the selection
  std::string node;
  std::chrono::seconds drain_timeout{3600};
  std::chrono::milliseconds drain_poll{2000};
  bool resume_drained_by_other = false;      // --resume
};

struct NodeWorkflowResult {
  // invalid_input (bad input, not exactly one node, cannot confirm), error (no recorded facts;
  // the run could not start), declined, locked, nodes_failed, nodes_unreachable, interrupted, ok.
  Verdict verdict = Verdict::ok;
  std::string error;
  bool declined = false;                     // the operator did not answer "yes"
  std::optional<NodeWorkflowReport> report;  // when the workflow ran
};

// Asked once the node is known to be exactly one, before the lock is taken; empty: go.
using ConfirmWorkflow = std::function<Confirmation()>;

NodeWorkflowResult run_replace_gpu(const NodeWorkflowRequest& request, const ConfirmWorkflow& confirm,
                                   const RunEnvironment& env);
NodeWorkflowResult run_reimage(const NodeWorkflowRequest& request, const ReimageOptions& options,
                               const ConfirmWorkflow& confirm, const RunEnvironment& env);

}  // namespace gpuctl
