#pragma once
// Runs one task per node over many nodes with bounded concurrency. Each node's failure is
// isolated: the task's outcome (or its exception) is recorded and the other nodes go on.
// Cancellation: once the token is set no new node starts, in-flight tasks finish, and nodes
// never started are reported as skipped. Every node gets exactly one outcome.
//
// The executor itself does no I/O; tasks do. Worker threads block SIGINT/SIGTERM so that
// signals reach the calling thread (where the CLI's handler sets the token) and never
// interrupt a worker's system calls.

#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/util/cancellation.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl::exec {

enum class NodeStatus { ok, changed, failed, unreachable, skipped };
std::string_view to_string(NodeStatus status);

// What happened on one node.
struct NodeOutcome {
  std::string node;
  NodeStatus status = NodeStatus::skipped;
  std::string reason;                     // why it failed, was unreachable or skipped; may be empty for ok
  std::chrono::milliseconds duration{0};  // wall time of the node's task
};

// What a task reports; the executor adds the node name and duration.
struct TaskResult {
  NodeStatus status = NodeStatus::ok;
  std::string reason;
};

// A task for one node. `index` is the node's position in the input, so a task can store
// extra per-node data in a pre-sized vector without locking.
using NodeTask = std::function<TaskResult(std::size_t index, const Node& node)>;

inline constexpr int k_default_forks = 64;

struct ExecutorOptions {
  int forks = k_default_forks;                        // maximum nodes in flight
  const util::CancellationToken* cancel = nullptr;    // optional
  // Called once per node as soon as its outcome is known (also for skipped nodes), serialized
  // (never concurrently), from a worker or the calling thread.
  std::function<void(std::size_t index, const NodeOutcome&)> on_node_done = {};
};

// How many workers to use: `requested` clamped to [1, node_count] and to a quarter of the
// open-file limit (each connection needs descriptors). Reads getrlimit.
int effective_forks(int requested, std::size_t node_count);

// Runs `task` once per node; returns outcomes in input order. Never throws: a task that
// throws is recorded as failed with the exception's message.
std::vector<NodeOutcome> run_on_nodes(std::span<const Node* const> nodes, const NodeTask& task,
                                      const ExecutorOptions& options = {});

}  // namespace gpuctl::exec
