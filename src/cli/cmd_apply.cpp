// `gpuctl apply INVENTORY` (plan, confirm, apply) or `gpuctl apply PLAN.json` (exactly that
// plan, refused when stale).
#include "local_files.hpp"
#include "node_exit_code.hpp"
#include "progress.hpp"
#include "run_support.hpp"
#include "state_support.hpp"

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

// A saved plan names its inventory and playbooks; anything that changed since makes it stale.
std::optional<Plan> load_saved_plan(ApplyCliOptions& options, int& exit_code) {
  auto text = util::read_local_file(options.target.inventory);
  if (!text || text->empty() || (*text)[0] != '{') return std::nullopt;  // an inventory, not a plan
  auto plan = plan_from_json(*text, options.target.inventory);
  if (!plan) {
    fmt::print(stderr, "gpuctl: {}\n", plan.error().to_string());
    exit_code = k_exit_usage;
    return std::nullopt;
  }
  options.target.inventory = plan->inventory_path;
  options.target.playbooks = plan->playbooks;
  return std::move(*plan);
}

std::string stale_reason(const Plan& saved, const Plan& fresh) {
  if (saved.inventory_digest != fresh.inventory_digest) return "the inventory changed";
  if (saved.playbooks_digest != fresh.playbooks_digest) return "a playbook changed";
  if (saved.templates_digest != fresh.templates_digest) return "a template changed";
  return {};
}

int run_apply(ApplyCliOptions options, const GlobalOptions& globals) {
  int exit_code = k_exit_ok;
  const auto saved = load_saved_plan(options, exit_code);
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
  // Before the playbooks move into the session: what the plan's inputs hash to now.
  Plan digests;
  digests.inventory_digest = setup->selected->inventory.digest;
  digests.playbooks_digest = playbooks_digest(setup->playbooks);
  digests.templates_digest = templates_digest(setup->session.sources.templates_dir);
  Session session(setup->selected->inventory, setup->selected->nodes, std::move(setup->playbooks), setup->factory,
                  setup->session, *setup->hooks);
  const bool color = use_color(globals, STDOUT_FILENO);
  Plan plan;
  if (saved) {
    plan = *saved;
    if (const auto reason = stale_reason(*saved, digests); !reason.empty()) {
      fmt::print(stderr, "gpuctl: stale plan {}: {} since it was made; run gpuctl plan again\n", options.target.inventory,
                 reason);
      finish_recorded_run(*recorded, state::RunStatus::failed);
      return k_exit_error;
    }
    recorded->recorder->record_plan(plan);
  } else {
    plan = session.plan();
    recorded->recorder->record_plan(plan);
    recorded->recorder->record_facts(session);
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
  const auto outcomes = session.apply(plan, saved.has_value());
  if (saved) recorded->recorder->record_facts(session);
  recorded->recorder->record_outcomes(outcomes);
  const auto statuses = outcomes | std::views::transform([](const auto& o) { return o.outcome; });
  finish_recorded_run(*recorded, run_status_for(std::vector(statuses.begin(), statuses.end()),
                                                setup->session.cancel->cancelled()));
  if (options.json) fmt::print("{}", apply_to_json(outcomes));
  else fmt::print("{}", render_apply_recap(outcomes));
  return exit_code_for_nodes(outcomes | std::views::transform([](const auto& o) { return o.outcome.status; }),
                             setup->session.cancel->cancelled());
}

void register_apply_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  static ApplyCliOptions options;
  auto* cmd = app.add_subcommand(
      "apply",
      "Converge nodes: plan, confirm, then run each node's changes in order (handlers once, reboots waited for). "
      "Given a saved plan (gpuctl plan -o FILE), applies exactly it, or refuses it as stale.\n"
      "Exit codes: 0 ok, 3 a node failed, 4 a node unreachable, 5 another run holds the inventory's lock, "
      "130 interrupted.\n"
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
