// `gpuctl hostkeys` as a use case (api/hostkeys_use_case.hpp).
#include <gpuctl/api/hostkeys_use_case.hpp>

#include "recorded_run.hpp"
#include "run_inputs.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

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

std::string hostkeys_to_json(HostKeyAction action, const HostKeysResult& result) {
  using nlohmann::ordered_json;
  ordered_json nodes = ordered_json::array();
  for (const auto& [outcome, info] : result.nodes) {
    ordered_json node{{"node", outcome.node}, {"status", exec::to_string(outcome.status)}, {"reason", outcome.reason}};
    const auto text = [&](auto field) { return info ? ordered_json((*info).*field) : ordered_json(nullptr); };
    node["host_entry"] = text(&HostKeyInfo::host_entry);
    node["key_type"] = text(&HostKeyInfo::key_type);
    node["fingerprint"] = text(&HostKeyInfo::fingerprint);
    node["known_hosts"] = text(&HostKeyInfo::known_hosts_file);
    // Lower case here; the text view shouts CHANGED.
    const char* state = !info ? nullptr
                        : info->state == HostKeyState::known   ? "known"
                        : info->state == HostKeyState::unknown ? "unknown"
                                                               : "changed";
    node["key_state"] = state ? ordered_json(state) : ordered_json(nullptr);
    nodes.push_back(std::move(node));
  }
  const ordered_json out{
      {"format_version", 1}, {"action", action == HostKeyAction::scan ? "scan" : "accept"}, {"nodes", nodes}};
  return out.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace gpuctl
