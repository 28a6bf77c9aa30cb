#pragma once
// Machine-readable and human views of inventories and their diagnostics, for `validate`
// and `inventory`. Pure functions: they build strings, never print.

#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/inventory/loader.hpp>

#include <span>
#include <string>

namespace gpuctl {

// {"format_version":1,"file":...,"valid":bool,"errors":N,"warnings":N,
//  "diagnostics":[{"severity","file","line","column","message","hint"}]}
std::string diagnostics_to_json(const std::string& path, const LoadResult& result);

// {"format_version":1,"file":...,"digest":...,"cluster":{...},"groups":[...],
//  "nodes":[{"name","groups","connection":{...},"gpu":{...},"ib_hcas","rack",
//  "pdu_capacity_watts","labels"}]} for the given nodes (all of them: inventory.nodes).
std::string inventory_to_json(const Inventory& inventory, std::span<const Node* const> nodes);

// One block per node with every resolved setting, for people: "NAME:" then the settings.
std::string describe_nodes(std::span<const Node* const> nodes);

// The settings lines of one node's block (indented, each ending in a newline), without its
// "NAME:" line; `gpuctl inventory` folds nodes whose lines read the same.
std::string describe_node_settings(const Node& node);

}  // namespace gpuctl
