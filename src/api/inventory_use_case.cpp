// The inventory's use cases (api/inventory_use_case.hpp).
#include <gpuctl/api/inventory_use_case.hpp>

#include <gpuctl/plan/program_files.hpp>
#include <gpuctl/playbook/loader.hpp>
#include <gpuctl/template/renderer.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

namespace gpuctl {

LoadResult run_validate(const std::string& path) { return load_inventory(path); }

std::expected<std::string, Failure> run_inventory_show(const std::string& path, const std::string& limit, bool json,
                                                       const RunEnvironment& env) {
  const auto result = load_inventory(path);
  if (!result.ok()) {
    if (env.on_diagnostic)
      for (const auto& d : result.diagnostics) env.on_diagnostic(d);
    return std::unexpected(Failure{Verdict::invalid_input, {}});
  }
  const auto& inventory = *result.inventory;
  const auto nodes = select_nodes(inventory, limit);
  if (!nodes) return std::unexpected(Failure{Verdict::invalid_input, nodes.error().to_string()});
  return json ? inventory_to_json(inventory, *nodes) + "\n" : describe_nodes(*nodes);
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
  auto playbooks = load_playbooks(request.playbooks.empty() ? default_playbook_names() : request.playbooks);
  if (!playbooks) return std::unexpected(Failure{Verdict::invalid_input, playbooks.error().to_string()});
  auto rendered = render_program_files(inventory, *nodes, *playbooks, templates_dir);
  if (!rendered) return std::unexpected(Failure{Verdict::error, rendered.error().to_string()});
  return std::move(*rendered);
}

}  // namespace gpuctl
