// `gpuctl hostlist expand|compress EXPR...`: like `scontrol show hostnames` and `nodeset -f`.
#include "command_registry.hpp"

#include <gpuctl/api/inventory_use_case.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

namespace gpuctl::cli {
namespace {

enum class HostlistAction { expand, compress };

// Several arguments are one list, as if joined by commas.
int run_hostlist(HostlistAction action, const std::vector<std::string>& expressions) {
  std::vector<std::string> names;
  for (const auto& expression : expressions) {
    auto expanded = hostlist::expand(expression);
    if (!expanded) {
      const auto& e = expanded.error();
      fmt::print(stderr, "gpuctl: hostlist '{}': column {}: {}{}\n", expression, e.where.column, e.message,
                 e.hint.empty() ? "" : " (" + e.hint + ")");
      return k_exit_usage;
    }
    names.insert(names.end(), expanded->begin(), expanded->end());
  }
  if (action == HostlistAction::compress) {
    fmt::print("{}\n", hostlist::compress(names));
    return k_exit_ok;
  }
  std::vector<std::string> unique;
  for (const auto& name : names)
    if (std::ranges::find(unique, name) == unique.end()) unique.push_back(name);
  for (const auto& name : unique) fmt::print("{}\n", name);
  return k_exit_ok;
}

void register_hostlist_command(CLI::App& app, GlobalOptions&, int& exit_code) {
  auto* cmd = app.add_subcommand("hostlist",
                                 "Expand or fold Slurm/ClusterShell hostlists\n"
                                 "Example: gpuctl hostlist expand 'rack[1-2]-gpu[01-04]'");
  cmd->require_subcommand(1);
  auto expressions = std::make_shared<std::vector<std::string>>();
  auto* expand = cmd->add_subcommand("expand", "One name per line, like `scontrol show hostnames`\n"
                                               "Example: gpuctl hostlist expand 'node[01-08,10]'");
  expand->add_option("expressions", *expressions, "Hostlist expressions")->required();
  expand->callback([expressions, &exit_code] { exit_code = run_hostlist(HostlistAction::expand, *expressions); });
  auto* compress = cmd->add_subcommand("compress", "Fold names into one expression, like `nodeset -f`\n"
                                                   "Example: gpuctl hostlist compress node01 node02 node03");
  compress->add_option("expressions", *expressions, "Names or hostlist expressions")->required();
  compress->callback([expressions, &exit_code] { exit_code = run_hostlist(HostlistAction::compress, *expressions); });
}

}  // namespace
GPUCTL_COMMAND(900, register_hostlist_command);
}  // namespace gpuctl::cli
