#include <gpuctl/facts/gather.hpp>

namespace gpuctl::facts {

std::vector<NodeFactsOutcome> gather_facts(std::span<const Node* const> nodes, const GatherOptions& options,
                                           const TransportFactory& connect,
                                           const std::function<void(const NodeFactsOutcome&)>& on_node_done) {
  std::vector<NodeFactsOutcome> outcomes(nodes.size());
  const exec::NodeTask task = [&](std::size_t index, const Node& node) -> exec::TaskResult {
    auto transport = connect(node);
    if (!transport) return {exec::NodeStatus::unreachable, transport.error().to_string()};
    auto facts = collect_facts(**transport, options.collect);
    if (!facts) return {exec::NodeStatus::failed, facts.error().to_string()};
    outcomes[index].facts = std::move(*facts);
    return {exec::NodeStatus::ok, {}};
  };
  exec::ExecutorOptions executor;
  executor.forks = options.forks;
  executor.cancel = options.cancel;
  executor.on_node_done = [&](std::size_t index, const exec::NodeOutcome& outcome) {
    auto& result = outcomes[index];
    result.node = outcome.node;
    result.status = outcome.status;
    result.error = outcome.reason;
    if (on_node_done) on_node_done(result);
  };
  exec::run_on_nodes(nodes, task, executor);
  return outcomes;
}

}  // namespace gpuctl::facts
