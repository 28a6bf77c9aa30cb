// `gpuctl apply INVENTORY` (plan, confirm, apply) or `gpuctl apply PLAN.json` (plan again from
// the inputs the saved plan names; apply only when that is the saved plan): flags -> request ->
// api/apply_use_case.hpp -> the plan, the recap or JSON -> exit code.
#include "exit_codes.hpp"
#include "progress.hpp"
#include "run_support.hpp"

#include <gpuctl/api/apply_use_case.hpp>
#include <gpuctl/report/plan_view.hpp>
#include <gpuctl/report/reports.hpp>

#include <algorithm>
#include <cstdlib>
#include <fmt/format.h>
#include <iostream>
#include <unistd.h>

namespace gpuctl::cli {
namespace {

struct ApplyCliOptions {
  TargetOptions target;
  StateCliOptions state;
  bool yes = false;
  bool json = false;
  bool expand = false;
  int reboot_timeout_s = 600;
  int drain_timeout_s = 3600;
  std::string batch_size;
  std::string max_fail = "100%";
  bool no_prefetch = false;
  std::string plan_digest;
};

Confirmation confirm_apply(bool yes) {
  if (yes) return Confirmation::go;
  if (!::isatty(STDIN_FILENO)) {
    fmt::print(stderr, "gpuctl: refusing to apply without a terminal to confirm on; pass --yes in scripts\n");
    return Confirmation::cannot_ask;
  }
  fmt::print("\nApply these changes? Only 'yes' is accepted: ");
  std::fflush(stdout);
  std::string answer;
  std::getline(std::cin, answer);
  if (answer == "yes") return Confirmation::go;
  fmt::print("Apply cancelled; nothing was changed.\n");
  return Confirmation::declined;
}

int run_apply_command(const ApplyCliOptions& options, const GlobalOptions& globals) {
  ApplySettings settings;
  settings.reboot_timeout = std::chrono::seconds(options.reboot_timeout_s);
  settings.drain_timeout = std::chrono::seconds(options.drain_timeout_s);
  settings.batch_size = options.batch_size;
  settings.max_fail = options.max_fail;
  settings.prefetch = !options.no_prefetch;
  settings.plan_digest = options.plan_digest;
  const auto env = make_run_environment(options.target, globals, options.state.path);
  ApplyResult result;
  if (!options.plan_digest.empty() && !is_saved_plan_file(options.target.inventory)) {
    fmt::print(stderr, "gpuctl: --plan-digest binds a saved plan (gpuctl apply PLAN.json); {} is an inventory\n",
               options.target.inventory);
    return k_exit_usage;
  }
  if (is_saved_plan_file(options.target.inventory)) {
    auto given = options.target.run_target();
    given.inventory.clear();
    result = run_apply_saved_plan({options.target.inventory, given, settings}, env);
  } else {
    ApplyCallbacks callbacks;
    callbacks.show_plan = [&](const Plan& plan) {
      const bool color = use_color(globals, STDOUT_FILENO);
      if (!options.json) fmt::print("{}", render_plan_text(plan, {color ? ColorMode::always : ColorMode::never, true, options.expand}));
    };
    callbacks.confirm = [&](const Plan&) { return confirm_apply(options.yes); };
    result = run_apply({options.target.run_target(), settings}, callbacks, env);
  }
  print_failure(result.error);
  if (result.stage == ApplyStage::nothing_to_do && options.json) fmt::print("{}", apply_to_json({}));
  if (result.stage == ApplyStage::applied) {
    if (options.json) fmt::print("{}", apply_to_json(result.outcomes));
    else fmt::print("{}", render_apply_recap(result.outcomes));
  }
  return exit_code_for(result.verdict);
}

void register_apply_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  static ApplyCliOptions options;
  auto* cmd = app.add_subcommand(
      "apply",
      "Converge nodes: plan, confirm, then run each node's changes in order (handlers once, reboots waited for). "
      "Given a saved plan (gpuctl plan -o FILE), plans again from the inputs it names and applies only when that "
      "is the saved plan, or refuses it naming what differs.\n"
      "Exit codes: 0 ok, 1 a saved plan refused or the confirmation declined, 2 usage or invalid inventory, 3 a node failed, 4 a node unreachable, "
      "5 another run holds the inventory's lock, 130 interrupted.\n"
      "Example: gpuctl apply cluster.yaml --limit gpu01 --yes\n"
      "Example: gpuctl apply cluster.yaml --playbook driver-upgrade --batch-size 2 --drain-timeout 7200 --yes");
  add_target_options(*cmd, options.target);
  add_state_option(*cmd, options.state);
  // Never from gpuctl.conf: a site default must not take away every run's confirmation.
  cmd->add_flag("-y,--yes", options.yes, "Do not ask for confirmation (needed without a terminal)")->configurable(false);
  cmd->add_flag("--json", options.json, "Per-node results as JSON on stdout");
  cmd->add_flag("--expand", options.expand, k_expand_help);
  cmd->add_option("--reboot-timeout", options.reboot_timeout_s, "Seconds a node may take to come back from a reboot")
      ->check(CLI::Range(5, 7200))
      ->capture_default_str();
  add_drain_timeout_option(*cmd, options.drain_timeout_s);
  cmd->add_flag("--no-prefetch", options.no_prefetch,
                "With Slurm: do not download a node's new packages before draining it (the install then downloads them "
                "while the node is drained; for a mirror that must not be asked twice)");
  cmd->add_option("--plan-digest", options.plan_digest,
                  "With a saved plan: the plan digest its review showed (the last line of `gpuctl plan`, 12 or more hex "
                  "digits). apply refuses unless the plan made now has it, which binds the review to what runs even "
                  "where the plan file could be edited. Example: gpuctl apply plan.json --plan-digest 3f9a0c1d2e4b")
      ->configurable(false)  // one plan's digest, never a site default
      ->check([](const std::string& text) -> std::string {
        const bool hex = std::ranges::all_of(text, [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
        return hex && text.size() >= 12 && text.size() <= 64 ? "" : "12 to 64 lower-case hex digits";
      });
  cmd->add_option("--batch-size", options.batch_size,
                  "Apply N nodes (or P% of them) at a time, batch after batch (default: all at once)");
  cmd->add_option("--max-fail", options.max_fail,
                  "Start no new batch once more than P% of the nodes so far failed or were unreachable")
      ->default_str("100%");
  cmd->callback([&] { exit_code = run_apply_command(options, globals); });
}

}  // namespace
GPUCTL_COMMAND(500, register_apply_command);
}  // namespace gpuctl::cli
