#include "run_support.hpp"

#include "interrupt.hpp"

#include <gpuctl/apply/composite_hooks.hpp>
#include <gpuctl/plan/secrets.hpp>
#include <gpuctl/playbook/loader.hpp>
#include <gpuctl/template/renderer.hpp>

#include <ctime>
#include <fmt/format.h>
#include <mutex>

namespace gpuctl::cli {
namespace {

class LogHooks : public RunHooks {
 public:
  explicit LogHooks(int verbosity) : m_verbosity(verbosity) {}

  void on_step_start(const std::string& node, const std::string& step) override {
    if (m_verbosity >= 0) line(node, fmt::format("{} ...", step));
  }
  void on_step_done(const std::string& node, const std::string& step, StepStatus status,
                    std::chrono::milliseconds duration) override {
    if (m_verbosity >= 0 || status == StepStatus::failed)
      line(node, fmt::format("{} {} ({:.1f}s)", step, to_string(status), duration.count() / 1000.0));
  }
  void on_change_done(const std::string& node, const Change& change, bool ok, std::chrono::milliseconds duration) override {
    if (m_verbosity >= 1 || !ok)
      line(node, fmt::format("  {} {} {} ({:.1f}s)", action_symbol(change.action), change.summary, ok ? "done" : "FAILED",
                             duration.count() / 1000.0));
  }
  void on_command(const std::string& node, const std::string& command, int exit_code, std::chrono::milliseconds duration,
                  const std::string& output) override {
    if (m_verbosity < 2) return;
    line(node, fmt::format("    $ {} -> {} ({} ms)", command.substr(0, command.find('\n')), exit_code, duration.count()));
    for (std::size_t start = 0; start < output.size();) {
      const auto end = output.find('\n', start);
      line(node, "      " + output.substr(start, end - start));
      if (end == std::string::npos) break;
      start = end + 1;
    }
  }
  void on_message(const std::string& node, const std::string& text) override {
    if (m_verbosity >= 0) line(node, text);
  }

 private:
  void line(const std::string& node, const std::string& text) {
    const auto now = std::time(nullptr);
    std::tm tm{};
    localtime_r(&now, &tm);
    char stamp[16];
    std::strftime(stamp, sizeof stamp, "%H:%M:%S", &tm);
    const std::lock_guard lock(m_mutex);
    fmt::print(stderr, "{} {}: {}\n", stamp, node, text);
  }

  int m_verbosity;
  std::mutex m_mutex;
};

std::optional<ConnectionKind> connection_override(const std::string& text) {
  if (text == "local") return ConnectionKind::local;
  if (text == "ssh") return ConnectionKind::ssh;
  return std::nullopt;
}

}  // namespace

// --- state (branch `state`): the recorder hears what the progress display hears.
void add_hooks(RunSetup& setup, RunHooks& extra) {
  setup.hooks = std::make_unique<CompositeHooks>(std::move(setup.hooks), extra);
}
// --- end state

std::unique_ptr<RunHooks> make_log_hooks(int verbosity) { return std::make_unique<LogHooks>(verbosity); }

void add_target_options(CLI::App& command, TargetOptions& options, bool inventory_required) {
  auto* inventory = command.add_option("INVENTORY", options.inventory, "Cluster inventory (YAML)")->check(CLI::ExistingFile);
  if (inventory_required) inventory->required();
  command.add_option("-l,--limit", options.limit, "Only these nodes: hostlists and group names, comma-separated");
  command.add_option("-f,--forks", options.forks, "Nodes worked on at once")->check(CLI::Range(1, 100000));
  command.add_option("--connection", options.connection, "Override every node's connection")
      ->check(CLI::IsMember({"ssh", "local"}));
  command.add_option("-p,--playbook", options.playbooks,
                     "Playbook name or file (repeatable; default: gpu-node and head-node)");
  command.add_option("--templates", options.templates_dir, "Directory of templates (default: the shipped ones)");
  command.add_flag("--no-progress", options.no_progress, "No progress lines on stderr");
}

std::unique_ptr<RunSetup> prepare_run(const TargetOptions& options, const GlobalOptions& globals, int& exit_code) {
  auto setup = std::make_unique<RunSetup>();
  setup->selected = load_selected_nodes(options.inventory, options.limit, globals.verbosity, exit_code);
  if (!setup->selected) return nullptr;
  auto playbooks = load_playbooks(options.playbooks.empty() ? default_playbook_names() : options.playbooks);
  if (!playbooks) {
    fmt::print(stderr, "gpuctl: {}\n", playbooks.error().to_string());
    exit_code = k_exit_usage;
    return nullptr;
  }
  setup->playbooks = std::move(*playbooks);
  for (const auto& playbook : setup->playbooks) setup->session.playbook_paths.push_back(playbook.path);
  static util::CancellationToken token;
  install_interrupt_handler(token);
  const auto& inventory = setup->selected->inventory;
  setup->session.forks = options.forks;
  setup->session.cancel = &token;
  setup->session.sources.templates_dir = options.templates_dir.empty() ? default_templates_dir() : options.templates_dir;
  setup->session.sources.secrets_dir = default_secrets_dir(inventory.cluster.name);
  setup->factory = default_transport_factory(connection_override(options.connection));
  setup->hooks = options.no_progress ? std::make_unique<RunHooks>() : make_log_hooks(globals.verbosity);
  return setup;
}

}  // namespace gpuctl::cli
