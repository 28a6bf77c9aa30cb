// `gpuctl facts`: gather and show each node's facts (OS, kernel, driver, CUDA, NCCL, GPUs).
#include "command_registry.hpp"
#include "interrupt.hpp"
#include "node_exit_code.hpp"

#include <gpuctl/facts/gather.hpp>
#include <gpuctl/facts/json.hpp>
#include <gpuctl/inventory/loader.hpp>

#include <fmt/format.h>
#include <iostream>
#include <unistd.h>

namespace gpuctl::cli {
namespace {

struct FactsCommandOptions {
  std::string inventory;
  std::string limit;
  bool json = false;
  std::string connection;  // "", "ssh" or "local"
  int forks = exec::k_default_forks;
};

std::string local_hostname() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
  return name;
}

int run_facts(const FactsCommandOptions& options, const GlobalOptions& globals) {
  std::optional<ConnectionKind> kind;
  if (options.connection == "local") kind = ConnectionKind::local;
  if (options.connection == "ssh") kind = ConnectionKind::ssh;

  std::optional<Inventory> inventory;
  std::vector<const Node*> nodes;
  Node this_host;  // single-host use: `gpuctl facts --connection local`
  if (options.inventory.empty()) {
    if (kind != ConnectionKind::local) {
      fmt::print(stderr, "gpuctl facts: an INVENTORY is required unless --connection local is given\n");
      return k_exit_usage;
    }
    this_host.name = local_hostname();
    this_host.connection.kind = ConnectionKind::local;
    nodes.push_back(&this_host);
  } else {
    auto loaded = load_inventory(options.inventory);
    for (const auto& diagnostic : loaded.diagnostics)
      if (diagnostic.severity == Severity::error || globals.verbosity > 0)
        fmt::print(stderr, "{}\n", diagnostic.to_string());
    if (!loaded.ok()) return k_exit_error;
    inventory = std::move(loaded.inventory);
    auto selected = select_nodes(*inventory, options.limit);
    if (!selected) {
      fmt::print(stderr, "gpuctl facts: {}\n", selected.error().to_string());
      return k_exit_usage;
    }
    nodes = std::move(*selected);
  }

  facts::GatherOptions gather;
  gather.forks = options.forks;
  static util::CancellationToken token;
  install_interrupt_handler(token);
  gather.cancel = &token;
  const auto outcomes = facts::gather_facts(nodes, gather, default_transport_factory(kind));

  if (options.json) {
    facts::write_facts_report_json(std::cout, outcomes);
    std::cout << std::endl;
  } else {
    for (const auto& outcome : outcomes) {
      if (outcome.facts) fmt::print("{}", facts::render_facts_text(*outcome.facts));
      else fmt::print("{}: {}: {}\n", outcome.node, exec::to_string(outcome.status), outcome.error);
    }
  }
  return exit_code_for_nodes(outcomes | std::views::transform([](const auto& o) { return o.status; }), token.cancelled());
}

void register_facts_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  auto options = std::make_shared<FactsCommandOptions>();
  auto* cmd = app.add_subcommand(
      "facts",
      "Show each node's facts: OS, kernel, boot id, uptime, NVIDIA modules, driver, CUDA, NCCL, and per GPU\n"
      "identity, memory, persistence, ECC errors, remapped rows, PCIe link, temperature and power.\n"
      "All of a node's facts are gathered in one round trip; a missing tool gives an absent fact with its reason.\n"
      "Example: gpuctl facts cluster.yaml --limit 'gpu[01-04]' --json\n"
      "Example: gpuctl facts --connection local");
  cmd->add_option("inventory", options->inventory, "Inventory file (optional with --connection local)");
  cmd->add_option("-l,--limit", options->limit, "Nodes: comma-separated hostlists and group names");
  cmd->add_flag("--json", options->json, "Print JSON (format_version 1, see docs/facts.md)");
  cmd->add_option("--connection", options->connection, "Override every node's connection")
      ->check(CLI::IsMember({"ssh", "local"}));
  cmd->add_option("-f,--forks", options->forks, "Nodes in parallel")->check(CLI::PositiveNumber);
  cmd->callback([options, &globals, &exit_code] { exit_code = run_facts(*options, globals); });
}

}  // namespace
GPUCTL_COMMAND(300, register_facts_command);
}  // namespace gpuctl::cli
