// `gpuctl show RUN`: one recorded run in full: who, command, inventory, plan summary, each
// node's outcome and steps, and the facts snapshots taken.
#include "exit_codes.hpp"
#include "run_support.hpp"

#include <gpuctl/api/report_use_case.hpp>

#include <fmt/format.h>

namespace gpuctl::cli {
namespace {

struct ShowCliOptions {
  StateCliOptions state;
  std::int64_t run = 0;
  bool json = false;
};

int run_show_command(const ShowCliOptions& options) {
  auto run = run_show(options.state.path, options.run);
  if (!run) {
    print_failure(run.error().message);
    return exit_code_for(run.error().verdict);
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
  cmd->callback([&] { exit_code = run_show_command(options); });
}

}  // namespace
GPUCTL_COMMAND(710, register_show_command);
}  // namespace gpuctl::cli
