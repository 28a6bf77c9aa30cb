// `gpuctl exec INVENTORY -- CMD...`: an ad-hoc command on many nodes in parallel, output
// prefixed per node (`node: line`), gathered (--gather) like `clush -b`, or as JSON (--json).
#include "exit_codes.hpp"
#include "run_support.hpp"

#include <gpuctl/api/exec_use_case.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <map>

namespace gpuctl::cli {
namespace {

struct ExecCliOptions {
  std::string inventory;
  std::string limit;
  int forks = exec::k_default_forks;
  bool gather = false;
  bool json = false;
  int timeout_s = 0;  // 0: each node's command_timeout
  std::string connection;
  std::vector<std::string> command;
};

void print_prefixed(std::FILE* stream, const std::string& node, const std::string& text) {
  for (const auto& line : util::split_lines(text)) fmt::print(stream, "{}: {}\n", node, line);
}

// A node without command output (unreachable, timed out, skipped) shows its reason instead.
void print_problem(const exec::ExecNodeResult& r) {
  if (r.outcome.status == exec::NodeStatus::ok) return;
  const std::string label = r.outcome.status == exec::NodeStatus::failed ? "FAILED" : r.outcome.status == exec::NodeStatus::skipped ? "SKIPPED" : "UNREACHABLE";
  fmt::print(stderr, "{}: {}: {}\n", r.outcome.node, label, r.outcome.reason);
}

void print_gathered(const std::vector<exec::ExecNodeResult>& results) {
  std::vector<exec::NodeOutput> outputs;
  for (const auto& r : results) {
    if (r.result) outputs.push_back({r.outcome.node, r.result->out, r.result->err, r.result->exit_code});
    else outputs.push_back({r.outcome.node, "", fmt::format("{}: {}\n", exec::to_string(r.outcome.status), r.outcome.reason), -1});
  }
  for (const auto& group : exec::group_outputs(outputs)) {
    std::string header = fmt::format("{} ({})", group.hostlist, group.nodes.size());
    if (group.exit_code > 0) header += fmt::format(" exit code {}", group.exit_code);
    const std::string rule(std::max<std::size_t>(header.size(), 15), '-');
    fmt::print("{}\n{}\n{}\n{}", rule, header, rule, group.out);
    std::fflush(stdout);
    fmt::print(stderr, "{}", group.err);
    std::fflush(stderr);
  }
}

int run_exec_command(const ExecCliOptions& options, const GlobalOptions& globals) {
  const ExecRequest request{options.inventory, options.limit, options.forks, std::chrono::seconds(options.timeout_s),
                            options.connection, options.command};
  const auto result = run_exec(request, make_environment(globals), [&](const exec::ExecNodeResult& r) {
    if (options.gather || options.json) return;
    if (r.result) {
      print_prefixed(stdout, r.outcome.node, r.result->out);
      std::fflush(stdout);
      print_prefixed(stderr, r.outcome.node, r.result->err);
    }
    print_problem(r);
  });
  if (result.verdict == Verdict::invalid_input) {
    print_failure(result.error);
    return exit_code_for(result.verdict);
  }
  const auto& results = result.results;
  if (options.json) fmt::print("{}", exec_to_json(util::join(options.command, " "), result));
  else if (options.gather) {
    print_gathered(results);
    for (const auto& r : results) if (!r.result) print_problem(r);
  }

  std::map<exec::NodeStatus, int> counts;
  for (const auto& r : results) ++counts[r.outcome.status];
  if (globals.verbosity >= 0)
    fmt::print(stderr, "gpuctl exec: {} node(s): {} ok, {} failed, {} unreachable, {} skipped in {:.1f}s\n",
               results.size(), counts[exec::NodeStatus::ok], counts[exec::NodeStatus::failed],
               counts[exec::NodeStatus::unreachable], counts[exec::NodeStatus::skipped],
               std::chrono::duration<double>(result.elapsed).count());
  return exit_code_for(result.verdict);
}

void register_exec_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  auto options = std::make_shared<ExecCliOptions>();
  auto* cmd = app.add_subcommand(
      "exec",
      "Run a shell command on nodes in parallel\n"
      "Exit: 0 all ok, 3 a command failed, 4 a node was unreachable, 130 interrupted.\n"
      "Example: gpuctl exec cluster.yaml --limit gpu --gather -- nvidia-smi -L\n"
      "Example: gpuctl exec cluster.yaml --json -- uname -r | jq -r '.nodes[] | [.node, .stdout] | @tsv'");
  cmd->add_option("inventory", options->inventory, "Inventory file")->required()->check(CLI::ExistingFile);
  cmd->add_option("command", options->command, "Command (after --), run with sh -c")->required();
  cmd->add_option("-l,--limit", options->limit, k_limit_help);
  add_forks_option(*cmd, options->forks);
  auto* gather = cmd->add_flag("-b,--gather", options->gather, "Fold nodes with identical output under one hostlist");
  cmd->add_flag("--json", options->json,
                "Per node (never folded): status, exit code, stdout, stderr, duration as JSON on stdout "
                "(format_version 1, docs/output.md)")
      ->excludes(gather);
  cmd->add_option("-t,--timeout", options->timeout_s, "Seconds per command (default: command_timeout)")
      ->check(CLI::Range(1, 86400));
  cmd->add_option("--connection", options->connection, "Override every node's connection")
      ->check(CLI::IsMember({"ssh", "local"}));
  cmd->callback([options, &globals, &exit_code] { exit_code = run_exec_command(*options, globals); });
}

}  // namespace
GPUCTL_COMMAND(400, register_exec_command);
}  // namespace gpuctl::cli
