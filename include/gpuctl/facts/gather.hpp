#pragma once
// Gathering facts from many nodes in parallel: one connection and one batched probe per node
// (collect_facts), bounded by --forks, each node's failure isolated. Does network I/O through
// the TransportFactory; prints nothing.

#include <gpuctl/exec/executor.hpp>
#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/json.hpp>
#include <gpuctl/transport/transport_factory.hpp>

#include <functional>
#include <span>
#include <vector>

namespace gpuctl::facts {

struct GatherOptions {
  int forks = exec::k_default_forks;
  const util::CancellationToken* cancel = nullptr;
  CollectOptions collect;
};

// One outcome per node, in input order: "ok" with facts; "unreachable" when the transport
// could not be opened (connect, host key, auth); "failed" when the probe batch could not run
// or its output was unusable; "skipped" after cancellation. `on_node_done` sees each outcome
// as it completes (serialized).
std::vector<NodeFactsOutcome> gather_facts(std::span<const Node* const> nodes, const GatherOptions& options,
                                           const TransportFactory& connect,
                                           const std::function<void(const NodeFactsOutcome&)>& on_node_done = {});

}  // namespace gpuctl::facts
