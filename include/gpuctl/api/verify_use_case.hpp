#pragma once
// `gpuctl verify`: gather each node's state and run every check of its program; recorded in
// the run history (no lock: it changes nothing; a history that cannot be written is only a
// notice). Does network I/O (the nodes) and file I/O (the store); never prints.

#include <gpuctl/api/run_request.hpp>
#include <gpuctl/api/session.hpp>
#include <gpuctl/api/verdict.hpp>

#include <memory>

namespace gpuctl {

struct VerifyRequest {
  RunTarget target;
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
