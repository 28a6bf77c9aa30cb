// `gpuctl hostkeys scan|accept INVENTORY`: see and pin nodes' SSH host keys deliberately,
// instead of trusting whatever answers on first use.
#include "cli_inventory.hpp"
#include "command_registry.hpp"
#include "interrupt.hpp"

#include <gpuctl/exec/executor.hpp>
#include <gpuctl/transport/ssh_transport.hpp>

#include <fmt/format.h>

namespace gpuctl::cli {
namespace {

enum class HostKeyAction { scan, accept };

struct HostKeysCliOptions {
  std::string inventory;
  std::string limit;
  int forks = exec::k_default_forks;
  bool replace_changed = false;
};

int run_hostkeys(HostKeyAction action, const HostKeysCliOptions& options, const GlobalOptions& globals) {
  int exit_code = k_exit_ok;
  auto selected = load_selected_nodes(options.inventory, options.limit, globals.verbosity, exit_code);
  if (!selected) return exit_code;
  static util::CancellationToken token;
  install_interrupt_handler(token);

  std::vector<std::optional<HostKeyInfo>> infos(selected->nodes.size());
  const auto changed = options.replace_changed ? ChangedKeyPolicy::replace : ChangedKeyPolicy::refuse;
  const exec::NodeTask task = [&](std::size_t index, const Node& node) -> exec::TaskResult {
    auto info = action == HostKeyAction::scan ? scan_host_key(node.name, node.connection)
                                              : accept_host_key(node.name, node.connection, changed);
    if (!info) {
      const auto status = info.error().code == ErrorCode::host_key ? exec::NodeStatus::failed : exec::NodeStatus::unreachable;
      return {status, info.error().hint.empty() ? info.error().message
                                                : fmt::format("{} ({})", info.error().message, info.error().hint)};
    }
    infos[index] = *info;
    if (info->state == HostKeyState::known) return {exec::NodeStatus::ok, {}};
    if (action == HostKeyAction::scan) return {exec::NodeStatus::failed, {}};
    return {exec::NodeStatus::changed, {}};
  };
  const auto outcomes = exec::run_on_nodes(selected->nodes, task, {.forks = options.forks, .cancel = &token});

  bool unreachable = false, failed = false;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const auto& outcome = outcomes[i];
    const auto& info = infos[i];
    if (!info) {
      fmt::print(stderr, "{}: {}: {}\n", outcome.node, exec::to_string(outcome.status), outcome.reason);
      (outcome.status == exec::NodeStatus::failed ? failed : unreachable) = true;
      continue;
    }
    std::string verdict(to_string(info->state));
    if (action == HostKeyAction::accept) {
      verdict = info->state == HostKeyState::known     ? "already known"
                : info->state == HostKeyState::unknown ? "recorded in " + info->known_hosts_file
                                                       : "CHANGED KEY REPLACED in " + info->known_hosts_file;
      if (info->state == HostKeyState::changed)
        fmt::print(stderr, "WARNING: {}: replaced the recorded host key of {} with {} {} (--replace-changed)\n",
                   info->node, info->host_entry, info->key_type, info->fingerprint);
    } else if (info->state != HostKeyState::known) {
      failed = true;
    }
    fmt::print("{}\t{}\t{}\t{}\t{}\n", info->node, info->host_entry, info->key_type, info->fingerprint, verdict);
  }
  if (token.cancelled()) return k_exit_interrupted;
  if (unreachable) return k_exit_nodes_unreachable;
  return failed ? k_exit_nodes_failed : k_exit_ok;
}

void register_hostkeys_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  auto* cmd = app.add_subcommand("hostkeys",
                                 "Show or pin nodes' SSH host keys (known_hosts)\n"
                                 "Example: gpuctl hostkeys scan cluster.yaml --limit gpu[01-04]");
  cmd->require_subcommand(1);
  for (const auto action : {HostKeyAction::scan, HostKeyAction::accept}) {
    auto options = std::make_shared<HostKeysCliOptions>();
    auto* sub = action == HostKeyAction::scan
                    ? cmd->add_subcommand("scan",
                                          "Print each node's key type, SHA256 fingerprint and whether known_hosts "
                                          "matches (exit 3 when a key is unknown or changed)\n"
                                          "Example: gpuctl hostkeys scan cluster.yaml")
                    : cmd->add_subcommand("accept",
                                          "Record the keys of nodes not yet in known_hosts; a changed key is refused "
                                          "unless --replace-changed\n"
                                          "Example: gpuctl hostkeys accept cluster.yaml --limit gpu07");
    sub->add_option("inventory", options->inventory, "Inventory file")->required()->check(CLI::ExistingFile);
    sub->add_option("-l,--limit", options->limit, "Nodes: hostlists and group names, comma-separated");
    sub->add_option("-f,--forks", options->forks, "Nodes in flight at once")->check(CLI::Range(1, 100000));
    if (action == HostKeyAction::accept)
      sub->add_flag("--replace-changed", options->replace_changed,
                    "Replace a CHANGED key (only after checking the new fingerprint out of band)");
    sub->callback([action, options, &globals, &exit_code] { exit_code = run_hostkeys(action, *options, globals); });
  }
}

}  // namespace
GPUCTL_COMMAND(410, register_hostkeys_command);
}  // namespace gpuctl::cli
