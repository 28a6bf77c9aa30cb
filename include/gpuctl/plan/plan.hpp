#pragma once
// The plan is a value: per node, the changes apply would make and why. Built by the pure
// planner (make_node_plan) from a node's program and its observed state; rendered for people
// (plan/render_text.hpp) and machines (plan/plan_json.hpp) from this same value.

#include <gpuctl/plan/node_state.hpp>
#include <gpuctl/plan/program.hpp>

#include <string>
#include <vector>

namespace gpuctl {

// Shown as: create "+", update "~", remove "-", run "»", restart / reboot "↻".
enum class Action { create, update, remove, run, restart, reboot };

std::string_view action_symbol(Action action);
std::string_view action_name(Action action);

struct Change {
  Action action = Action::update;
  std::string step;
  std::string resource;        // resource_id(), "handler:<name>" or "reboot"
  std::string summary;         // "install nvidia-driver-550 (none -> 550.127.08)"
  std::string reason;          // why, in words
  std::string diff;            // unified diff for files; empty for secrets
  std::size_t step_index = 0;  // into NodeProgram::steps
  std::size_t resource_index = 0;  // into ResolvedStep::resources (resource changes only)
};

enum class NodePlanStatus { planned, unreachable, failed };

struct NodePlan {
  std::string node;
  NodePlanStatus status = NodePlanStatus::planned;
  std::string error;           // for unreachable / failed: the reason
  std::string state_fingerprint;
  std::vector<Change> changes;
};

struct Plan {
  static constexpr int k_format_version = 1;
  std::string created_at;      // ISO 8601, UTC
  std::string inventory_path;
  std::string inventory_digest;
  std::vector<std::string> playbooks;   // paths, in order
  std::string playbooks_digest;
  std::string templates_digest;
  std::vector<NodePlan> nodes;

  bool has_changes() const;
  bool has_errors() const;
};

// The changes that converge `state` to `program` (pure, no I/O).
NodePlan make_node_plan(const NodeProgram& program, const NodeState& state);

// True when a package's installed version satisfies the wanted one: equal, or the wanted
// upstream version followed by a Debian revision ("550.127.08" matches "550.127.08-1").
bool version_matches(std::string_view installed, std::string_view wanted);

}  // namespace gpuctl
