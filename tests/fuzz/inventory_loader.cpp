// Fuzz target: the inventory loader (inventory/loader.hpp) on YAML text: parse, decode,
// resolve and lint, as `gpuctl validate` does. Properties: a loaded inventory has no error
// diagnostic, names its nodes uniquely, and every node gives its playbook variables; an
// inventory that fails carries at least one error.
#include "fuzz_input.hpp"

#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/playbook/variables.hpp>

#include <algorithm>
#include <set>
#include <string>

using gpuctl::fuzz::property_failed;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto result = gpuctl::load_inventory_text(gpuctl::fuzz::as_text(data, size), "fuzz.yaml");
  bool has_error = false;
  for (const auto& diagnostic : result.diagnostics) {
    has_error = has_error || diagnostic.severity == gpuctl::Severity::error;
    if (diagnostic.to_string().empty()) property_failed("a diagnostic printed as nothing");
  }
  if (!result.ok()) {
    if (!has_error) property_failed("the inventory failed to load without an error diagnostic");
    return 0;
  }
  if (has_error) property_failed("an inventory with an error diagnostic was loaded");

  const auto& inventory = *result.inventory;
  std::set<std::string> names;
  for (const auto& node : inventory.nodes) {
    if (!names.insert(node.name).second) property_failed("two nodes have the same name");
    (void)gpuctl::node_variables(inventory, node);
  }
  // What --limit does: everything, then each group by name.
  if (auto all = gpuctl::select_nodes(inventory, ""); !all || all->size() != inventory.nodes.size())
    property_failed("an empty --limit did not select every node");
  for (const auto& group : inventory.groups) (void)gpuctl::select_nodes(inventory, group.name);
  return 0;
}
