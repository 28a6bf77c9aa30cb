// `gpuctl hostkeys` as a use case (api/hostkeys_use_case.hpp).
#include <gpuctl/api/hostkeys_use_case.hpp>

#include "recorded_run.hpp"
#include "run_inputs.hpp"

#include <fmt/format.h>

namespace gpuctl {
namespace {

Result<HostKeyInfo> ssh_probe(const Node& node, HostKeyAction action, ChangedKeyPolicy changed) {
  return action == HostKeyAction::scan ? scan_host_key(node.name, node.connection)
                                       : accept_host_key(node.name, node.connection, changed);
}

}  // namespace

HostKeysResult run_hostkeys(const HostKeysRequest& request, const RunEnvironment& env) {
  HostKeysResult result;
  auto selected = use_case::load_selected(request.inventory, request.limit, env);
  if (!selected) {
    result.verdict = selected.error().verdict;
    result.error = selected.error().message;
    return result;
  }
  const auto& nodes = (*selected)->nodes;
  const HostKeyProbe probe = request.probe ? request.probe : HostKeyProbe(ssh_probe);
  std::vector<std::optional<HostKeyInfo>> infos(nodes.size());
  const exec::NodeTask task = [&](std::size_t index, const Node& node) -> exec::TaskResult {
    auto info = probe(node, request.action, request.changed);
    if (!info) {
      // A refused (changed) key is the node's failure; anything else means it could not be asked.
      const auto status = info.error().code == ErrorCode::host_key ? exec::NodeStatus::failed
                                                                   : exec::NodeStatus::unreachable;
      return {status, info.error().hint.empty() ? info.error().message
                                                : fmt::format("{} ({})", info.error().message, info.error().hint)};
    }
    infos[index] = *info;
    if (info->state == HostKeyState::known) return {exec::NodeStatus::ok, {}};
    if (request.action == HostKeyAction::scan) return {exec::NodeStatus::failed, {}};
    return {exec::NodeStatus::changed, {}};
  };
  const auto outcomes = exec::run_on_nodes(nodes, task, {.forks = request.forks, .cancel = env.cancel});
  bool unreachable = false, failed = false;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    result.nodes.push_back({outcomes[i], infos[i]});
    if (!infos[i]) (outcomes[i].status == exec::NodeStatus::failed ? failed : unreachable) = true;
    else if (request.action == HostKeyAction::scan && infos[i]->state != HostKeyState::known) failed = true;
  }
  if (use_case::cancelled(env)) result.verdict = Verdict::interrupted;
  else if (unreachable) result.verdict = Verdict::nodes_unreachable;
  else if (failed) result.verdict = Verdict::nodes_failed;
  return result;
}

}  // namespace gpuctl
