#pragma once
// `gpuctl apply INVENTORY` and `gpuctl apply PLAN.json`. Either takes the inventory's lock,
// records the run, plans now over one session per node, and applies in batches (--batch-size,
// --max-fail), inside a Slurm drain where a change is disruptive. A saved plan is applied only
// when the plan made now is that plan (api/saved_plan.hpp); an inventory's plan is shown and
// confirmed through the callbacks first. Does network I/O (the nodes) and file I/O (the state
// store, the inputs); never prints.

#include <gpuctl/api/run_request.hpp>
#include <gpuctl/api/session.hpp>
#include <gpuctl/api/verdict.hpp>

#include <chrono>
#include <functional>

namespace gpuctl {

// How apply goes about its nodes; the same for both entry points.
struct ApplySettings {
  std::chrono::seconds reboot_timeout{600};
  std::chrono::seconds drain_timeout{3600};
  std::string batch_size;              // "N" or "P%"; empty: every node at once
  std::string max_fail = "100%";       // "P%": no new batch once more than P% failed
  bool prefetch = true;                // download a node's new packages before draining it
  std::chrono::milliseconds drain_poll{2000};   // between squeue polls while draining
  std::chrono::milliseconds settle_poll{5000};  // between verify attempts after a drained node's apply
  std::chrono::seconds reboot_poll{2};
  // A saved plan: the plan digest its review showed (a prefix of 12 or more hex digits); the
  // fresh plan must have it. Empty: not checked.
  std::string plan_digest;
};

enum class Confirmation { go, declined, cannot_ask };

// The caller's part in `apply INVENTORY`, besides the RunEnvironment.
struct ApplyCallbacks {
  // The plan made now (each time, before anything is applied).
  std::function<void(const Plan&)> show_plan;
  // Asked when the plan changes something or has errors; empty: go.
  std::function<Confirmation(const Plan&)> confirm;
};

struct ApplyRequest {
  RunTarget target;
  ApplySettings settings;
};

struct ApplySavedPlanRequest {
  std::string plan_path;
  // What the command line gave besides the plan: --limit, --playbook, --templates and
  // --connection must be the plan's or empty; forks and command are taken as they are.
  RunTarget given;
  ApplySettings settings;
};

enum class ApplyStage {
  not_started,      // refused or failed before planning (see error)
  planned,          // planned, not applied: interrupted, a saved plan refused, a refused confirmation
  nothing_to_do,    // the plan changes nothing
  declined,         // the operator answered other than "yes" (Verdict::declined: exit 1)
  applied,
};

struct ApplyResult {
  Verdict verdict = Verdict::ok;
  std::string error;                       // why, for a failure before or instead of applying
  ApplyStage stage = ApplyStage::not_started;
  Plan plan;
  std::vector<NodeApplyOutcome> outcomes;  // one per selected node once applied
};

ApplyResult run_apply(const ApplyRequest& request, const ApplyCallbacks& callbacks, const RunEnvironment& env);

// True when `path` is a saved plan (a JSON file), not an inventory. Reads the file.
bool is_saved_plan_file(const std::string& path);

// Errors before planning: invalid_input when the plan cannot be read, is of another
// format_version, or `given` contradicts it. A plan made now that differs: verdict error,
// "refusing the saved plan PATH: what differs".
ApplyResult run_apply_saved_plan(const ApplySavedPlanRequest& request, const RunEnvironment& env);

}  // namespace gpuctl
