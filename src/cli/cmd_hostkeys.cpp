// `gpuctl hostkeys scan|accept INVENTORY`: see and pin nodes' SSH host keys deliberately,
// instead of trusting whatever answers on first use.
#include "exit_codes.hpp"
#include "run_support.hpp"

#include <gpuctl/api/hostkeys_use_case.hpp>

#include <fmt/format.h>

namespace gpuctl::cli {
namespace {

struct HostKeysCliOptions {
  std::string inventory;
  std::string limit;
  int forks = exec::k_default_forks;
  bool replace_changed = false;
  bool json = false;
};

int run_hostkeys_command(HostKeyAction action, const HostKeysCliOptions& options, const GlobalOptions& globals) {
  HostKeysRequest request;
  request.action = action;
  request.inventory = options.inventory;
  request.limit = options.limit;
  request.forks = options.forks;
  request.changed = options.replace_changed ? ChangedKeyPolicy::replace : ChangedKeyPolicy::refuse;
  const auto result = run_hostkeys(request, make_environment(globals));
  if (result.verdict == Verdict::invalid_input) {
    print_failure(result.error);
    return exit_code_for(result.verdict);
  }
  for (const auto& [outcome, info] : result.nodes) {
    if (options.json) {
      if (info && action == HostKeyAction::accept && info->state == HostKeyState::changed)
        fmt::print(stderr, "WARNING: {}: replaced the recorded host key of {} with {} {} (--replace-changed)\n",
                   info->node, info->host_entry, info->key_type, info->fingerprint);
      continue;
    }
    if (!info) {
      fmt::print(stderr, "{}: {}: {}\n", outcome.node, exec::to_string(outcome.status), outcome.reason);
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
    }
    fmt::print("{}\t{}\t{}\t{}\t{}\n", info->node, info->host_entry, info->key_type, info->fingerprint, verdict);
  }
  if (options.json) fmt::print("{}", hostkeys_to_json(action, result));
  return exit_code_for(result.verdict);
}

void register_hostkeys_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  auto* cmd = app.add_subcommand("hostkeys",
                                 "Show or pin nodes' SSH host keys (known_hosts)\n"
                                 "Example: gpuctl hostkeys scan cluster.yaml --limit 'gpu[01-04]'");
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
    sub->add_option("-l,--limit", options->limit, k_limit_help);
    add_forks_option(*sub, options->forks);
    sub->add_flag("--json", options->json,
                  "Per node: status, host entry, key type, fingerprint, known_hosts file and what it said, as JSON on "
                  "stdout (format_version 1, docs/output.md)");
    if (action == HostKeyAction::accept)
      sub->add_flag("--replace-changed", options->replace_changed,
                    "Replace a CHANGED key (only after checking the new fingerprint out of band)");
    sub->callback([action, options, &globals, &exit_code] { exit_code = run_hostkeys_command(action, *options, globals); });
  }
}

}  // namespace
GPUCTL_COMMAND(410, register_hostkeys_command);
}  // namespace gpuctl::cli
