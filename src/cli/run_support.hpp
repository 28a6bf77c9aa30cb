#pragma once
// What the commands that work on nodes share on the command line: the target options, the
// --state and --drain-timeout options, and the run's environment as the CLI sets it up
// (diagnostics and notices on stderr, the progress display and run log, Ctrl-C). Prints to
// stderr (this is the CLI).

#include "command_registry.hpp"

#include <gpuctl/api/run_request.hpp>
#include <gpuctl/api/verdict.hpp>

#include <string>
#include <vector>

namespace gpuctl::cli {

struct TargetOptions {
  std::string inventory;
  std::string limit;
  int forks = exec::k_default_forks;
  std::string connection;                 // "", "ssh" or "local"
  std::vector<std::string> playbooks;     // names or paths; empty: the site default
  std::string templates_dir;
  bool no_progress = false;
  std::string command;                    // the subcommand, names the run log

  RunTarget run_target() const { return {inventory, limit, forks, connection, playbooks, templates_dir, command}; }
};

// -f,--forks N (1..100000, default shown), the same on every command that works on many nodes.
void add_forks_option(CLI::App& command, int& forks);

// Adds INVENTORY, --limit, --forks, --connection, --playbook, --templates, --no-progress.
void add_target_options(CLI::App& command, TargetOptions& options, bool inventory_required = true);

// --drain-timeout SECONDS, for the commands that drain nodes in Slurm (apply, replace-gpu, reimage).
void add_drain_timeout_option(CLI::App& command, int& seconds);

struct StateCliOptions {
  std::string path;   // --state; empty: $GPUCTL_STATE_DIR/state.db or ~/.local/state/gpuctl/state.db
};

void add_state_option(CLI::App& command, StateCliOptions& options);

// Which inventory warnings are printed: from the default verbosity, or only with -v.
enum class Warnings { unless_quiet, when_verbose };

// Diagnostics on stderr (errors always, warnings per `warnings`), notices as "gpuctl: TEXT",
// and the Ctrl-C handler installed for the run's cancellation token.
RunEnvironment make_environment(const GlobalOptions& globals, Warnings warnings = Warnings::unless_quiet);

// For commands that contact no node: diagnostics only, no Ctrl-C handler.
RunEnvironment make_offline_environment(const GlobalOptions& globals);

// make_environment plus the progress display and run log (`command` names it) and the history.
RunEnvironment make_run_environment(const TargetOptions& target, const GlobalOptions& globals,
                                    const std::string& state_path = {});

// Prints "gpuctl: MESSAGE" on stderr; nothing for an empty message (already told).
void print_failure(const std::string& message);

}  // namespace gpuctl::cli
