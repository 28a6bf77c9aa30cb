// `gpuctl show RUN`: one recorded run in full: who, command, inventory, plan summary, each
// node's outcome and steps, and the facts snapshots taken. `gpuctl show PLAN.json`: a plan saved
// with `plan -o`, as `plan` printed it (terraform show).
#include "exit_codes.hpp"
#include "progress.hpp"
#include "run_support.hpp"

#include <gpuctl/api/report_use_case.hpp>
#include <gpuctl/api/saved_plan.hpp>
#include <gpuctl/report/plan_view.hpp>

#include <fmt/format.h>
#include <optional>
#include <string>
#include <unistd.h>

namespace gpuctl::cli {
namespace {

struct ShowCliOptions {
  StateCliOptions state;
  std::string what;  // a run id, or the path of a saved plan
  bool json = false;
  bool no_diff = false;
  bool expand = false;
};

// Digits only: a run id. Anything else is a file (a saved plan is named `*.json` in practice).
std::optional<std::int64_t> run_id(const std::string& text) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  return std::stoll(text);
}

int show_saved_plan(const ShowCliOptions& options, const GlobalOptions& globals) {
  auto plan = run_show_saved_plan(options.what);
  if (!plan) {
    print_failure(plan.error().message);
    return exit_code_for(plan.error().verdict);
  }
  if (options.json) fmt::print("{}\n", plan_to_json(*plan));
  else {
    fmt::print("{}", render_plan_text(*plan, {use_color(globals, STDOUT_FILENO) ? ColorMode::always : ColorMode::never,
                                              !options.no_diff, options.expand}));
    // As `plan` printed it: the digest a reviewer of the saved file hands to apply --plan-digest.
    fmt::print("Plan digest: {}\n", plan_digest(*plan));
  }
  return k_exit_ok;
}

int run_show_command(const ShowCliOptions& options, const GlobalOptions& globals) {
  const auto id = run_id(options.what);
  if (!id) return show_saved_plan(options, globals);
  if (*id == 0) {
    print_failure("run ids start at 1: gpuctl history lists them");
    return k_exit_usage;
  }
  auto run = run_show(options.state.path, *id);
  if (!run) {
    print_failure(run.error().message);
    return exit_code_for(run.error().verdict);
  }
  fmt::print("{}", options.json ? run_to_json(*run) : render_run_text(*run));
  return k_exit_ok;
}

void register_show_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  static ShowCliOptions options;
  auto* cmd = app.add_subcommand(
      "show",
      "Show one recorded run: who ran what on which inventory, the plan, each node's steps with durations and "
      "errors, and the facts snapshots (--json: also the plan and the facts themselves). Given a file instead of "
      "a run id, show the plan saved there by `gpuctl plan -o` as plan printed it (--json: its JSON); reads the "
      "file only.\n"
      "Example: gpuctl show 42 --json\n"
      "Example: gpuctl plan cluster.yaml -o plan.json && gpuctl show plan.json");
  add_state_option(*cmd, options.state);
  cmd->add_option("RUN_OR_PLAN", options.what, "Run id (from gpuctl history), or a saved plan file (gpuctl plan -o)")
      ->required();
  cmd->add_flag("--json", options.json, "As JSON on stdout");
  cmd->add_flag("--no-diff", options.no_diff, "A saved plan: list the changes without the file diffs");
  cmd->add_flag("--expand", options.expand, std::string("A saved plan: ") + k_expand_help);
  cmd->callback([&] { exit_code = run_show_command(options, globals); });
}

}  // namespace
GPUCTL_COMMAND(710, register_show_command);
}  // namespace gpuctl::cli
