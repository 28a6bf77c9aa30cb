// The plan's JSON view (documented in docs/plan-format.md). nlohmann_json stays in this file.
#include <gpuctl/plan/render.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpuctl {
namespace {

using nlohmann::json;

const std::map<std::string, Action>& actions_by_name() {
  static const std::map<std::string, Action> names{{"create", Action::create}, {"update", Action::update},
                                                   {"remove", Action::remove}, {"run", Action::run},
                                                   {"restart", Action::restart}, {"reboot", Action::reboot}};
  return names;
}

std::string_view status_name(NodePlanStatus status) {
  switch (status) {
    case NodePlanStatus::planned: return "planned";
    case NodePlanStatus::unreachable: return "unreachable";
    case NodePlanStatus::failed: return "failed";
  }
  return "failed";
}

}  // namespace

std::string plan_to_json(const Plan& plan) {
  json nodes = json::array();
  int with_changes = 0, changes = 0;
  for (const auto& node : plan.nodes) {
    json node_changes = json::array();
    for (const auto& c : node.changes) {
      node_changes.push_back({{"action", action_name(c.action)}, {"symbol", action_symbol(c.action)},
                              {"step", c.step}, {"resource", c.resource}, {"summary", c.summary},
                              {"reason", c.reason}, {"diff", c.diff}, {"step_index", c.step_index},
                              {"resource_index", c.resource_index}});
    }
    with_changes += node.changes.empty() ? 0 : 1;
    changes += static_cast<int>(node.changes.size());
    nodes.push_back({{"node", node.node}, {"status", status_name(node.status)},
                     {"error", node.error.empty() ? json(nullptr) : json(node.error)},
                     {"state_fingerprint", node.state_fingerprint}, {"changes", std::move(node_changes)}});
  }
  const json document{
      {"format_version", Plan::k_format_version},
      {"created_at", plan.created_at},
      {"inventory", {{"path", plan.inventory_path}, {"digest", plan.inventory_digest}}},
      {"playbooks", plan.playbooks},
      {"playbooks_digest", plan.playbooks_digest},
      {"templates_digest", plan.templates_digest},
      {"summary", {{"nodes", plan.nodes.size()}, {"nodes_with_changes", with_changes}, {"changes", changes},
                   {"has_errors", plan.has_errors()}}},
      {"nodes", std::move(nodes)}};
  // A diff shows a node's file as it is: bytes that are not UTF-8 become U+FFFD, not an exception.
  return document.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<Plan> plan_from_json(std::string_view text, const std::string& path) {
  try {
    const auto document = json::parse(text);
    const int version = document.at("format_version").get<int>();
    if (version != Plan::k_format_version)
      return fail(ErrorCode::parse, fmt::format("plan format_version {} is not supported (this gpuctl reads {})", version,
                                                Plan::k_format_version),
                  Location{path, 0, 0, {}, {}}, "create the plan again with this gpuctl");
    Plan plan;
    plan.created_at = document.at("created_at").get<std::string>();
    plan.inventory_path = document.at("inventory").at("path").get<std::string>();
    plan.inventory_digest = document.at("inventory").at("digest").get<std::string>();
    plan.playbooks = document.at("playbooks").get<std::vector<std::string>>();
    plan.playbooks_digest = document.at("playbooks_digest").get<std::string>();
    plan.templates_digest = document.at("templates_digest").get<std::string>();
    for (const auto& n : document.at("nodes")) {
      NodePlan node;
      node.node = n.at("node").get<std::string>();
      const auto status = n.at("status").get<std::string>();
      node.status = status == "planned" ? NodePlanStatus::planned
                    : status == "unreachable" ? NodePlanStatus::unreachable : NodePlanStatus::failed;
      if (!n.at("error").is_null()) node.error = n.at("error").get<std::string>();
      node.state_fingerprint = n.at("state_fingerprint").get<std::string>();
      for (const auto& c : n.at("changes")) {
        Change change;
        const auto it = actions_by_name().find(c.at("action").get<std::string>());
        if (it == actions_by_name().end())
          return fail(ErrorCode::parse, fmt::format("unknown action '{}'", c.at("action").get<std::string>()),
                      Location{path, 0, 0, node.node, {}});
        change.action = it->second;
        change.step = c.at("step").get<std::string>();
        change.resource = c.at("resource").get<std::string>();
        change.summary = c.at("summary").get<std::string>();
        change.reason = c.at("reason").get<std::string>();
        change.diff = c.at("diff").get<std::string>();
        change.step_index = c.at("step_index").get<std::size_t>();
        change.resource_index = c.at("resource_index").get<std::size_t>();
        node.changes.push_back(std::move(change));
      }
      plan.nodes.push_back(std::move(node));
    }
    return plan;
  } catch (const json::exception& e) {
    return fail(ErrorCode::parse, fmt::format("not a gpuctl plan: {}", e.what()), Location{path, 0, 0, {}, {}},
                "give a file written by `gpuctl plan -o FILE`");
  }
}

}  // namespace gpuctl
