// `gpuctl history`: the recorded runs, newest first; with --node, that node's steps in each
// run and the GPU serials seen in each of its slots.
#include "exit_codes.hpp"
#include "run_support.hpp"

#include <gpuctl/api/report_use_case.hpp>

#include <fmt/format.h>

namespace gpuctl::cli {
namespace {

struct HistoryCliOptions {
  StateCliOptions state;
  std::string node;
  int limit = 20;
  bool json = false;
};

int run_history_command(const HistoryCliOptions& options) {
  auto history = run_history(options.state.path, options.node, options.limit);
  if (!history) {
    print_failure(history.error().message);
    return exit_code_for(history.error().verdict);
  }
  fmt::print("{}", options.json ? history_to_json(*history) : render_history_text(*history));
  return k_exit_ok;
}

void register_history_command(CLI::App& app, GlobalOptions&, int& exit_code) {
  static HistoryCliOptions options;
  auto* cmd = app.add_subcommand(
      "history",
      "List recorded runs (apply, verify), newest first: status, who, and each node's outcome. With --node, "
      "that node's steps per run and the history of its GPU serials per slot.\n"
      "Example: gpuctl history --node gpu01 --limit-runs 5");
  add_state_option(*cmd, options.state);
  cmd->add_option("-n,--node", options.node, "Only runs that touched this node, with its steps");
  cmd->add_option("--limit-runs", options.limit, "Show at most this many runs (0: all)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd->add_flag("--json", options.json, "As JSON on stdout");
  cmd->callback([&] { exit_code = run_history_command(options); });
}

}  // namespace
GPUCTL_COMMAND(700, register_history_command);
}  // namespace gpuctl::cli
