#include "run_support.hpp"

#include "interrupt.hpp"
#include "progress.hpp"

#include <gpuctl/apply/tee_hooks.hpp>
#include <gpuctl/plan/secrets.hpp>
#include <gpuctl/playbook/loader.hpp>
#include <gpuctl/template/renderer.hpp>

#include <fmt/format.h>

namespace gpuctl::cli {
namespace {

std::optional<ConnectionKind> connection_override(const std::string& text) {
  if (text == "local") return ConnectionKind::local;
  if (text == "ssh") return ConnectionKind::ssh;
  return std::nullopt;
}

}  // namespace

// The recorder hears what the progress display hears.
void add_hooks(RunSetup& setup, RunHooks& extra) {
  auto tee = std::make_unique<TeeHooks>();
  tee->add(std::move(setup.hooks));
  tee->add_borrowed(extra);
  setup.hooks = std::move(tee);
}

void add_drain_timeout_option(CLI::App& command, int& seconds) {
  command
      .add_option("--drain-timeout", seconds,
                  "With Slurm enabled: seconds to wait for a drained node's jobs to end before its disruptive work "
                  "(the node then fails, left drained)")
      ->check(CLI::Range(0, 7 * 24 * 3600))
      ->default_str("3600");
}

void add_target_options(CLI::App& command, TargetOptions& options, bool inventory_required) {
  options.command = command.get_name();
  auto* inventory = command.add_option("INVENTORY", options.inventory, "Cluster inventory (YAML)")->check(CLI::ExistingFile);
  if (inventory_required) inventory->required();
  command.add_option("-l,--limit", options.limit, "Only these nodes: hostlists and group names, comma-separated");
  command.add_option("-f,--forks", options.forks, "Nodes worked on at once")->check(CLI::Range(1, 100000));
  command.add_option("--connection", options.connection, "Override every node's connection")
      ->check(CLI::IsMember({"ssh", "local"}));
  command.add_option("-p,--playbook", options.playbooks,
                     "A shipped playbook by name (gpu-node), or a file given as a path (with a / or ending in "
                     ".yaml/.yml); a name never means a file of the working directory (repeatable; default: "
                     "gpu-node and head-node)");
  command.add_option("--templates", options.templates_dir, "Directory of templates (default: the shipped ones)");
  command.add_flag("--no-progress", options.no_progress, "No live progress view: plain timestamped lines on stderr");
}

std::unique_ptr<RunSetup> prepare_run(const TargetOptions& options, const GlobalOptions& globals, int& exit_code) {
  auto setup = std::make_unique<RunSetup>();
  setup->selected = load_selected_nodes(options.inventory, options.limit, globals.verbosity, exit_code);
  if (!setup->selected) return nullptr;
  const auto playbook_names = options.playbooks.empty() ? default_playbook_names() : options.playbooks;
  auto playbooks = load_playbooks(playbook_names);
  if (!playbooks) {
    fmt::print(stderr, "gpuctl: {}\n", playbooks.error().to_string());
    exit_code = k_exit_usage;
    return nullptr;
  }
  setup->playbooks = std::move(*playbooks);
  setup->session.playbook_names = playbook_names;
  static util::CancellationToken token;
  install_interrupt_handler(token);
  const auto& inventory = setup->selected->inventory;
  setup->session.forks = options.forks;
  setup->session.cancel = &token;
  setup->session.sources.templates_dir = options.templates_dir.empty() ? default_templates_dir() : options.templates_dir;
  auto secrets_dir = default_secrets_dir(inventory.cluster.name);
  if (!secrets_dir) {
    fmt::print(stderr, "gpuctl: {}\n", secrets_dir.error().to_string());
    exit_code = k_exit_usage;
    return nullptr;
  }
  setup->session.sources.secrets_dir = std::move(*secrets_dir);
  setup->factory = default_transport_factory(connection_override(options.connection));
  // Progress display and per-run log (src/cli/progress*.cpp).
  setup->hooks = make_run_hooks(options.command, options.no_progress, globals);
  return setup;
}

}  // namespace gpuctl::cli
