// `gpuctl inventory INVENTORY [--limit PATTERN] [--json]`: resolved nodes and their settings.
#include "exit_codes.hpp"
#include "run_support.hpp"

#include <gpuctl/api/inventory_use_case.hpp>

#include <fmt/format.h>

namespace gpuctl::cli {
namespace {

struct InventoryOptions {
  std::string inventory;
  std::string limit;
  bool json = false;
};

int run_inventory_command(const InventoryOptions& options) {
  RunEnvironment env;
  env.on_diagnostic = [](const Diagnostic& d) { fmt::print(stderr, "{}\n", d.to_string()); };
  const auto shown = run_inventory_show(options.inventory, options.limit, options.json, env);
  if (!shown) {
    print_failure(shown.error().message);
    return exit_code_for(shown.error().verdict);
  }
  fmt::print("{}", *shown);
  return k_exit_ok;
}

void register_inventory_command(CLI::App& app, GlobalOptions&, int& exit_code) {
  auto options = std::make_shared<InventoryOptions>();
  auto* cmd = app.add_subcommand("inventory",
                                 "Show the resolved nodes and settings (defaults < group vars < host)\n"
                                 "Example: gpuctl inventory cluster.yaml --limit 'gpu[01-02],head' --json");
  cmd->add_option("inventory", options->inventory, "Inventory file (YAML)")->required();
  cmd->add_option("-l,--limit", options->limit, k_limit_help);
  cmd->add_flag("--json", options->json, "Print JSON");
  cmd->callback([options, &exit_code] { exit_code = run_inventory_command(*options); });
}

}  // namespace
GPUCTL_COMMAND(110, register_inventory_command);
}  // namespace gpuctl::cli
