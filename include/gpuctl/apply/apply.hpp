#pragma once
// Applying a node's plan: its changes in order, handlers once per step, reboots waited for.
// Does network I/O through the node's Transport. One node's failure is returned as a value;
// it never affects other nodes.

#include <gpuctl/apply/hooks.hpp>
#include <gpuctl/core/error.hpp>
#include <gpuctl/exec/transport_pool.hpp>
#include <gpuctl/plan/plan.hpp>

#include <chrono>
#include <string>
#include <vector>

namespace gpuctl {

struct ApplyOptions {
  std::chrono::seconds reboot_timeout{600};    // how long a node may take to come back
  std::chrono::seconds reboot_poll{2};
};

struct StepRecord {
  std::string name;
  StepStatus status = StepStatus::skipped;
  std::chrono::milliseconds duration{0};
};

struct NodeApplyResult {
  std::string node;
  bool failed = false;
  bool changed = false;
  std::string failed_step;
  std::string error;          // what failed
  std::string output_tail;    // last lines of the failing command's output
  std::string hint;           // the fix, where known
  std::vector<StepRecord> steps;
};

// Executes `plan` (made from `program`) on its node. The transport comes from `pool`, which
// is reopened after a reboot.
NodeApplyResult apply_node(exec::TransportPool& pool, const Node& node, const NodeProgram& program,
                           const NodePlan& plan, const ApplyOptions& options, RunHooks& hooks);

// A known fix for a failed command's output ("Could not get lock" -> wait for apt), or empty.
std::string failure_hint(std::string_view output);

}  // namespace gpuctl
