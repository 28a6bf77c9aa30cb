#pragma once
// `gpuctl exec`'s core: one shell command on many nodes, in parallel, each node's result
// kept. Connects through a TransportFactory (network I/O); prints nothing.

#include <gpuctl/exec/executor.hpp>
#include <gpuctl/transport/transport_factory.hpp>
#include <gpuctl/util/cancellation.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace gpuctl::exec {

struct ExecOptions {
  std::string command;                            // run with sh -c on each node
  int forks = k_default_forks;
  std::optional<std::chrono::seconds> timeout;    // per command; default: the node's command_timeout
  bool become = false;
  const util::CancellationToken* cancel = nullptr;
};

// One node's result: ok (exit 0), failed (non-zero exit, or timed out / session lost during
// the command: no `result` then), unreachable (connect, host key or auth failed), skipped.
struct ExecNodeResult {
  NodeOutcome outcome;
  std::optional<CommandResult> result;
};

// Runs the command on every node; `on_node_done` sees each result as it completes (serialized).
// Results come back in input order, one per node.
std::vector<ExecNodeResult> run_command_on_nodes(std::span<const Node* const> nodes, const ExecOptions& options,
                                                 const TransportFactory& connect,
                                                 const std::function<void(const ExecNodeResult&)>& on_node_done = {});

}  // namespace gpuctl::exec
