// `gpuctl inventory INVENTORY [--limit PATTERN] [--json]`: resolved nodes and their settings.
#include "command_registry.hpp"

#include <gpuctl/inventory/json.hpp>
#include <gpuctl/inventory/loader.hpp>

#include <fmt/format.h>

namespace gpuctl::cli {
namespace {

struct InventoryOptions {
  std::string inventory;
  std::string limit;
  bool json = false;
};

int run_inventory(const InventoryOptions& options) {
  const auto result = load_inventory(options.inventory);
  if (!result.ok()) {
    for (const auto& d : result.diagnostics) fmt::print(stderr, "{}\n", d.to_string());
    return k_exit_usage;
  }
  const auto& inventory = *result.inventory;
  const auto nodes = select_nodes(inventory, options.limit);
  if (!nodes) {
    fmt::print(stderr, "gpuctl: {}\n", nodes.error().to_string());
    return k_exit_usage;
  }
  if (options.json) fmt::print("{}\n", inventory_to_json(inventory, *nodes));
  else fmt::print("{}", describe_nodes(*nodes));
  return k_exit_ok;
}

void register_inventory_command(CLI::App& app, GlobalOptions&, int& exit_code) {
  auto options = std::make_shared<InventoryOptions>();
  auto* cmd = app.add_subcommand("inventory",
                                 "Show the resolved nodes and settings (defaults < group vars < host)\n"
                                 "Example: gpuctl inventory cluster.yaml --limit 'gpu[01-02],head' --json");
  cmd->add_option("inventory", options->inventory, "Inventory file (YAML)")->required();
  cmd->add_option("-l,--limit", options->limit, "Only these nodes: comma-separated hostlists and group names");
  cmd->add_flag("--json", options->json, "Print JSON");
  cmd->callback([options, &exit_code] { exit_code = run_inventory(*options); });
}

}  // namespace
GPUCTL_COMMAND(110, register_inventory_command);
}  // namespace gpuctl::cli
