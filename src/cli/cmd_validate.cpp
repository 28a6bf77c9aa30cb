// `gpuctl validate INVENTORY [--json] [-p PLAYBOOK]...`: errors and lint warnings of the inventory
// and of the playbooks it would run; exit 0 valid, 2 invalid.
#include "command_registry.hpp"

#include <gpuctl/api/inventory_use_case.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace gpuctl::cli {
namespace {

struct ValidateOptions {
  std::string inventory;
  std::vector<std::string> playbooks;
  bool json = false;
};

int run_validate_command(const ValidateOptions& options, const GlobalOptions& globals) {
  const auto result = run_validate(options.inventory, options.playbooks);
  if (options.json) {
    fmt::print("{}\n", diagnostics_to_json(options.inventory, result));
  } else {
    for (const auto& d : result.diagnostics)
      if (d.severity == Severity::error || globals.verbosity >= 0) fmt::print(stderr, "{}\n", d.to_string());
    const auto errors = std::ranges::count(result.diagnostics, Severity::error, &Diagnostic::severity);
    const auto warnings = static_cast<long>(result.diagnostics.size()) - errors;
    if (result.ok() && globals.verbosity >= 0) {
      const auto hosts = result.inventory->nodes.size();
      const auto groups = result.inventory->groups.size();
      fmt::print("{}: valid ({} host{}, {} group{}, {} warning{})\n", options.inventory, hosts, hosts == 1 ? "" : "s",
                 groups, groups == 1 ? "" : "s", warnings, warnings == 1 ? "" : "s");
    }
    else if (!result.ok())
      fmt::print(stderr, "{}: invalid ({} error{}, {} warning{})\n", options.inventory, errors, errors == 1 ? "" : "s",
                 warnings, warnings == 1 ? "" : "s");
  }
  // Warnings never fail validation; an invalid inventory exits 2 like a usage error.
  return result.ok() ? k_exit_ok : k_exit_usage;
}

void register_validate_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  auto options = std::make_shared<ValidateOptions>();
  auto* cmd = app.add_subcommand("validate",
                                 "Check an inventory and the playbooks it would run: errors (exit 2) and lint warnings "
                                 "(exit 0); contacts nothing. A playbook step's `checks:` must name checks gpuctl knows "
                                 "(gpuctl verify --list)\n"
                                 "Example: gpuctl validate cluster.yaml --json");
  cmd->add_option("inventory", options->inventory, "Inventory file (YAML)")->required();
  cmd->add_flag("--json", options->json, "Print diagnostics as JSON");
  cmd->add_option("-p,--playbook", options->playbooks,
                  "A playbook to check with it: shipped by name (gpu-node) or a file by path; repeatable. Default: "
                  "the shipped gpu-node and head-node, as plan and apply run them");
  cmd->callback([options, &globals, &exit_code] { exit_code = run_validate_command(*options, globals); });
}

}  // namespace
GPUCTL_COMMAND(100, register_validate_command);
}  // namespace gpuctl::cli
