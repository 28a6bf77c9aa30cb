#pragma once
// `gpuctl plan`: what apply would change on each node, changing nothing. Loads the inventory
// and playbooks, gathers each node's state over one session per node, plans. Does network
// I/O (the nodes) and reads files; never prints.

#include <gpuctl/api/run_request.hpp>
#include <gpuctl/api/verdict.hpp>
#include <gpuctl/plan/plan.hpp>

namespace gpuctl {

struct PlanRequest {
  RunTarget target;
};

struct PlanResult {
  Verdict verdict = Verdict::ok;  // invalid_input, error (a node unreachable or failed), changes_pending, interrupted, ok
  std::string error;              // for invalid_input and a run that could not start
  Plan plan;                      // the plan (also with errors); empty when nothing was planned
};

PlanResult run_plan(const PlanRequest& request, const RunEnvironment& env);

}  // namespace gpuctl
