#pragma once
// How a use case ended, in the terms every command's exit code is made from. The CLI maps a
// Verdict to its exit code in one place (src/cli/exit_codes.cpp, docs/exit-codes.md).

#include <gpuctl/exec/executor.hpp>

#include <algorithm>
#include <ranges>
#include <string>

namespace gpuctl {

enum class Verdict {
  ok,                 // done; nothing failed
  changes_pending,    // plan: changes to make (an exit code only under --detailed-exitcode)
  invalid_input,      // a usage error, an invalid inventory, playbook or saved plan: nothing was contacted
  error,              // the run could not be done or was refused (a stale saved plan, an unwritable file)
  nodes_failed,       // a node failed or was skipped
  nodes_unreachable,  // a node could not be reached (and none failed)
  locked,             // another run holds the inventory's lock
  interrupted,        // Ctrl-C
  declined,           // the operator answered no to the confirmation: nothing was changed
};

// A use case's failure before or instead of its nodes' outcomes: the verdict and what to tell
// the operator (the CLI prints it after "gpuctl: ").
struct Failure {
  Verdict verdict = Verdict::error;
  std::string message;
};

// The one rule for commands that work on many nodes: interrupted, else nodes_failed when a
// node failed or was skipped, else nodes_unreachable when one was unreachable, else ok.
template <std::ranges::input_range Statuses>
Verdict verdict_for_nodes(const Statuses& statuses, bool interrupted) {
  if (interrupted) return Verdict::interrupted;
  const auto any = [&](exec::NodeStatus wanted) {
    return std::ranges::any_of(statuses, [wanted](exec::NodeStatus s) { return s == wanted; });
  };
  if (any(exec::NodeStatus::failed) || any(exec::NodeStatus::skipped)) return Verdict::nodes_failed;
  if (any(exec::NodeStatus::unreachable)) return Verdict::nodes_unreachable;
  return Verdict::ok;
}

}  // namespace gpuctl
