#pragma once
// The use cases that read an inventory and contact no node: `gpuctl validate`, `gpuctl
// inventory`, `gpuctl render`, and the hostlist helpers of `gpuctl hostlist`. Read files; never
// print. The inventory's own views (diagnostics and nodes as JSON or text) come with them.

#include <gpuctl/api/run_request.hpp>
#include <gpuctl/api/verdict.hpp>
#include <gpuctl/inventory/hostlist.hpp>
#include <gpuctl/inventory/json.hpp>
#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/template/render_tree.hpp>

#include <expected>
#include <string>
#include <vector>

namespace gpuctl {

// `validate`: every error and lint warning of the inventory at `path`.
LoadResult run_validate(const std::string& path);

// `inventory`: the resolved nodes `limit` selects, as JSON or as text. Failure invalid_input
// for an invalid inventory (every diagnostic to env.on_diagnostic) or a bad --limit.
std::expected<std::string, Failure> run_inventory_show(const std::string& path, const std::string& limit, bool json,
                                                       const RunEnvironment& env);

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
