// `gpuctl exec` as a use case (api/exec_use_case.hpp).
#include <gpuctl/api/exec_use_case.hpp>

#include "recorded_run.hpp"
#include "run_inputs.hpp"

#include <gpuctl/util/strings.hpp>

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

}  // namespace gpuctl
