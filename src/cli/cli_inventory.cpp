#include "cli_inventory.hpp"

#include "command_registry.hpp"

#include <gpuctl/inventory/loader.hpp>

#include <fmt/format.h>

namespace gpuctl::cli {

std::optional<SelectedNodes> load_selected_nodes(const std::string& path, const std::string& limit, int verbosity,
                                                 int& exit_code) {
  LoadResult loaded = load_inventory(path);
  for (const auto& diagnostic : loaded.diagnostics)
    if (diagnostic.severity == Severity::error || verbosity >= 0) fmt::print(stderr, "{}\n", diagnostic.to_string());
  if (!loaded.ok()) {
    // Invalid input, like a usage error: nothing was contacted.
    exit_code = k_exit_usage;
    return std::nullopt;
  }
  std::optional<SelectedNodes> selected(std::in_place);
  selected->inventory = std::move(*loaded.inventory);
  auto nodes = select_nodes(selected->inventory, limit);
  if (!nodes) {
    fmt::print(stderr, "gpuctl: --limit: {}\n", nodes.error().to_string());
    exit_code = k_exit_usage;
    return std::nullopt;
  }
  selected->nodes = std::move(*nodes);
  return selected;
}

}  // namespace gpuctl::cli
