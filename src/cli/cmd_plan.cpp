// `gpuctl plan INVENTORY`: what apply would change on each node, changing nothing.
#include "exit_codes.hpp"
#include "local_files.hpp"
#include "progress.hpp"
#include "run_support.hpp"

#include <gpuctl/api/plan_use_case.hpp>
#include <gpuctl/api/saved_plan.hpp>
#include <gpuctl/report/plan_view.hpp>

#include <cstdlib>
#include <fmt/format.h>
#include <unistd.h>

namespace gpuctl::cli {
namespace {

struct PlanCliOptions {
  TargetOptions target;
  bool json = false;
  bool detailed_exitcode = false;
  bool no_diff = false;
  bool expand = false;
  std::string out;
};

// Exit codes (docs/exit-codes.md, through exit_codes.hpp): 0 planned, nothing to change (or changes, without
// --detailed-exitcode); 2 changes pending with --detailed-exitcode; 1 a node unreachable or
// failed, or -o not writable; 2 a usage error or an invalid inventory, but 1 under
// --detailed-exitcode, where 2 means only "changes"; 130 interrupted.
int run_plan_command(const PlanCliOptions& options, const GlobalOptions& globals) {
  const auto rule = options.detailed_exitcode ? ExitRule::detailed : ExitRule::standard;
  const auto result = run_plan({options.target.run_target()}, make_run_environment(options.target, globals));
  if (result.verdict == Verdict::invalid_input) {
    print_failure(result.error);
    return exit_code_for(result.verdict, rule);
  }
  const Plan& plan = result.plan;
  const auto digest = plan_digest(plan);
  if (options.json) {
    fmt::print("{}", plan_to_json(plan));
  } else {
    const bool color = use_color(globals, STDOUT_FILENO);
    fmt::print("{}", render_plan_text(plan, {color ? ColorMode::always : ColorMode::never, !options.no_diff, options.expand}));
    // The one value a reviewer copies: apply --plan-digest binds the review to what runs.
    fmt::print("Plan digest: {}\n", digest);
  }
  if (!options.out.empty()) {
    if (auto saved = write_local_file_atomically(options.out, plan_to_json(plan)); !saved) {
      fmt::print(stderr, "gpuctl: {}\n", saved.error().to_string());
      return k_exit_error;
    }
    if (!options.json)
      fmt::print("Saved the plan to {}; apply exactly it with: gpuctl apply {} --plan-digest {}\n", options.out, options.out,
                 digest.substr(0, 16));
  }
  return exit_code_for(result.verdict, rule);
}

void register_plan_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  static PlanCliOptions options;
  auto* cmd = app.add_subcommand("plan",
                                 "Show what apply would change on each node (files, packages, services, reboots); "
                                 "changes nothing.\n"
                                 "Example: gpuctl plan cluster.yaml --limit 'gpu[01-04]' --detailed-exitcode");
  add_target_options(*cmd, options.target);
  cmd->add_flag("--json", options.json, "Versioned JSON on stdout (docs/plan-format.md)");
  cmd->add_flag(std::string(k_detailed_exitcode_flag), options.detailed_exitcode,
                "Exit 0 with no changes, 2 with changes pending, 1 on any error (usage, invalid inventory, a node "
                "unreachable or failed); 130 interrupted");
  cmd->add_flag("--no-diff", options.no_diff, "Leave file diffs out of the text view");
  cmd->add_flag("--expand", options.expand, k_expand_help);
  cmd->add_option("-o,--out", options.out, "Also save the plan, for `gpuctl apply FILE`");
  cmd->callback([&] { exit_code = run_plan_command(options, globals); });
}

}  // namespace
GPUCTL_COMMAND(400, register_plan_command);
}  // namespace gpuctl::cli
