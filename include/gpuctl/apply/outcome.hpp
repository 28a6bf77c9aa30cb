#pragma once
// What applying one node came to, as a run returns it and the views (report/) render it: the
// node's outcome for the executor and the detail of its apply. A plain value; no I/O.

#include <gpuctl/apply/apply.hpp>
#include <gpuctl/exec/executor.hpp>

namespace gpuctl {

struct NodeApplyOutcome {
  exec::NodeOutcome outcome;   // ok | changed | failed | unreachable | skipped, with reason
  NodeApplyResult result;      // steps, failing step, output tail, hint
  std::string address{};       // where it was applied (for the recap's folding); empty when not known
};

}  // namespace gpuctl
