#include "run_support.hpp"

#include "interrupt.hpp"
#include "log_stderr.hpp"

#include <gpuctl/util/strings.hpp>
#include "progress.hpp"

#include <fmt/format.h>

namespace gpuctl::cli {

void add_drain_timeout_option(CLI::App& command, int& seconds) {
  command
      .add_option("--drain-timeout", seconds,
                  "With Slurm enabled: seconds to wait for a drained node's jobs to end before its disruptive work "
                  "(the node then fails, left drained)")
      ->check(CLI::Range(0, 7 * 24 * 3600))
      ->default_str("3600");
}

void add_forks_option(CLI::App& command, int& forks) {
  command.add_option("-f,--forks", forks, "Nodes worked on at once")->check(CLI::Range(1, 100000))->capture_default_str();
}

void add_target_options(CLI::App& command, TargetOptions& options, bool inventory_required) {
  options.command = command.get_name();
  auto* inventory = command.add_option("INVENTORY", options.inventory, "Cluster inventory (YAML)")->check(CLI::ExistingFile);
  if (inventory_required) inventory->required();
  command.add_option("-l,--limit", options.limit, k_limit_help);
  add_forks_option(command, options.forks);
  command.add_option("--connection", options.connection,
                     "Override every node's connection (default: each node's, from the inventory; ssh unless set)")
      ->check(CLI::IsMember({"ssh", "local"}));
  command.add_option("-p,--playbook", options.playbooks,
                     "A shipped playbook by name (gpu-node), or a file given as a path (with a / or ending in "
                     ".yaml/.yml); a name never means a file of the working directory (repeatable; default: "
                     "gpu-node and head-node)");
  command.add_option("--templates", options.templates_dir, "Directory of templates (default: the shipped ones)");
  command.add_flag("--no-progress", options.no_progress, "No live progress view: plain timestamped lines on stderr");
}

void add_state_option(CLI::App& command, StateCliOptions& options) {
  command.add_option("--state", options.path,
                     "State database (default: $GPUCTL_STATE_DIR/state.db, else ~/.local/state/gpuctl/state.db)");
}

namespace {

// On stderr through the logger: under systemd the journal stores it as err or warning.
void print_diagnostic(const Diagnostic& diagnostic) {
  stderr_logger().log(diagnostic.severity == Severity::error ? spdlog::level::err : spdlog::level::warn, "{}",
                      diagnostic.to_string());
}

}  // namespace

RunEnvironment make_offline_environment(const GlobalOptions& globals) {
  RunEnvironment env;
  env.on_diagnostic = [verbosity = globals.verbosity](const Diagnostic& diagnostic) {
    if (diagnostic.severity == Severity::error || verbosity >= 0) print_diagnostic(diagnostic);
  };
  return env;
}

RunEnvironment make_environment(const GlobalOptions& globals, Warnings warnings) {
  static util::CancellationToken token;
  install_interrupt_handler(token);
  RunEnvironment env;
  const int verbosity = globals.verbosity;
  const int warnings_from = warnings == Warnings::unless_quiet ? 0 : 1;
  env.on_diagnostic = [verbosity, warnings_from](const Diagnostic& diagnostic) {
    if (diagnostic.severity == Severity::error || verbosity >= warnings_from) print_diagnostic(diagnostic);
  };
  env.on_notice = [](const std::string& text) { stderr_logger().info("gpuctl: {}", text); };
  env.cancel = &token;
  return env;
}

RunEnvironment make_run_environment(const TargetOptions& target, const GlobalOptions& globals,
                                    const std::string& state_path) {
  auto env = make_environment(globals);
  // Progress display and per-run log (src/cli/progress*.cpp).
  env.make_progress = [command = target.command, no_progress = target.no_progress, &globals] {
    return make_run_hooks(command, no_progress, globals);
  };
  env.state_path = state_path;
  return env;
}

void print_failure(const std::string& message) {
  if (!message.empty()) stderr_logger().error("gpuctl: {}", util::terminal_safe(message));
}

}  // namespace gpuctl::cli
