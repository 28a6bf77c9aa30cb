// `gpuctl facts`: gather and show each node's facts (OS, kernel, driver, CUDA, NCCL, GPUs).
#include "exit_codes.hpp"
#include "run_support.hpp"

#include <gpuctl/api/facts_use_case.hpp>

#include <fmt/format.h>
#include <iostream>

namespace gpuctl::cli {
namespace {

struct FactsCommandOptions {
  std::string inventory;
  std::string limit;
  bool json = false;
  std::string connection;  // "", "ssh" or "local"
  int forks = exec::k_default_forks;
};

int run_facts_command(const FactsCommandOptions& options, const GlobalOptions& globals) {
  const FactsRequest request{options.inventory, options.limit, options.connection, options.forks};
  // Warnings only with -v: facts output is often read by scripts.
  const auto result = run_facts(request, make_environment(globals, Warnings::when_verbose));
  if (result.verdict == Verdict::invalid_input) {
    if (!result.error.empty()) fmt::print(stderr, "gpuctl facts: {}\n", result.error);
    return exit_code_for(result.verdict);
  }
  if (options.json) {
    facts::write_facts_report_json(std::cout, result.outcomes);
    std::cout << std::endl;
  } else {
    for (const auto& outcome : result.outcomes) {
      if (outcome.facts) fmt::print("{}", facts::render_facts_text(*outcome.facts));
      else fmt::print("{}: {}: {}\n", outcome.node, exec::to_string(outcome.status), outcome.error);
    }
  }
  return exit_code_for(result.verdict);
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
  cmd->add_option("-l,--limit", options->limit, k_limit_help);
  cmd->add_flag("--json", options->json, "Print JSON (format_version 1, see docs/facts.md)");
  cmd->add_option("--connection", options->connection, "Override every node's connection")
      ->check(CLI::IsMember({"ssh", "local"}));
  add_forks_option(*cmd, options->forks);
  cmd->callback([options, &globals, &exit_code] { exit_code = run_facts_command(*options, globals); });
}

}  // namespace
GPUCTL_COMMAND(300, register_facts_command);
}  // namespace gpuctl::cli
