// `gpuctl remediate` over many nodes (api/remediate_use_case.hpp): batches, each node in its own
// one-node Session, one recorded run.
#include <gpuctl/api/remediate_use_case.hpp>

#include "recorded_run.hpp"
#include "run_inputs.hpp"

#include <fmt/format.h>
#include <thread>

namespace gpuctl {

RemediateResult run_remediate(const RemediateRequest& request, const ConfirmWorkflow& confirm, const RunEnvironment& env) {
  RemediateResult result;
  const auto fail_with = [&](Verdict verdict, std::string message) {
    result.verdict = verdict;
    result.error = std::move(message);
    return std::move(result);
  };
  RunTarget target = request.target;
  target.command = "remediate";
  auto inputs = use_case::load_run_inputs(target, env);
  if (!inputs) return fail_with(inputs.error().verdict, inputs.error().message);
  (*inputs)->session.drain_timeout = request.drain_timeout;
  (*inputs)->session.drain_poll = request.drain_poll;
  (*inputs)->session.drain_stop_jobs = request.stop_jobs;
  const auto nodes = (*inputs)->selected->nodes;
  if (nodes.empty()) return fail_with(Verdict::invalid_input, "remediate: the selection names no node");
  if (const auto stop = request.options.dry_run ? std::nullopt : use_case::ask(confirm)) {
    result.declined = *stop == Verdict::declined;
    return fail_with(*stop, {});
  }
  // A dry run touches nothing, so it does not keep other runs out.
  auto recorded = use_case::begin_recorded_run(**inputs, env, "remediate",
                                               request.options.dry_run ? state::LockMode::none : state::LockMode::exclusive);
  if (!recorded) return fail_with(recorded.error().verdict, recorded.error().message);
  auto& in = **inputs;
  std::vector<std::optional<NodeWorkflowReport>> reports(nodes.size());
  std::size_t failed = 0, attempted = 0;
  for (const auto& batch : make_batches(nodes.size(), request.rollout)) {
    if (rollout_should_stop(failed, attempted, request.rollout) || use_case::cancelled(env)) {
      for (const auto index : batch) result.not_started.push_back(nodes[index]->name);
      continue;
    }
    std::vector<std::thread> workers;
    for (const auto index : batch)
      workers.emplace_back([&, index] {
        Session session(in.selected->inventory, {nodes[index]}, in.playbooks, in.factory, in.session, *in.hooks);
        const WorkflowContext context{session, in.factory, *recorded->store, *recorded->recorder, false};
        reports[index] = remediate(context, request.options);
      });
    for (auto& worker : workers) worker.join();
    for (const auto index : batch) {
      ++attempted;
      const auto status = reports[index]->outcome.status;
      if (status == exec::NodeStatus::failed || status == exec::NodeStatus::unreachable) ++failed;
    }
  }
  std::vector<exec::NodeOutcome> outcomes;
  std::vector<exec::NodeStatus> statuses;
  for (auto& report : reports)
    if (report) {
      outcomes.push_back(report->outcome);
      statuses.push_back(report->outcome.status);
      result.reports.push_back(std::move(*report));
    }
  for (const auto& name : result.not_started) {
    outcomes.push_back({name, exec::NodeStatus::skipped, "not started: --max-fail reached", {}});
    statuses.push_back(exec::NodeStatus::skipped);
  }
  const bool interrupted = use_case::cancelled(env);
  use_case::finish_recorded_run(*recorded, run_status_for(outcomes, interrupted), env);
  in.hooks.reset();  // the live view gives the terminal back before the report is printed
  result.verdict = verdict_for_nodes(statuses, interrupted);
  return result;
}

}  // namespace gpuctl
