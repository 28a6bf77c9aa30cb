#pragma once
// A node as Slurm's controller sees it: `scontrol show node NAME`, run on the node itself
// (the slurm step installs slurm-client next to slurmd), plus a pure parser of its output. No I/O here:
// the command is part of the batched state probe (plan/node_state.hpp).

#include <gpuctl/core/error.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl::facts {

struct SlurmNodeInfo {
  std::string name;                 // NodeName=
  std::vector<std::string> states;  // State=IDLE+DRAIN -> {"IDLE", "DRAIN"}; base state first
  std::string gres;                 // Gres= as printed: "gpu:h100:8", "gpu:h100:8(S:0-1)", "(null)"
  std::string reason;               // Reason= (why it is drained or down), without Slurm's [user@time]
  std::string address;              // NodeAddr=

  bool has_state(std::string_view state) const;
};

// Parses `scontrol show node NAME` output for one node. `Key=Value` pairs separated by
// spaces; values with spaces (OS=, Reason=, Comment=, Extra=) run to the end of their line.
// Errors (ErrorCode::parse): no NodeName=, or no State=.
Result<SlurmNodeInfo> parse_scontrol_node(std::string_view text);

// The GPU part of a Gres= value, normalised for comparison with the inventory:
// "gpu:h100:8(S:0-1),shard:h100:16" -> "gpu:h100:8"; "(null)" or no gpu entry -> "".
std::string slurm_gpu_gres(std::string_view gres);

// How the node stands in Slurm: nullopt when it can take jobs (IDLE, MIXED, ALLOCATED,
// COMPLETING, without a DRAIN/FAIL/NOT_RESPONDING/... flag), else a short reason such as
// "drained: gpuctl test" or "not registered (State=UNKNOWN)".
std::optional<std::string> slurm_node_problem(const SlurmNodeInfo& node);

}  // namespace gpuctl::facts
