#pragma once
// What every use case that works on an inventory's nodes is asked with (RunTarget), and what
// the caller plugs into the run (RunEnvironment: the run's hooks in the wide sense). A use
// case never prints: diagnostics, notices and progress reach the caller through these.

#include <gpuctl/apply/hooks.hpp>
#include <gpuctl/apply/tee_hooks.hpp>
#include <gpuctl/core/error.hpp>
#include <gpuctl/exec/executor.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/plan/plan.hpp>
#include <gpuctl/transport/transport_factory.hpp>
#include <gpuctl/util/cancellation.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpuctl {

// The inventory and what of it a run works on (the command line's target options).
struct RunTarget {
  // (default member initializers: designated and shorter brace-inits stay warning-free)
  std::string inventory{};                // path of the inventory (YAML)
  std::string limit{};                    // hostlists and group names; empty: every node
  int forks = exec::k_default_forks;
  std::string connection{};               // "", "ssh" or "local": overrides every node's
  std::vector<std::string> playbooks{};   // names or paths; empty: the site default
  std::string templates_dir{};            // empty: the shipped templates
  std::string command{};                  // the subcommand, names the run log and the run record
};

// The caller's side of a run. Every member may be left empty.
struct RunEnvironment {
  // Each diagnostic of the inventory as it is loaded (errors and warnings).
  std::function<void(const Diagnostic&)> on_diagnostic;
  // A line for the operator that is no node's progress: a run found abandoned, a history that
  // could not be written (the CLI prints "gpuctl: " and the text).
  std::function<void(const std::string&)> on_notice;
  // The progress display, made once the inputs are loaded and before any node is contacted;
  // destroyed before the use case returns (a live view gives the terminal back).
  std::function<std::unique_ptr<RunHooks>()> make_progress;
  // Set by Ctrl-C: no new node starts, every node is still reported.
  const util::CancellationToken* cancel = nullptr;
  // How nodes are reached; empty: SSH or local as the inventory (and RunTarget::connection) says.
  TransportFactory transport_factory;
  // Where the cluster's secrets live; empty: the default under the state directory.
  std::string secrets_dir;
  // The run history (--state); empty: $GPUCTL_STATE_DIR/state.db or ~/.local/state/gpuctl/state.db.
  std::string state_path;
};

// Where per-run logs go: <state directory>/logs.
std::string default_run_log_dir();

}  // namespace gpuctl
