// The inventory's use cases (api/inventory_use_case.hpp).
#include <gpuctl/api/inventory_use_case.hpp>

#include <gpuctl/plan/fold.hpp>
#include <gpuctl/plan/program_files.hpp>
#include <gpuctl/playbook/loader.hpp>
#include <gpuctl/template/renderer.hpp>
#include <gpuctl/util/file_io.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>

#include <fmt/format.h>

namespace gpuctl {

PlaybookRules playbook_rules() { return {playbook_check_names()}; }

LoadResult run_validate(const std::string& path, const std::vector<std::string>& playbooks) {
  auto result = load_inventory(path);
  bool playbook_errors = false;
  for (const auto& name : playbooks.empty() ? default_playbook_names() : playbooks) {
    auto found = find_playbook(name);
    auto text = found ? util::read_local_file(*found, "playbook") : Result<std::string>(std::unexpected(found.error()));
    if (!text) {
      result.diagnostics.push_back({Severity::error, name, 0, 0, text.error().message, text.error().hint});
      playbook_errors = true;
      continue;
    }
    auto checked = check_playbook_text(*text, *found, playbook_rules());
    for (auto& diagnostic : checked.diagnostics) {
      playbook_errors |= diagnostic.severity == Severity::error;
      result.diagnostics.push_back(std::move(diagnostic));
    }
  }
  // The inventory is valid only with the playbooks it would run.
  if (playbook_errors) result.inventory.reset();
  return result;
}

std::string describe_nodes_folded(std::span<const Node* const> nodes) {
  std::vector<NodeText> items;
  items.reserve(nodes.size());
  for (const auto* node : nodes) items.push_back({node->name, node->connection.address, describe_node_settings(*node)});
  std::string out;
  for (const auto& group : fold_texts(items)) {
    if (group.members.size() == 1) {
      out += fmt::format("{}:\n{}", group.hostlist, group.text);
      continue;
    }
    out += fmt::format("{} ({} nodes):\n{}", group.hostlist, group.members.size(), group.text);
    // The addresses the <address> placeholder stands for; the names are the header's.
    if (group.text.find(k_address_placeholder) != std::string::npos) {
      std::vector<std::string> addresses;
      for (const auto member : group.members) addresses.push_back(nodes[member]->connection.address);
      out += fmt::format("  addresses: {}\n", hostlist::compress(addresses));
    }
  }
  return out;
}

std::expected<std::string, Failure> run_inventory_show(const std::string& path, const std::string& limit,
                                                       InventoryView view, const RunEnvironment& env) {
  const auto result = load_inventory(path);
  if (!result.ok()) {
    if (env.on_diagnostic)
      for (const auto& d : result.diagnostics) env.on_diagnostic(d);
    return std::unexpected(Failure{Verdict::invalid_input, {}});
  }
  const auto& inventory = *result.inventory;
  const auto nodes = select_nodes(inventory, limit);
  if (!nodes) return std::unexpected(Failure{Verdict::invalid_input, nodes.error().to_string()});
  switch (view) {
    case InventoryView::json: return inventory_to_json(inventory, *nodes) + "\n";
    case InventoryView::expanded: return describe_nodes(*nodes);
    case InventoryView::folded: break;
  }
  return describe_nodes_folded(*nodes);
}

std::expected<std::vector<NodeFiles>, Failure> run_render(const RenderRequest& request, const RunEnvironment& env) {
  const LoadResult loaded = load_inventory(request.inventory);
  if (env.on_diagnostic)
    for (const auto& diagnostic : loaded.diagnostics) env.on_diagnostic(diagnostic);
  if (!loaded.ok()) return std::unexpected(Failure{Verdict::invalid_input, {}});
  const Inventory& inventory = *loaded.inventory;
  if (!request.node.empty() && inventory.find_node(request.node) == nullptr) {
    std::vector<std::string> names;
    for (const auto& node : inventory.nodes) names.push_back(node.name);
    const auto guess = util::closest_match(request.node, names);
    const Error error{ErrorCode::not_found, fmt::format("--node: no host '{}' in the inventory", request.node), {},
                      guess ? fmt::format("did you mean '{}'?", *guess) : "see: gpuctl inventory " + request.inventory};
    return std::unexpected(Failure{Verdict::invalid_input, error.to_string()});
  }
  auto nodes = select_nodes(inventory, request.node.empty() ? request.limit : request.node);
  if (!nodes) return std::unexpected(Failure{Verdict::invalid_input, nodes.error().to_string()});
  const std::string templates_dir = request.templates_dir.empty() ? default_templates_dir() : request.templates_dir;
  auto playbooks = load_playbooks(request.playbooks.empty() ? default_playbook_names() : request.playbooks, playbook_rules());
  if (!playbooks) return std::unexpected(Failure{Verdict::invalid_input, playbooks.error().to_string()});
  auto rendered = render_program_files(inventory, *nodes, *playbooks, templates_dir);
  if (!rendered) return std::unexpected(Failure{Verdict::error, rendered.error().to_string()});
  return std::move(*rendered);
}

}  // namespace gpuctl
