#pragma once
// What verifying one node came to, as a run returns it, the state store reads it back and the
// views (report/) render it: the node's outcome and its check results. A plain value; no I/O.

#include <gpuctl/exec/executor.hpp>
#include <gpuctl/verify/checks.hpp>

#include <vector>

namespace gpuctl {

struct NodeVerifyOutcome {
  exec::NodeOutcome outcome;   // ok (all pass) | failed (a check failed or errored) | unreachable | skipped
  std::vector<CheckResult> checks;
  std::string address{};       // where it was verified (for the views' folding); empty when not known
};

}  // namespace gpuctl
