#pragma once
// The use cases that read an inventory and contact no node: `gpuctl validate`, `gpuctl
// inventory`, `gpuctl render`, and the hostlist helpers of `gpuctl hostlist`. Read files; never
// print. The inventory's own views (diagnostics and nodes as JSON or text) come with them.

#include <gpuctl/api/run_request.hpp>
#include <gpuctl/api/verdict.hpp>
#include <gpuctl/inventory/hostlist.hpp>
#include <gpuctl/inventory/json.hpp>
#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/playbook/loader.hpp>
#include <gpuctl/template/render_tree.hpp>

#include <expected>
#include <string>
#include <vector>

namespace gpuctl {

// `validate`: every error and lint warning of the inventory at `path`, and the errors of the
// playbooks it would run (names or paths; none: the shipped gpu-node and head-node), among them
// a step's `checks:` naming a check verify does not know. Any error leaves `inventory` unset.
LoadResult run_validate(const std::string& path, const std::vector<std::string>& playbooks = {});

// What playbooks are checked against: the check catalog's names (verify/catalog.hpp).
PlaybookRules playbook_rules();

enum class InventoryView {
  folded,    // for people: nodes whose settings read the same (but for their own name and address) are one block
  expanded,  // for people: one block per node
  json,      // per node, never folded (inventory/json.hpp)
};

// `inventory`: the resolved nodes `limit` selects, as JSON or as text. Failure invalid_input
// for an invalid inventory (every diagnostic to env.on_diagnostic) or a bad --limit.
std::expected<std::string, Failure> run_inventory_show(const std::string& path, const std::string& limit,
                                                       InventoryView view, const RunEnvironment& env);

// The folded text view of `nodes` (plan/fold.hpp's fold_texts): one block per set of nodes whose
// settings read the same once each node's own name and address are replaced, headed by their
// hostlist and count ("gpu[001-512] (512 nodes):"), with <node> / <address> where the members
// differ and an "addresses:" line listing their addresses by hostlist. Pure.
std::string describe_nodes_folded(std::span<const Node* const> nodes);

struct RenderRequest {
  std::string inventory;
  std::string node;                     // only this host (a "did you mean" when unknown)
  std::string limit;                    // or these hosts
  std::string templates_dir;            // empty: the shipped templates
  std::vector<std::string> playbooks;   // empty: the site default
};

// `render`: every file each node would receive. Failure invalid_input for bad input (the
// inventory's diagnostics to env.on_diagnostic), error when a file cannot be rendered.
std::expected<std::vector<NodeFiles>, Failure> run_render(const RenderRequest& request, const RunEnvironment& env);

}  // namespace gpuctl
