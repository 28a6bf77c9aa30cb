#pragma once
// Shared by commands that act on nodes: load the inventory, print its diagnostics, select
// nodes by --limit. Prints to stderr (this is the CLI).

#include <gpuctl/inventory/inventory.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gpuctl::cli {

struct SelectedNodes {
  Inventory inventory;
  std::vector<const Node*> nodes;  // point into `inventory`; do not copy SelectedNodes
};

// Loads `path` and selects `limit`; on failure prints why and returns nullopt (exit code 1,
// or 2 for a bad --limit, stored in `exit_code`). Warnings are printed when verbosity >= 0.
std::optional<SelectedNodes> load_selected_nodes(const std::string& path, const std::string& limit, int verbosity,
                                                 int& exit_code);

}  // namespace gpuctl::cli
