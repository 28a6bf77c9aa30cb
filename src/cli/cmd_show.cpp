// `gpuctl show RUN`: one recorded run in full: who, command, inventory, plan summary, each
// node's outcome and steps, and the facts snapshots taken.
#include "command_registry.hpp"
#include "state_support.hpp"

#include <gpuctl/report/history.hpp>

#include <fmt/format.h>

namespace gpuctl::cli {
namespace {

struct ShowCliOptions {
  StateCliOptions state;
  std::int64_t run = 0;
  bool json = false;
};

int run_show(const ShowCliOptions& options) {
  auto store = open_state(options.state);
  if (!store) return k_exit_error;
  auto run = load_run(*store, options.run);
  if (!run) {
    fmt::print(stderr, "gpuctl: {}\n", run.error().to_string());
    return run.error().code == ErrorCode::not_found ? k_exit_usage : k_exit_error;
  }
  fmt::print("{}", options.json ? run_to_json(*run) : render_run_text(*run));
  return k_exit_ok;
}

void register_show_command(CLI::App& app, GlobalOptions&, int& exit_code) {
  static ShowCliOptions options;
  auto* cmd = app.add_subcommand(
      "show",
      "Show one recorded run: who ran what on which inventory, the plan, each node's steps with durations and "
      "errors, and the facts snapshots (--json: also the plan and the facts themselves).\n"
      "Example: gpuctl show 42 --json");
  add_state_option(*cmd, options.state);
  cmd->add_option("RUN", options.run, "Run id (from gpuctl history)")->required()->check(CLI::PositiveNumber);
  cmd->add_flag("--json", options.json, "As JSON on stdout");
  cmd->callback([&] { exit_code = run_show(options); });
}

}  // namespace
GPUCTL_COMMAND(710, register_show_command);
}  // namespace gpuctl::cli
