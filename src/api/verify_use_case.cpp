// `gpuctl verify` as a use case (api/verify_use_case.hpp).
#include <gpuctl/api/verify_use_case.hpp>

#include "recorded_run.hpp"
#include "run_inputs.hpp"

#include <fmt/format.h>

namespace gpuctl {

VerifyResult run_verify(const VerifyRequest& request, const RunEnvironment& env) {
  VerifyResult result;
  auto inputs = use_case::load_run_inputs(request.target, env);
  if (!inputs) {
    result.verdict = inputs.error().verdict;
    result.error = inputs.error().message;
    return result;
  }
  if (request.nccl_nodes != 0) {
    const auto& inventory = (*inputs)->selected->inventory;
    if (request.nccl_nodes < 2 || request.nccl_nodes > k_max_nccl_nodes_per_set) {
      result.verdict = Verdict::invalid_input;
      result.error = fmt::format("--nccl-nodes {}: a set needs 2 to {} nodes", request.nccl_nodes, k_max_nccl_nodes_per_set);
      return result;
    }
    if (!inventory.cluster.slurm.enabled) {
      result.verdict = Verdict::invalid_input;
      result.error = fmt::format("--nccl-nodes launches the all-reduce with Slurm's salloc and srun, but {} does not enable "
                                 "Slurm: set slurm.enabled and slurm.controller, or drop --nccl-nodes",
                                 inventory.path);
      return result;
    }
  }
  if (request.slurm_job && !(*inputs)->selected->inventory.cluster.slurm.enabled) {
    result.verdict = Verdict::invalid_input;
    result.error = fmt::format("--slurm-job runs a job through Slurm's srun, but {} does not enable Slurm: set "
                               "slurm.enabled and slurm.controller, or drop --slurm-job",
                               (*inputs)->selected->inventory.path);
    return result;
  }
  (*inputs)->session.slurm_job = request.slurm_job;
  // Changes nothing, the secret store included: a missing secret is planned as "new", never minted.
  (*inputs)->session.sources.secrets = SecretMode::load_only;
  // Verify takes no lock (it changes nothing) and still runs when the history cannot be written.
  auto recorded = use_case::begin_recorded_run(**inputs, env, "verify", state::LockMode::none);
  if (!recorded) {
    use_case::notice(env, recorded.error().message);
    use_case::notice(env, "warning: this verify is not recorded in the run history");
  }
  auto session = use_case::make_session(**inputs);
  result.outcomes = session->verify();
  if (request.nccl_nodes > 0 && !use_case::cancelled(env)) session->verify_nccl_across_nodes(result.outcomes, request.nccl_nodes);
  const bool interrupted = use_case::cancelled(env);
  std::vector<exec::NodeOutcome> outcomes;
  std::vector<exec::NodeStatus> statuses;
  for (const auto& o : result.outcomes) {
    outcomes.push_back(o.outcome);
    statuses.push_back(o.outcome.status);
  }
  if (recorded) {
    recorded->recorder->record_facts(*session);
    recorded->recorder->record_outcomes(result.outcomes);
    use_case::finish_recorded_run(*recorded, run_status_for(outcomes, interrupted), env);
  }
  session.reset();
  (*inputs)->hooks.reset();  // the live view gives the terminal back before the report is printed
  // The session pointed into the inventory; it is gone, so the inventory can be handed out.
  result.inventory = std::make_shared<const Inventory>(std::move((*inputs)->selected->inventory));
  result.verdict = verdict_for_nodes(statuses, interrupted);
  return result;
}

std::expected<std::shared_ptr<const Inventory>, Failure> load_inventory_for_report(const std::string& path,
                                                                                     const RunEnvironment& env) {
  auto selected = use_case::load_selected(path, "", env);
  if (!selected) return std::unexpected(selected.error());
  return std::make_shared<const Inventory>(std::move((*selected)->inventory));
}

}  // namespace gpuctl
