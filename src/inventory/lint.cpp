// Lint rules from field practice: they warn, they never make an inventory invalid.
#include "resolve.hpp"

#include <gpuctl/inventory/hostlist.hpp>
#include <gpuctl/inventory/nccl_ib_hca.hpp>
#include <gpuctl/inventory/nccl_socket_ifname.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <unordered_map>

namespace gpuctl::inventory_detail {

namespace {

// cluster.nccl's NCCL_IB_HCA selecting an HCA that a node's ib_hcas does not list: NCCL finds
// no such device there (with none left it falls back to sockets, or the job fails). One warning
// per name, naming its hosts by hostlist. An exclusion list (^) cannot select a missing HCA.
void lint_nccl_ib_hca(const Inventory& inv, const RawInventory& raw, Decoder& d) {
  const auto it = inv.cluster.nccl.find("NCCL_IB_HCA");
  if (it == inv.cluster.nccl.end()) return;
  const auto list = parse_nccl_ib_hca(it->second);
  if (list.exclude) return;
  std::vector<std::pair<std::string, std::vector<std::string>>> missing;  // entry -> hosts, in order
  for (const auto& node : inv.nodes) {
    if (node.ib_hcas.empty()) continue;
    for (const auto& entry : list.hcas) {
      const bool listed = std::ranges::any_of(node.ib_hcas, [&](const std::string& item) {
        const auto hca = parse_hca_item(item);
        return nccl_hca_matches(list, entry, hca.name, hca.port);
      });
      if (listed) continue;
      auto at = std::ranges::find(missing, entry.text, &std::pair<std::string, std::vector<std::string>>::first);
      if (at == missing.end()) at = missing.insert(missing.end(), {entry.text, {}});
      at->second.push_back(node.name);
    }
  }
  const auto pos = raw.nccl_ib_hca_pos.line > 0 ? raw.nccl_ib_hca_pos : raw.cluster_pos;
  for (const auto& [entry, hosts] : missing)
    d.warning_at(pos.line, pos.column,
                 fmt::format("NCCL_IB_HCA names '{}', which is not among the ib_hcas of host{} '{}'", entry,
                             hosts.size() == 1 ? "" : "s", hostlist::compress(hosts)),
                 "NCCL finds no such HCA there: fix NCCL_IB_HCA or the hosts' ib_hcas");
}

// cluster.nccl's NCCL_SOCKET_IFNAME written so that NCCL reads it otherwise than it looks: empty
// entries, no entry, a name no Linux interface can have, a wildcard, a ':' (a port to NCCL).
// One warning per problem, at the value. The inventory does not know the nodes' interfaces:
// whether the names exist is verify's nccl_socket_ifname check.
void lint_nccl_socket_ifname(const Inventory& inv, const RawInventory& raw, Decoder& d) {
  const auto it = inv.cluster.nccl.find("NCCL_SOCKET_IFNAME");
  if (it == inv.cluster.nccl.end()) return;
  const auto pos = raw.nccl_socket_ifname_pos.line > 0 ? raw.nccl_socket_ifname_pos : raw.cluster_pos;
  for (const auto& problem : parse_nccl_socket_ifname(it->second).problems)
    d.warning_at(pos.line, pos.column, fmt::format("NCCL_SOCKET_IFNAME '{}': {}", it->second, problem),
                 "NCCL_SOCKET_IFNAME is a ','-separated list of interface-name prefixes; '^' first excludes "
                 "them, '=' makes them exact names ('=bond0', '^docker,lo')");
}

}  // namespace

void lint_inventory(const Resolved& resolved, const RawInventory& raw, Decoder& d) {
  const auto& inv = resolved.inventory;
  std::unordered_map<std::string_view, const Node*> by_name;  // a partition may name every node
  for (const auto& node : inv.nodes) by_name.emplace(node.name, &node);

  // Each warning points at the value it is about (the `model:` of gpu, wherever it won
  // precedence: defaults, a group's vars or the host), not at the node's `hosts:` line.
  const auto source_of = [&](std::size_t n) -> const ValueSources& { return resolved.sources.at(n); };

  // One warning per unknown model, naming its hosts by hostlist: 512 nodes of a model gpuctl
  // does not know are one line, not 512. At the model's first declaration (in node order); a
  // model written in more places names the other lines.
  struct UnknownModel {
    std::string model;
    std::vector<std::string> hosts;
    std::vector<Pos> places;  // distinct, in node order
  };
  std::vector<UnknownModel> unknown_models;  // in inventory order
  for (std::size_t n = 0; n < inv.nodes.size(); ++n) {
    const auto& node = inv.nodes[n];
    if (node.gpu.count == 0 || !gpu_architecture(node.gpu.model).empty()) continue;
    auto it = std::ranges::find(unknown_models, node.gpu.model, &UnknownModel::model);
    if (it == unknown_models.end()) it = unknown_models.insert(unknown_models.end(), {node.gpu.model, {}, {}});
    it->hosts.push_back(node.name);
    const auto place = source_of(n).gpu_model;
    if (std::ranges::none_of(it->places, [&](const Pos& p) { return p.line == place.line && p.column == place.column; }))
      it->places.push_back(place);
  }
  for (const auto& [model, hosts, places] : unknown_models) {
    std::string also;
    if (places.size() > 1) {
      std::vector<std::string> lines;
      for (std::size_t i = 1; i < places.size() && i <= 5; ++i) lines.push_back(std::to_string(places[i].line));
      also = fmt::format(" (also declared at line{} {}{})", places.size() == 2 ? "" : "s", util::join(lines, ", "),
                         places.size() > 6 ? fmt::format(" and {} more", places.size() - 6) : "");
    }
    d.warning_at(places.front().line, places.front().column,
                 fmt::format("host{} '{}': unknown GPU model '{}', architecture checks skipped{}",
                             hosts.size() == 1 ? "" : "s", hostlist::compress(hosts), model, also),
                 "known: " + known_gpu_models());
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

  lint_nccl_ib_hca(inv, raw, d);
  lint_nccl_socket_ifname(inv, raw, d);

  // PDU headroom: keep 20% of each rack's PDU capacity free. The capacity used is the smallest
  // its nodes give; the warning points at that `pdu_capacity_watts` value.
  struct Capacity {
    int watts = 0;
    Pos pos;
    std::vector<std::string> hosts;
  };
  struct Rack {
    long watts = 0;
    std::vector<Capacity> capacities;  // distinct declarations, in node order
  };
  std::map<std::string, Rack> racks;
  std::vector<std::string> order;
  for (std::size_t n = 0; n < inv.nodes.size(); ++n) {
    const auto& node = inv.nodes[n];
    if (node.rack.empty()) continue;
    auto [it, inserted] = racks.try_emplace(node.rack);
    auto& rack = it->second;
    if (inserted) order.push_back(node.rack);
    if (node.gpu.power_watts) rack.watts += static_cast<long>(node.gpu.count) * *node.gpu.power_watts;
    if (!node.pdu_capacity_watts) continue;
    const auto pos = source_of(n).pdu_capacity_watts;
    auto same = std::ranges::find_if(rack.capacities, [&](const Capacity& c) {
      return c.watts == *node.pdu_capacity_watts && c.pos.line == pos.line && c.pos.column == pos.column;
    });
    if (same == rack.capacities.end()) same = rack.capacities.insert(rack.capacities.end(), {*node.pdu_capacity_watts, pos, {}});
    same->hosts.push_back(node.name);
  }
  for (const auto& name : order) {
    const auto& rack = racks[name];
    if (rack.capacities.empty()) continue;
    // Nodes of one rack giving another capacity than the rack's first: one warning per such value.
    const auto& first = rack.capacities.front();
    for (const auto& other : rack.capacities)
      if (other.watts != first.watts)
        d.warning_at(other.pos.line, other.pos.column,
                     fmt::format("rack '{}': host{} '{}' give{} pdu_capacity_watts {}, host{} '{}' {}", name,
                                 other.hosts.size() == 1 ? "" : "s", hostlist::compress(other.hosts),
                                 other.hosts.size() == 1 ? "s" : "", other.watts, first.hosts.size() == 1 ? "" : "s",
                                 hostlist::compress(first.hosts), first.watts),
                     "using the smallest");
    const auto smallest = std::ranges::min_element(rack.capacities, {}, &Capacity::watts);
    const long capacity = smallest->watts;
    if (rack.watts == 0) continue;
    if (rack.watts * 10 > capacity * 8)
      d.warning_at(smallest->pos.line, smallest->pos.column,
                   fmt::format("rack '{}' draws {} W of GPU power, over 80% of its PDU capacity {} W ({}%)", name,
                               rack.watts, capacity, rack.watts * 100 / capacity),
                   "keep 20% headroom: move nodes or cap GPU power");
  }
}

}  // namespace gpuctl::inventory_detail
