#pragma once
// What plan, apply and verify share on the command line: the target options, loading the
// inventory and playbooks, and a progress log. Prints to stderr (this is the CLI).

#include "cli_inventory.hpp"
#include "command_registry.hpp"

#include <gpuctl/api/session.hpp>

#include <memory>
#include <optional>
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
};

// Adds INVENTORY, --limit, --forks, --connection, --playbook, --templates, --no-progress.
void add_target_options(CLI::App& command, TargetOptions& options, bool inventory_required = true);

// --drain-timeout SECONDS, for the commands that drain nodes in Slurm (apply, replace-gpu, reimage).
void add_drain_timeout_option(CLI::App& command, int& seconds);

// Everything a Session needs. Holds the inventory the session points into: never copy it.
struct RunSetup {
  std::optional<SelectedNodes> selected;
  std::vector<Playbook> playbooks;
  SessionOptions session;
  TransportFactory factory;
  std::unique_ptr<RunHooks> hooks;
};

// Loads and checks everything; on failure prints why, sets `exit_code` (2 for bad input) and
// returns nullptr. Installs the Ctrl-C handler.
std::unique_ptr<RunSetup> prepare_run(const TargetOptions& options, const GlobalOptions& globals, int& exit_code);

// A second listener of the run's events, e.g. the run recorder: setup.hooks becomes a TeeHooks
// of the current hooks and `extra` (borrowed: it must outlive the Session). Call before the
// Session is made.
void add_hooks(RunSetup& setup, RunHooks& extra);

}  // namespace gpuctl::cli
