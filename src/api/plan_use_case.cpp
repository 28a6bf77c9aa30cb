// `gpuctl plan` as a use case (api/plan_use_case.hpp).
#include <gpuctl/api/plan_use_case.hpp>

#include "recorded_run.hpp"
#include "run_inputs.hpp"

namespace gpuctl {

PlanResult run_plan(const PlanRequest& request, const RunEnvironment& env) {
  PlanResult result;
  auto inputs = use_case::load_run_inputs(request.target, env);
  if (!inputs) {
    result.verdict = inputs.error().verdict;
    result.error = inputs.error().message;
    return result;
  }
  // Changes nothing, the secret store included: a missing secret is planned as "new", never minted.
  (*inputs)->session.sources.secrets = SecretMode::load_only;
  {
    auto session = use_case::make_session(**inputs);
    result.plan = session->plan();
  }
  (*inputs)->hooks.reset();  // the progress display gives the terminal back
  result.plan.limit = request.target.limit;
  result.plan.connection = request.target.connection;
  if (use_case::cancelled(env)) result.verdict = Verdict::interrupted;
  else if (result.plan.has_errors()) result.verdict = Verdict::error;
  else if (result.plan.has_changes()) result.verdict = Verdict::changes_pending;
  return result;
}

}  // namespace gpuctl
