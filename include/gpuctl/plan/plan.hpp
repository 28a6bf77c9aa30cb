#pragma once
// The plan is a value: per node, the changes apply would make and why. Built by the pure
// planner (make_node_plan) from a node's program and its observed state; rendered for people
// (plan/render_text.hpp) and machines (plan/plan_json.hpp) from this same value.

#include <gpuctl/plan/node_state.hpp>
#include <gpuctl/plan/program.hpp>
#include <gpuctl/template/slurm_hardware.hpp>

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
  std::string content_digest{};  // files: SHA-256 of the content apply would write; empty otherwise
};

enum class NodePlanStatus { planned, unreachable, failed };

struct NodePlan {
  std::string node;
  NodePlanStatus status = NodePlanStatus::planned;
  std::string error;           // for unreachable / failed: the reason
  std::string state_fingerprint;
  std::vector<Change> changes;
  // What the reader must know that is no change: a driver adopted as it is, or one whose
  // package install will meet files no package owns. Not bound by a saved plan.
  std::vector<std::string> notes{};   // (default member initializers: shorter brace-inits stay warning-free)
  // The digest recorded with `changes` in a saved plan (plan_from_json); empty in a plan made
  // in memory. plan_to_json always writes changes_digest(changes), never this field.
  std::string changes_digest{};
  // The address the node was planned at (the inventory's), for the reader: the text view folds
  // nodes that differ only by it. Not bound: a saved plan is matched by node name.
  std::string address{};
};

// A local file or secret the plan was made from, by its content's SHA-256 (never the content).
struct BoundInput {
  std::string name;    // a template's name in the templates directory, a source file's path, a secret's name
  std::string digest;
};

// A playbook as `plan` was given it (name or path), the path that resolved to, and its digest.
struct BoundPlaybook {
  std::string name;
  std::string path;
  std::string digest;
};

// A plan binds everything that decides its changes (docs/plan-format.md): a saved plan is
// applied only when a plan made again from today's inputs is the same (api/saved_plan.hpp).
struct Plan {
  static constexpr int k_format_version = 2;
  std::string created_at;      // ISO 8601, UTC
  std::string gpuctl_version;
  std::string inventory_path;
  std::string inventory_digest;
  std::string limit;           // --limit as given; empty: every node
  std::string connection;      // --connection as given: "", "ssh" or "local"
  std::vector<BoundPlaybook> playbooks;   // in order
  std::string templates_dir;
  std::vector<BoundInput> templates;      // every file of templates_dir, sorted by name
  std::vector<BoundInput> source_files;   // every `source:` file a node's program reads, sorted by path
  std::vector<BoundInput> secrets;        // every secret a node's program pushes, sorted by name
  // The hardware values slurm.conf and gres.conf give each Slurm node, with their sources
  // (docs/slurm.md); empty without Slurm. Part of what a saved plan binds.
  SlurmHardwareTable slurm_hardware;
  std::vector<NodePlan> nodes;

  bool has_changes() const;
  bool has_errors() const;
};

// A canonical digest of a node's changes (every field, length-prefixed, in order), written with
// a saved plan so that an edit of its `changes` array is detected. Pure.
std::string changes_digest(const std::vector<Change>& changes);

// The changes that converge `state` to `program` (pure, no I/O).
NodePlan make_node_plan(const NodeProgram& program, const NodeState& state);

// True when a package's installed version satisfies the wanted one: equal, or the wanted
// upstream version followed by a Debian revision ("550.127.08" matches "550.127.08-1").
bool version_matches(std::string_view installed, std::string_view wanted);

}  // namespace gpuctl
