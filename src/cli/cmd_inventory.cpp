// `gpuctl inventory INVENTORY [--limit PATTERN] [--expand | --json]`: resolved nodes and their
// settings; nodes whose settings read the same fold into one block headed by their hostlist.
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
  bool expand = false;
};

int run_inventory_command(const InventoryOptions& options) {
  RunEnvironment env;
  env.on_diagnostic = [](const Diagnostic& d) { fmt::print(stderr, "{}\n", d.to_string()); };
  const auto shown = run_inventory_show(
      options.inventory, options.limit,
      options.json ? InventoryView::json : options.expand ? InventoryView::expanded : InventoryView::folded, env);
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
                                 "Show the resolved nodes and settings (defaults < group vars < host); nodes whose "
                                 "settings read the same fold into one block headed by their hostlist\n"
                                 "Example: gpuctl inventory cluster.yaml --limit 'gpu[01-02],head' --json");
  cmd->add_option("inventory", options->inventory, "Inventory file (YAML)")->required();
  cmd->add_option("-l,--limit", options->limit, k_limit_help);
  auto* json = cmd->add_flag("--json", options->json,
                             "Per node (never folded) as JSON on stdout (format_version 1, docs/inventory.md)");
  cmd->add_flag("--expand", options->expand, k_expand_help)->excludes(json);
  cmd->callback([options, &exit_code] { exit_code = run_inventory_command(*options); });
}

}  // namespace
GPUCTL_COMMAND(110, register_inventory_command);
}  // namespace gpuctl::cli
