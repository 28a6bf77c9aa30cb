#pragma once
// Resolution (precedence, cross references) and lint over a decoded inventory.

#include "schema.hpp"

#include <map>
#include <string>
#include <vector>

namespace gpuctl::inventory_detail {

// Where a node's resolved value was written: the YAML value that won precedence (defaults, a
// group's vars or the host's entry); line 0 when no level sets it. For lint warnings, which
// point at the value they are about.
struct ValueSources {
  Pos gpu_model, gpu_count, gpu_power_watts, rack, pdu_capacity_watts;
  Pos containers;  // the level whose `containers` the node took last
};

struct Resolved {
  Inventory inventory;
  std::map<std::string, Pos> node_pos;  // where each node was first declared
  std::vector<ValueSources> sources;    // parallel to inventory.nodes
};

// Applies defaults < group vars (file order) < host; checks names, duplicate hosts and
// addresses, and that Slurm and monitoring refer to nodes that exist. Errors go to `d`.
Resolved resolve_inventory(const RawInventory& raw, Decoder& d);

// Field-practice warnings (docs/inventory.md, "Lint rules"). Never errors.
void lint_inventory(const Resolved& resolved, const RawInventory& raw, Decoder& d);

// "Hopper" for "H100", "" when unknown; exposed for tests and templates.
std::string gpu_architecture(std::string_view model);

}  // namespace gpuctl::inventory_detail
