#pragma once
// One rule for the exit code of every command that works on many nodes (docs/exit-codes.md):
// 130 interrupted, else 3 when a node failed or was skipped, else 4 when a node was
// unreachable, else 0.

#include "command_registry.hpp"

#include <gpuctl/exec/executor.hpp>

#include <algorithm>
#include <ranges>

namespace gpuctl::cli {

template <std::ranges::input_range Statuses>
int exit_code_for_nodes(const Statuses& statuses, bool interrupted) {
  if (interrupted) return k_exit_interrupted;
  const auto any = [&](exec::NodeStatus wanted) {
    return std::ranges::any_of(statuses, [wanted](exec::NodeStatus s) { return s == wanted; });
  };
  if (any(exec::NodeStatus::failed) || any(exec::NodeStatus::skipped)) return k_exit_nodes_failed;
  if (any(exec::NodeStatus::unreachable)) return k_exit_nodes_unreachable;
  return k_exit_ok;
}

}  // namespace gpuctl::cli
