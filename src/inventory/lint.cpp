// Lint rules from field practice: they warn, they never make an inventory invalid.
#include "resolve.hpp"

#include <gpuctl/inventory/hostlist.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace gpuctl::inventory_detail {

std::string gpu_architecture(std::string_view model) {
  static const std::map<std::string, std::string> k_architectures{
      {"v100", "Volta"},  {"a100", "Ampere"}, {"a30", "Ampere"},    {"a10", "Ampere"},
      {"a40", "Ampere"},  {"h100", "Hopper"}, {"h200", "Hopper"},   {"gh200", "Hopper"},
      {"h800", "Hopper"}, {"b200", "Blackwell"}, {"gb200", "Blackwell"}, {"b100", "Blackwell"},
      {"l40", "Ada"},     {"l40s", "Ada"},    {"l4", "Ada"}};
  // "H100-SXM5-80GB" and "h100" name the same architecture: match on the leading word.
  auto key = util::to_lower(model);
  key = key.substr(0, key.find_first_of("-_ "));
  const auto it = k_architectures.find(key);
  return it == k_architectures.end() ? "" : it->second;
}

void lint_inventory(const Resolved& resolved, const RawInventory& raw, Decoder& d) {
  const auto& inv = resolved.inventory;
  auto node_pos = [&](const std::string& name) { return resolved.node_pos.at(name); };
  std::unordered_map<std::string_view, const Node*> by_name;  // a partition may name every node
  for (const auto& node : inv.nodes) by_name.emplace(node.name, &node);

  // One warning per unknown model, naming its hosts by hostlist: 512 nodes of a model gpuctl
  // does not know are one line, not 512. At the first such host's position.
  std::vector<std::pair<std::string, std::vector<std::string>>> unknown_models;  // in inventory order
  for (const auto& node : inv.nodes) {
    if (node.gpu.count == 0 || !gpu_architecture(node.gpu.model).empty()) continue;
    auto it = std::ranges::find(unknown_models, node.gpu.model, &std::pair<std::string, std::vector<std::string>>::first);
    if (it == unknown_models.end()) it = unknown_models.insert(unknown_models.end(), {node.gpu.model, {}});
    it->second.push_back(node.name);
  }
  for (const auto& [model, hosts] : unknown_models) {
    const auto pos = node_pos(hosts.front());
    d.warning_at(pos.line, pos.column,
                 fmt::format("host{} '{}': unknown GPU model '{}', architecture checks skipped", hosts.size() == 1 ? "" : "s",
                             hostlist::compress(hosts), model),
                 "known: V100, A100, A30, A10, A40, H100, H200, GH200, B200, GB200, L40, L40S, L4");
  }

  for (const auto& rp : raw.partitions) {
    const auto& p = rp.partition;
    std::map<std::string, std::string> arch_example;  // architecture -> first node having it
    for (const auto& name : p.node_names) {
      const auto found = by_name.find(name);
      if (found == by_name.end()) continue;
      const Node* node = found->second;
      if (node->gpu.count == 0) {
        d.warning_at(rp.nodes_pos.line, rp.nodes_pos.column,
                     fmt::format("partition '{}' includes '{}', which declares no GPUs (gpu.count 0): its GRES "
                                 "would not match the GPUs jobs request",
                                 p.name, name),
                     "declare its gpu, or move it to a CPU partition");
        continue;
      }
      const auto arch = gpu_architecture(node->gpu.model);
      if (!arch.empty()) arch_example.try_emplace(arch, name);
    }
    if (arch_example.size() > 1) {
      std::vector<std::string> parts;
      for (const auto& [arch, example] : arch_example) parts.push_back(fmt::format("{} ({})", arch, example));
      d.warning_at(rp.nodes_pos.line, rp.nodes_pos.column,
                   fmt::format("partition '{}' mixes GPU architectures: {}", p.name, util::join(parts, ", ")),
                   "jobs land on either kind; split the partition or use GRES types");
    }
  }

  // PDU headroom: keep 20% of each rack's PDU capacity free.
  struct Rack {
    long watts = 0;
    std::optional<int> capacity;
    std::string first_node;
  };
  std::map<std::string, Rack> racks;
  std::vector<std::string> order;
  for (const auto& node : inv.nodes) {
    if (node.rack.empty()) continue;
    auto [it, inserted] = racks.try_emplace(node.rack);
    auto& rack = it->second;
    if (inserted) order.push_back(node.rack), rack.first_node = node.name;
    if (node.gpu.power_watts) rack.watts += static_cast<long>(node.gpu.count) * *node.gpu.power_watts;
    if (node.pdu_capacity_watts) {
      if (rack.capacity && *rack.capacity != *node.pdu_capacity_watts) {
        const auto pos = node_pos(node.name);
        d.warning_at(pos.line, pos.column,
                     fmt::format("rack '{}': host '{}' gives pdu_capacity_watts {}, others {}", node.rack, node.name,
                                 *node.pdu_capacity_watts, *rack.capacity),
                     "using the smallest");
      }
      rack.capacity = std::min(rack.capacity.value_or(*node.pdu_capacity_watts), *node.pdu_capacity_watts);
    }
  }
  for (const auto& name : order) {
    const auto& rack = racks[name];
    if (!rack.capacity || rack.watts == 0) continue;
    if (rack.watts * 10 > static_cast<long>(*rack.capacity) * 8) {
      const auto pos = node_pos(rack.first_node);
      d.warning_at(pos.line, pos.column,
                   fmt::format("rack '{}' draws {} W of GPU power, over 80% of its PDU capacity {} W ({}%)", name,
                               rack.watts, *rack.capacity, rack.watts * 100 / *rack.capacity),
                   "keep 20% headroom: move nodes or cap GPU power");
    }
  }
}

}  // namespace gpuctl::inventory_detail
