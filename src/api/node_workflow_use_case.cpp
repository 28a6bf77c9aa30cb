// The one-node workflows as use cases (api/node_workflow_use_case.hpp): what replace-gpu and
// reimage share around their workflow.
#include <gpuctl/api/node_workflow_use_case.hpp>

#include "recorded_run.hpp"
#include "run_inputs.hpp"

#include <fmt/format.h>

namespace gpuctl {
namespace {

using Workflow = std::function<Result<NodeWorkflowReport>(const WorkflowContext&)>;

NodeWorkflowResult run_node_workflow(const NodeWorkflowRequest& request, std::string_view command,
                                     const ConfirmWorkflow& confirm, const RunEnvironment& env,
                                     const Workflow& workflow) {
  NodeWorkflowResult result;
  const auto fail_with = [&](Verdict verdict, std::string message) {
    result.verdict = verdict;
    result.error = std::move(message);
    return std::move(result);
  };
  RunTarget target = request.target;
  target.limit = request.node;
  target.command = std::string(command);
  auto inputs = use_case::load_run_inputs(target, env);
  if (!inputs) return fail_with(inputs.error().verdict, inputs.error().message);
  (*inputs)->session.drain_timeout = request.drain_timeout;
  (*inputs)->session.drain_poll = request.drain_poll;
  // --limit also takes groups and hostlists; these commands are for exactly one node.
  const auto& nodes = (*inputs)->selected->nodes;
  if (nodes.size() != 1 || nodes[0]->name != request.node)
    return fail_with(Verdict::invalid_input, fmt::format("{} works on one node by name; '{}' selects {} node(s)",
                                                         command, request.node, nodes.size()));
  if (const auto stop = use_case::ask(confirm)) {
    result.declined = *stop == Verdict::declined;
    return fail_with(*stop, {});
  }
  auto recorded = use_case::begin_recorded_run(**inputs, env, command, state::LockMode::exclusive);
  if (!recorded) return fail_with(recorded.error().verdict, recorded.error().message);
  auto session = use_case::make_session(**inputs);
  const WorkflowContext context{*session, (*inputs)->factory, *recorded->store, *recorded->recorder,
                                request.resume_drained_by_other};
  auto report = workflow(context);
  const bool interrupted = use_case::cancelled(env);
  session.reset();
  if (!report) {
    use_case::finish_recorded_run(*recorded, state::RunStatus::failed, env);
    (*inputs)->hooks.reset();
    return fail_with(report.error().code == ErrorCode::not_found ? Verdict::error : Verdict::nodes_failed,
                     report.error().to_string());
  }
  const std::vector<exec::NodeOutcome> outcomes{report->outcome};
  use_case::finish_recorded_run(*recorded, run_status_for(outcomes, interrupted), env);
  (*inputs)->hooks.reset();  // the live view gives the terminal back before the report is printed
  result.verdict = verdict_for_nodes(std::vector<exec::NodeStatus>{report->outcome.status}, interrupted);
  result.report = std::move(*report);
  return result;
}

}  // namespace

NodeWorkflowResult run_replace_gpu(const NodeWorkflowRequest& request, const ConfirmWorkflow& confirm,
                                   const RunEnvironment& env) {
  return run_node_workflow(request, "replace-gpu", confirm, env,
                           [](const WorkflowContext& context) { return replace_gpu(context); });
}

NodeWorkflowResult run_reimage(const NodeWorkflowRequest& request, const ReimageOptions& options,
                               const ConfirmWorkflow& confirm, const RunEnvironment& env) {
  return run_node_workflow(request, "reimage", confirm, env,
                           [&](const WorkflowContext& context) -> Result<NodeWorkflowReport> {
                             return reimage(context, options);
                           });
}

}  // namespace gpuctl
