#pragma once
// Each cmd_<name>.cpp registers itself here, so adding a subcommand touches one file.

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <string_view>

namespace gpuctl::cli {

// Options every subcommand shares.
struct GlobalOptions {
  int verbosity = 0;      // -v raises, -q lowers
  bool no_color = false;
  std::string color = "auto";  // --color: auto | always | never (see use_color in progress.hpp)
};

// Exit codes are stable and documented in docs/exit-codes.md; a use case's Verdict becomes one
// in exit_codes.hpp.
enum ExitCode : int {
  k_exit_ok = 0,
  k_exit_error = 1,
  k_exit_usage = 2,
  k_exit_changes = 2,           // plan --detailed-exitcode: changes pending (every error is then 1)
  k_exit_nodes_failed = 3,
  k_exit_nodes_unreachable = 4,
  k_exit_locked = 5,
  k_exit_interrupted = 130,
};

// What --limit takes, the same on every command that has it (inventory/loader.hpp: select_nodes).
inline constexpr const char* k_limit_help =
    "Only these nodes: comma-separated hostlists and group names, 'all', '@group'; a term after '!' excludes "
    "(quote it: --limit 'all,!gpu07')";

// What --expand does, the same on every command that folds nodes for people (plan/fold.hpp):
// plan, apply, show, inventory.
inline constexpr const char* k_expand_help =
    "One block per node. By default nodes whose output reads the same fold into one block headed by their "
    "hostlist, with <node> and <address> where only their own name or address differs";

// The option that turns on that rule; main() looks for it in argv before parsing, since a
// parse error happens before any option is bound.
inline constexpr std::string_view k_detailed_exitcode_flag = "--detailed-exitcode";

// A subcommand's registration: adds the subcommand to `app` and sets its callback, which
// stores the exit code in `exit_code`.
using CommandRegistrar = std::function<void(CLI::App& app, GlobalOptions& globals, int& exit_code)>;

// `order` fixes the position in --help.
bool register_command(int order, CommandRegistrar registrar);
void add_registered_commands(CLI::App& app, GlobalOptions& globals, int& exit_code);

}  // namespace gpuctl::cli

#define GPUCTL_COMMAND(order, function) \
  static const bool gpuctl_registered_##function = ::gpuctl::cli::register_command(order, function)
