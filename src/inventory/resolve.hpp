#pragma once
// Resolution (precedence, cross references) and lint over a decoded inventory.

#include "schema.hpp"

#include <map>
#include <string>

namespace gpuctl::inventory_detail {

struct Resolved {
  Inventory inventory;
  std::map<std::string, Pos> node_pos;  // where each node was first declared
};

// Applies defaults < group vars (file order) < host; checks names, duplicate hosts and
// addresses, and that Slurm and monitoring refer to nodes that exist. Errors go to `d`.
Resolved resolve_inventory(const RawInventory& raw, Decoder& d);

// Field-practice warnings (docs/inventory.md, "Lint rules"). Never errors.
void lint_inventory(const Resolved& resolved, const RawInventory& raw, Decoder& d);

// "Hopper" for "H100", "" when unknown; exposed for tests and templates.
std::string gpu_architecture(std::string_view model);

}  // namespace gpuctl::inventory_detail
