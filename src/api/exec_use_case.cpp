// `gpuctl exec` as a use case (api/exec_use_case.hpp).
#include <gpuctl/api/exec_use_case.hpp>

#include "recorded_run.hpp"
#include "run_inputs.hpp"

#include <gpuctl/util/strings.hpp>

#include <nlohmann/json.hpp>

namespace gpuctl {

ExecResult run_exec(const ExecRequest& request, const RunEnvironment& env,
                    const std::function<void(const exec::ExecNodeResult&)>& on_node_done) {
  ExecResult result;
  auto selected = use_case::load_selected(request.inventory, request.limit, env);
  if (!selected) {
    result.verdict = selected.error().verdict;
    result.error = selected.error().message;
    return result;
  }
  exec::ExecOptions options;
  options.command = util::join(request.command, " ");
  options.forks = request.forks;
  options.cancel = env.cancel;
  if (request.timeout.count() > 0) options.timeout = request.timeout;
  std::optional<ConnectionKind> kind;
  if (request.connection == "local") kind = ConnectionKind::local;
  else if (request.connection == "ssh") kind = ConnectionKind::ssh;
  const auto factory = env.transport_factory ? env.transport_factory : default_transport_factory(kind);
  const auto start = std::chrono::steady_clock::now();
  result.results = exec::run_command_on_nodes((*selected)->nodes, options, factory, on_node_done);
  result.elapsed = std::chrono::steady_clock::now() - start;
  std::vector<exec::NodeStatus> statuses;
  for (const auto& r : result.results) statuses.push_back(r.outcome.status);
  result.verdict = verdict_for_nodes(statuses, use_case::cancelled(env));
  return result;
}

std::string exec_to_json(const std::string& command, const ExecResult& result) {
  using nlohmann::ordered_json;
  const auto ms = [](auto duration) { return std::chrono::duration_cast<std::chrono::milliseconds>(duration).count(); };
  ordered_json nodes = ordered_json::array();
  for (const auto& r : result.results) {
    ordered_json node{{"node", r.outcome.node}, {"status", exec::to_string(r.outcome.status)}};
    node["exit_code"] = r.result ? ordered_json(r.result->exit_code) : ordered_json(nullptr);
    node["stdout"] = r.result ? r.result->out : "";
    node["stderr"] = r.result ? r.result->err : "";
    node["duration_ms"] = ms(r.outcome.duration);
    node["reason"] = r.outcome.reason;
    nodes.push_back(std::move(node));
  }
  const ordered_json out{{"format_version", 1}, {"command", command}, {"elapsed_ms", ms(result.elapsed)}, {"nodes", nodes}};
  // Command output need not be UTF-8: invalid bytes become U+FFFD rather than failing the dump.
  return out.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace gpuctl
