#pragma once
// Loading and validating an inventory file. Does file I/O (reads the file); contacts nothing.

#include <gpuctl/core/diagnostic.hpp>
#include <gpuctl/core/error.hpp>
#include <gpuctl/inventory/inventory.hpp>

#include <string>
#include <vector>

namespace gpuctl {

struct LoadResult {
  std::optional<Inventory> inventory;     // set when there are no errors
  std::vector<Diagnostic> diagnostics;    // errors and lint warnings, in file order

  bool ok() const { return inventory.has_value(); }
};

inline constexpr std::size_t k_max_inventory_bytes = 4 * 1024 * 1024;

// Reads, parses, validates and resolves the inventory at `path`. Never throws.
// Errors: unreadable or oversized file, YAML syntax, duplicate keys, unknown keys (with a
// "did you mean"), wrong types (versions must be strings), empty values, values outside the
// grammar of their field (names, versions, URLs, paths, labels, slurm.conf and nccl.conf keys
// and values: docs/inventory.md, "Grammar of values"), duplicate hosts, bad hostlists, alias
// bombs. Linear in the number of hosts. Warnings: lint rules
// (mixed GPU architectures in one partition, PDU headroom, GRES/GPU count mismatch).
LoadResult load_inventory(const std::string& path);

// Same, from text already in memory (`path` is used only in messages).
LoadResult load_inventory_text(std::string_view text, const std::string& path);

// Selects nodes by a --limit pattern, in inventory order: comma-separated terms, each a hostlist
// of node and group names (`gpu[01-04]`, `gpu`), `all`, `@group` (ClusterShell's form: a group
// only), or any of those after `!` to exclude it (Ansible's form). The result is the union of the
// terms without `!`, minus the `!` ones; with no term without `!`, everything minus them (`!gpu07`
// is `all,!gpu07`). An empty pattern selects all. Errors: a name that matches neither a node nor a
// group (not_found, with did-you-mean), an empty term or a bad hostlist (parse).
Result<std::vector<const Node*>> select_nodes(const Inventory& inventory, std::string_view pattern);

}  // namespace gpuctl
