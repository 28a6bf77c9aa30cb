// `gpuctl apply INVENTORY` (plan, confirm, apply) or `gpuctl apply PLAN.json` (plan again from
// the inputs the saved plan names; apply only when that is the saved plan: api/saved_plan.hpp).
#include "local_files.hpp"
#include "node_exit_code.hpp"
#include "progress.hpp"
#include "run_support.hpp"
#include "saved_plan_options.hpp"
#include "state_support.hpp"

#include <gpuctl/api/saved_plan.hpp>
#include <gpuctl/plan/render.hpp>
#include <gpuctl/report/reports.hpp>
#include <gpuctl/util/file_io.hpp>

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
  int reboot_timeout_s = 600;
  int drain_timeout_s = 3600;
  std::string batch_size;
  std::string max_fail = "100%";
};

bool confirmed(bool yes, int& exit_code) {
  if (yes) return true;
  if (!::isatty(STDIN_FILENO)) {
    fmt::print(stderr, "gpuctl: refusing to apply without a terminal to confirm on; pass --yes in scripts\n");
    exit_code = k_exit_usage;
    return false;
  }
  fmt::print("\nApply these changes? Only 'yes' is accepted: ");
  std::fflush(stdout);
  std::string answer;
  std::getline(std::cin, answer);
  if (answer == "yes") return true;
  fmt::print("Apply cancelled; nothing was changed.\n");
  exit_code = k_exit_ok;
  return false;
}

int run_apply(ApplyCliOptions options, const GlobalOptions& globals) {
  int exit_code = k_exit_ok;
  const auto saved_path = options.target.inventory;
  const auto saved = load_saved_plan(options.target, exit_code);
  if (exit_code != k_exit_ok) return exit_code;
  auto setup = prepare_run(options.target, globals, exit_code);
  if (!setup) return exit_code;
  setup->session.apply.reboot_timeout = std::chrono::seconds(options.reboot_timeout_s);
  setup->session.drain_timeout = std::chrono::seconds(options.drain_timeout_s);
  auto max_fail = parse_percent(options.max_fail);
  auto rollout = max_fail ? (options.batch_size.empty() ? Result<RolloutPolicy>(RolloutPolicy{})
                                                          : parse_batch_size(options.batch_size))
                          : std::unexpected(max_fail.error());
  if (!rollout) {
    fmt::print(stderr, "gpuctl: {}\n", rollout.error().to_string());
    return k_exit_usage;
  }
  rollout->max_fail_percent = *max_fail;
  setup->session.rollout = *rollout;
  // The inventory's lock, before planning: a plan made while another apply runs is already stale.
  auto recorded = start_recorded_run(*setup, options.state, "apply", state::LockMode::exclusive, exit_code);
  if (!recorded) return exit_code;
  const auto* cancel = setup->session.cancel;
  Session session(setup->selected->inventory, setup->selected->nodes, std::move(setup->playbooks), setup->factory,
                  setup->session, *setup->hooks);
  // Planned now in both cases: a saved plan is applied only when it is this plan.
  Plan plan = session.plan();
  plan.limit = options.target.limit;
  plan.connection = options.target.connection;
  recorded->recorder->record_plan(plan);
  recorded->recorder->record_facts(session);
  if (cancel->cancelled()) {
    finish_recorded_run(*recorded, state::RunStatus::interrupted);
    return k_exit_interrupted;
  }
  if (saved) {
    if (auto same = check_saved_plan(*saved, plan); !same) {
      fmt::print(stderr, "gpuctl: refusing the saved plan {}: {}\n", saved_path, same.error().to_string());
      finish_recorded_run(*recorded, state::RunStatus::failed);
      return k_exit_error;
    }
  } else {
    const bool color = use_color(globals, STDOUT_FILENO);
    if (!options.json) fmt::print("{}", render_plan_text(plan, {color ? ColorMode::always : ColorMode::never, true}));
    if (!plan.has_changes() && !plan.has_errors()) {
      if (options.json) fmt::print("{}", apply_to_json({}));
      finish_recorded_run(*recorded, state::RunStatus::ok);
      return k_exit_ok;
    }
    if (!confirmed(options.yes, exit_code)) {
      finish_recorded_run(*recorded, state::RunStatus::interrupted);
      return exit_code;
    }
  }
  const auto outcomes = session.apply(plan, false);
  recorded->recorder->record_outcomes(outcomes);
  const auto statuses = outcomes | std::views::transform([](const auto& o) { return o.outcome; });
  finish_recorded_run(*recorded, run_status_for(std::vector(statuses.begin(), statuses.end()), cancel->cancelled()));
  if (options.json) fmt::print("{}", apply_to_json(outcomes));
  else fmt::print("{}", render_apply_recap(outcomes));
  return exit_code_for_nodes(outcomes | std::views::transform([](const auto& o) { return o.outcome.status; }),
                             cancel->cancelled());
}

void register_apply_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  static ApplyCliOptions options;
  auto* cmd = app.add_subcommand(
      "apply",
      "Converge nodes: plan, confirm, then run each node's changes in order (handlers once, reboots waited for). "
      "Given a saved plan (gpuctl plan -o FILE), plans again from the inputs it names and applies only when that "
      "is the saved plan, or refuses it naming what differs.\n"
      "Exit codes: 0 ok, 1 a saved plan refused, 2 usage or invalid inventory, 3 a node failed, 4 a node unreachable, "
      "5 another run holds the inventory's lock, 130 interrupted.\n"
      "Example: gpuctl apply cluster.yaml --limit gpu01 --yes\n"
      "Example: gpuctl apply cluster.yaml --playbook driver-upgrade --batch-size 2 --drain-timeout 7200 --yes");
  add_target_options(*cmd, options.target);
  add_state_option(*cmd, options.state);
  cmd->add_flag("-y,--yes", options.yes, "Do not ask for confirmation (needed without a terminal)");
  cmd->add_flag("--json", options.json, "Per-node results as JSON on stdout");
  cmd->add_option("--reboot-timeout", options.reboot_timeout_s, "Seconds a node may take to come back from a reboot")
      ->check(CLI::Range(5, 7200));
  add_drain_timeout_option(*cmd, options.drain_timeout_s);
  cmd->add_option("--batch-size", options.batch_size,
                  "Apply N nodes (or P% of them) at a time, batch after batch (default: all at once)");
  cmd->add_option("--max-fail", options.max_fail,
                  "Start no new batch once more than P% of the nodes so far failed or were unreachable")
      ->default_str("100%");
  cmd->callback([&] { exit_code = run_apply(options, globals); });
}

}  // namespace
GPUCTL_COMMAND(500, register_apply_command);
}  // namespace gpuctl::cli
