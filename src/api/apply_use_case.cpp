// `gpuctl apply` as a use case (api/apply_use_case.hpp): the lock and run record, the plan made
// now, the saved-plan check or the confirmation, the batches.
#include <gpuctl/api/apply_use_case.hpp>

#include "recorded_run.hpp"
#include "run_inputs.hpp"

#include <gpuctl/api/saved_plan.hpp>
#include <gpuctl/apply/rollout.hpp>
#include <gpuctl/plan/render.hpp>
#include <gpuctl/util/file_io.hpp>

#include <fmt/format.h>

namespace gpuctl {
namespace {

ApplyResult refused(Verdict verdict, std::string message) {
  ApplyResult result;
  result.verdict = verdict;
  result.error = std::move(message);
  return result;
}

// What the command line asks for that a saved plan already fixed otherwise; empty when nothing.
std::string conflicting_option(const RunTarget& given, const Plan& plan) {
  std::vector<std::string> names;
  for (const auto& playbook : plan.playbooks) names.push_back(playbook.name);
  if (!given.limit.empty() && given.limit != plan.limit)
    return fmt::format("--limit '{}' is not the plan's ('{}')", given.limit, plan.limit);
  if (!given.playbooks.empty() && given.playbooks != names) return "--playbook is not the plan's";
  if (!given.templates_dir.empty() && given.templates_dir != plan.templates_dir)
    return fmt::format("--templates '{}' is not the plan's ('{}')", given.templates_dir, plan.templates_dir);
  if (!given.connection.empty() && given.connection != plan.connection)
    return fmt::format("--connection '{}' is not the plan's ('{}')", given.connection, plan.connection);
  return {};
}

// A playbook given by path rather than by a shipped playbook's name ("gpu-node").
bool is_playbook_path(const std::string& name) {
  return name.find('/') != std::string::npos || name.ends_with(".yaml") || name.ends_with(".yml");
}

// The run both entry points share; `saved` is the saved plan, with its path.
ApplyResult apply_target(const RunTarget& target, const ApplySettings& settings, const Plan* saved,
                         const std::string& saved_path, const ApplyCallbacks& callbacks, const RunEnvironment& env) {
  auto inputs = use_case::load_run_inputs(target, env);
  if (!inputs) return refused(inputs.error().verdict, inputs.error().message);
  auto& session_options = (*inputs)->session;
  // A saved plan's local inputs first: a playbook or inventory changed since the review is
  // refused before any node runs anything of it (a step's guard runs while planning).
  if (saved) {
    Plan local;
    local.inventory_path = (*inputs)->selected->inventory.path;
    local.inventory_digest = (*inputs)->selected->inventory.digest;
    local.limit = target.limit;
    local.connection = target.connection;
    bind_plan_inputs(local, (*inputs)->playbooks, target.playbooks, session_options.sources.templates_dir, {});
    if (auto same = check_saved_plan_inputs(*saved, local); !same)
      return refused(Verdict::error, fmt::format("refusing the saved plan {}: {}", saved_path, same.error().to_string()));
  }
  session_options.apply.reboot_timeout = settings.reboot_timeout;
  session_options.apply.reboot_poll = settings.reboot_poll;
  session_options.drain_timeout = settings.drain_timeout;
  session_options.prefetch = settings.prefetch;
  session_options.drain_poll = settings.drain_poll;
  session_options.settle_poll = settings.settle_poll;
  auto max_fail = parse_percent(settings.max_fail);
  auto rollout = max_fail ? (settings.batch_size.empty() ? Result<RolloutPolicy>(RolloutPolicy{})
                                                         : parse_batch_size(settings.batch_size))
                          : std::unexpected(max_fail.error());
  if (!rollout) return refused(Verdict::invalid_input, rollout.error().to_string());
  rollout->max_fail_percent = *max_fail;
  session_options.rollout = *rollout;
  // The inventory's lock, before planning: a plan made while another apply runs is already stale.
  auto recorded = use_case::begin_recorded_run(**inputs, env, "apply", state::LockMode::exclusive);
  if (!recorded) return refused(recorded.error().verdict, recorded.error().message);
  ApplyResult result;
  result.stage = ApplyStage::planned;
  const auto finish = [&](state::RunStatus status, Verdict verdict) {
    use_case::finish_recorded_run(*recorded, status, env);
    result.verdict = verdict;
    return std::move(result);
  };
  // The plan shows a secret the store lacks as "a new secret" and mints it only once the plan
  // is confirmed (or matches the saved one, made the same way), just before the first change.
  session_options.sources.secrets = SecretMode::load_only;
  auto session = use_case::make_session(**inputs);
  // Planned now in both cases: a saved plan is applied only when it is this plan.
  result.plan = session->plan();
  result.plan.limit = target.limit;
  result.plan.connection = target.connection;
  recorded->recorder->record_plan(result.plan);
  recorded->recorder->record_facts(*session);
  if (use_case::cancelled(env)) return finish(state::RunStatus::interrupted, Verdict::interrupted);
  if (saved) {
    if (auto same = check_saved_plan(*saved, result.plan); !same) {
      result.error = fmt::format("refusing the saved plan {}: {}", saved_path, same.error().to_string());
      return finish(state::RunStatus::failed, Verdict::error);
    }
    // The digest the reviewer read under the plan's text: it binds what the plan file may not.
    if (const auto digest = plan_digest(result.plan); !settings.plan_digest.empty() && !digest.starts_with(settings.plan_digest)) {
      result.error = fmt::format("refusing the saved plan {}: its plan digest is {}, not the reviewed {}", saved_path,
                                 digest, settings.plan_digest);
      return finish(state::RunStatus::failed, Verdict::error);
    }
  } else {
    if (callbacks.show_plan) callbacks.show_plan(result.plan);
    if (!result.plan.has_changes() && !result.plan.has_errors()) {
      result.stage = ApplyStage::nothing_to_do;
      return finish(state::RunStatus::ok, Verdict::ok);
    }
    switch (callbacks.confirm ? callbacks.confirm(result.plan) : Confirmation::go) {
      case Confirmation::go: break;
      case Confirmation::declined:
        result.stage = ApplyStage::declined;
        return finish(state::RunStatus::interrupted, Verdict::declined);
      case Confirmation::cannot_ask: return finish(state::RunStatus::interrupted, Verdict::invalid_input);
    }
  }
  if (auto secrets = session->generate_missing_secrets(); !secrets) {
    result.error = secrets.error().to_string();
    return finish(state::RunStatus::failed, Verdict::error);
  }
  result.outcomes = session->apply(result.plan, false);
  result.stage = ApplyStage::applied;
  recorded->recorder->record_outcomes(result.outcomes);
  std::vector<exec::NodeOutcome> outcomes;
  std::vector<exec::NodeStatus> statuses;
  for (const auto& o : result.outcomes) {
    outcomes.push_back(o.outcome);
    statuses.push_back(o.outcome.status);
  }
  session.reset();
  (*inputs)->hooks.reset();  // the progress display gives the terminal back before the recap
  return finish(run_status_for(outcomes, use_case::cancelled(env)), verdict_for_nodes(statuses, use_case::cancelled(env)));
}

}  // namespace

ApplyResult run_apply(const ApplyRequest& request, const ApplyCallbacks& callbacks, const RunEnvironment& env) {
  return apply_target(request.target, request.settings, nullptr, {}, callbacks, env);
}

bool is_saved_plan_file(const std::string& path) {
  auto text = util::read_local_file(path, "saved plan");
  return text && !text->empty() && (*text)[0] == '{';
}

ApplyResult run_apply_saved_plan(const ApplySavedPlanRequest& request, const RunEnvironment& env) {
  const auto& path = request.plan_path;
  auto text = util::read_local_file(path, "saved plan");
  if (!text) return refused(Verdict::invalid_input, text.error().to_string());
  auto plan = plan_from_json(*text, path);
  if (!plan) return refused(Verdict::invalid_input, plan.error().to_string());
  if (const auto conflict = conflicting_option(request.given, *plan); !conflict.empty())
    return refused(Verdict::invalid_input,
                   fmt::format("{}: {}; a saved plan is applied with the options it was made with", path, conflict));
  // The plan file is anyone's to edit: a playbook it names by path (not one of the shipped
  // names) is taken only when the one applying names it too, so an edited file cannot swap a
  // shipped playbook for a copy of its own.
  if (request.given.playbooks.empty())
    for (const auto& playbook : plan->playbooks)
      if (is_playbook_path(playbook.name))
        return refused(Verdict::invalid_input,
                       fmt::format("{} names playbook {} by path; apply takes a playbook path only from its own command "
                                   "line: gpuctl apply {} -p {} (each playbook of the plan, in its order)",
                                   path, playbook.name, path, playbook.name));
  // The run is set up from what the plan names, resolved the usual way.
  RunTarget target = request.given;
  target.inventory = plan->inventory_path;
  target.limit = plan->limit;
  target.connection = plan->connection;
  target.templates_dir = plan->templates_dir;
  target.playbooks.clear();
  for (const auto& playbook : plan->playbooks) target.playbooks.push_back(playbook.name);
  return apply_target(target, request.settings, &*plan, path, {}, env);
}

}  // namespace gpuctl
