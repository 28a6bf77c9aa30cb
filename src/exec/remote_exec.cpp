#include <gpuctl/exec/remote_exec.hpp>

#include <fmt/format.h>

namespace gpuctl::exec {
namespace {

// The outcome already names the node; the reason is the error without it.
std::string describe(const Error& error) {
  return error.hint.empty() ? error.message : fmt::format("{} ({})", error.message, error.hint);
}

}  // namespace

std::vector<ExecNodeResult> run_command_on_nodes(std::span<const Node* const> nodes, const ExecOptions& options,
                                                 const TransportFactory& connect,
                                                 const std::function<void(const ExecNodeResult&)>& on_node_done) {
  std::vector<ExecNodeResult> results(nodes.size());
  const NodeTask task = [&](std::size_t index, const Node& node) -> TaskResult {
    auto transport = connect(node);
    if (!transport) return {NodeStatus::unreachable, describe(transport.error())};
    CommandOptions run_options;
    run_options.timeout = options.timeout.value_or(std::chrono::seconds(node.connection.command_timeout_s));
    run_options.become = options.become || node.connection.become;
    auto result = (*transport)->run(options.command, run_options);
    if (!result) return {NodeStatus::failed, describe(result.error())};
    results[index].result = std::move(*result);
    if (!results[index].result->ok())
      return {NodeStatus::failed, fmt::format("exit code {}", results[index].result->exit_code)};
    return {NodeStatus::ok, {}};
  };
  ExecutorOptions executor;
  executor.forks = options.forks;
  executor.cancel = options.cancel;
  executor.on_node_done = [&](std::size_t index, const NodeOutcome& outcome) {
    results[index].outcome = outcome;
    if (on_node_done) on_node_done(results[index]);
  };
  run_on_nodes(nodes, task, executor);
  return results;
}

}  // namespace gpuctl::exec
