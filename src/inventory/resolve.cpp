#include "resolve.hpp"

#include "names.hpp"

#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <unordered_map>

namespace gpuctl::inventory_detail {
namespace {

// Overlays one level of settings (defaults, a group, a host) on what lower levels gave.
void overlay(const RawSettings& s, Node& node, std::map<std::string, Pos>& address_pos, ValueSources& sources) {
  auto& c = node.connection;
  if (s.address.value) c.address = *s.address.value, address_pos[node.name] = s.address.pos;
  if (s.port.value) c.port = *s.port.value;
  if (s.user.value) c.user = *s.user.value;
  if (s.become.value) c.become = *s.become.value;
  if (s.identity_file.value) c.identity_file = *s.identity_file.value;
  if (s.known_hosts.value) c.known_hosts_file = *s.known_hosts.value;
  if (s.host_key_checking.value) c.host_key_policy = *s.host_key_checking.value;
  if (s.connect_timeout.value) c.connect_timeout_s = *s.connect_timeout.value;
  if (s.command_timeout.value) c.command_timeout_s = *s.command_timeout.value;
  if (s.connection.value) c.kind = *s.connection.value;
  // gpu and labels merge key by key, so a host can change only its GPU count.
  if (s.gpu_model.value) node.gpu.model = *s.gpu_model.value, sources.gpu_model = s.gpu_model.pos;
  if (s.gpu_count.value) node.gpu.count = *s.gpu_count.value, sources.gpu_count = s.gpu_count.pos;
  if (s.gpu_power_watts.value) node.gpu.power_watts = *s.gpu_power_watts.value, sources.gpu_power_watts = s.gpu_power_watts.pos;
  if (s.gpu_nvswitch.value) node.gpu.nvswitch = *s.gpu_nvswitch.value;
  if (s.gpu_max_temperature.value) node.gpu.max_temperature_c = *s.gpu_max_temperature.value;
  if (s.nvlink_connection.value || s.nvlink_links_per_gpu.value || s.nvlink_min_link_speed.value) {
    auto& nvlink = node.gpu.nvlink ? *node.gpu.nvlink : node.gpu.nvlink.emplace();
    if (s.nvlink_connection.value) nvlink.connection = *s.nvlink_connection.value;
    if (s.nvlink_links_per_gpu.value) nvlink.links_per_gpu = *s.nvlink_links_per_gpu.value;
    if (s.nvlink_min_link_speed.value) nvlink.min_link_speed_gbs = *s.nvlink_min_link_speed.value;
  }
  if (s.nccl_enabled.value || s.nccl_min_busbw.value || s.nccl_message_bytes.value || s.nccl_iterations.value) {
    auto& nccl = node.gpu.nccl_allreduce ? *node.gpu.nccl_allreduce : node.gpu.nccl_allreduce.emplace();
    if (s.nccl_enabled.value) nccl.enabled = *s.nccl_enabled.value;
    if (s.nccl_min_busbw.value) nccl.min_busbw_gbs = *s.nccl_min_busbw.value;
    if (s.nccl_message_bytes.value) nccl.message_bytes = *s.nccl_message_bytes.value;
    if (s.nccl_iterations.value) nccl.iterations = *s.nccl_iterations.value;
  }
  if (s.dcgm_enabled.value || s.dcgm_level.value) {
    auto& dcgm = node.gpu.dcgm_diag ? *node.gpu.dcgm_diag : node.gpu.dcgm_diag.emplace();
    if (s.dcgm_enabled.value) dcgm.enabled = *s.dcgm_enabled.value;
    if (s.dcgm_level.value) dcgm.level = *s.dcgm_level.value;
  }
  if (s.dcgm_replace_gpu_level.value) node.gpu.replace_gpu_diag_level = *s.dcgm_replace_gpu_level.value;
  if (s.ib_hcas.value) node.ib_hcas = *s.ib_hcas.value;
  if (s.ib_rate.value || s.ib_link_layer.value || s.ib_gpudirect_rdma.value) {
    auto& ib = node.ib ? *node.ib : node.ib.emplace();
    if (s.ib_rate.value) ib.min_rate_gbps = *s.ib_rate.value;
    if (s.ib_link_layer.value) ib.link_layer = *s.ib_link_layer.value;
    if (s.ib_gpudirect_rdma.value) ib.gpudirect_rdma = *s.ib_gpudirect_rdma.value;
  }
  if (s.containers_pos.line > 0) {
    auto& containers = node.containers ? *node.containers : node.containers.emplace();
    if (s.containers_runtime.value) containers.runtime = *s.containers_runtime.value;
    if (s.containers_cdi_only.value) containers.cdi_only = *s.containers_cdi_only.value;
    if (s.containers_test_image.value) containers.gpu_test_image = *s.containers_test_image.value;
    if (s.containers_mig_strategy.value) containers.kubernetes_mig_strategy = *s.containers_mig_strategy.value;
    sources.containers = s.containers_pos;
  }
  if (s.rack.value) node.rack = *s.rack.value, sources.rack = s.rack.pos;
  if (s.pdu_capacity_watts.value)
    node.pdu_capacity_watts = *s.pdu_capacity_watts.value, sources.pdu_capacity_watts = s.pdu_capacity_watts.pos;
  for (const auto& [key, field] : s.labels) node.labels[key] = *field.value;
}

std::string hint_for(const std::string& name, const std::vector<std::string>& candidates) {
  const auto match = util::closest_match(name, candidates);
  return match ? fmt::format("did you mean '{}'?", *match) : "";
}

void check_node_reference(Decoder& d, const std::string& name, Pos pos, std::string_view what,
                          const std::map<std::string, Pos>& node_pos, const std::vector<std::string>& names) {
  if (name.empty() || node_pos.contains(name)) return;
  d.error_at(pos.line, pos.column, fmt::format("{} '{}' is not a host of the inventory", what, name),
             hint_for(name, names));
}

// One hostlist can name up to 100000 hosts (hostlist::k_max_expansion), and an error about
// each would print megabytes for a 2 KB inventory (found by fuzzing): past k_max errors at one
// line and column, the rest are only counted, and finish() reports how many were left out.
class PlaceErrors {
 public:
  static constexpr int k_max = 10;
  explicit PlaceErrors(Decoder& d) : m_d(d) {}
  void error(Pos pos, std::string message, std::string hint = {}) {
    if (++m_count[{pos.line, pos.column}] <= k_max) m_d.error_at(pos.line, pos.column, std::move(message), std::move(hint));
  }
  void finish() {
    for (const auto& [place, count] : m_count)
      if (count > k_max)
        m_d.error_at(place.first, place.second, fmt::format("{} more errors like these here are not shown", count - k_max));
  }

 private:
  Decoder& m_d;
  std::map<std::pair<int, int>, int> m_count;
};

}  // namespace

Resolved resolve_inventory(const RawInventory& raw, Decoder& d) {
  Resolved out;
  auto& inv = out.inventory;
  inv.cluster = raw.cluster;
  PlaceErrors per_host(d);

  // Node order: first seen, section by section in file order.
  std::vector<std::pair<std::string, Pos>> declared;
  auto from_groups = [&] {
    for (const auto& g : raw.groups)
      for (const auto& m : g.members) declared.emplace_back(m, g.hosts_pos);
  };
  auto from_hosts = [&] {
    for (const auto& h : raw.hosts) declared.emplace_back(h.name, h.pos);
  };
  if (raw.hosts_before_groups) from_hosts(), from_groups();
  else from_groups(), from_hosts();

  std::map<std::string, std::string> by_lower_name;
  std::set<std::string> invalid;
  inv.nodes.reserve(declared.size());
  for (const auto& [name, pos] : declared) {
    if (out.node_pos.contains(name) || invalid.contains(name)) continue;
    if (auto why = check_hostname(name)) {
      per_host.error(pos, fmt::format("host name '{}' {}", name, *why));
      invalid.insert(name);
      continue;
    }
    const auto lower = util::to_lower(name);
    if (auto it = by_lower_name.find(lower); it != by_lower_name.end()) {
      per_host.error(pos, fmt::format("duplicate host '{}': same as '{}' (host names ignore case)", name, it->second));
      invalid.insert(name);
      continue;
    }
    by_lower_name[lower] = name;
    out.node_pos[name] = pos;
    Node node;
    node.name = name;
    node.connection.address = name;
    inv.nodes.push_back(std::move(node));
  }

  for (const auto& g : raw.groups) {
    inv.groups.push_back({g.name, g.hosts, g.members});
    if (by_lower_name.contains(util::to_lower(g.name)))
      d.error_at(g.pos.line, g.pos.column, fmt::format("group '{}' has the same name as a host", g.name),
                 "--limit could not tell them apart; rename the group");
  }

  // Which groups (in file order) and which `hosts:` entry declare each name: looked up once
  // per node rather than searched, so resolution stays linear in the number of hosts.
  std::unordered_map<std::string_view, std::vector<std::size_t>> groups_of;
  for (std::size_t i = 0; i < raw.groups.size(); ++i)
    for (const auto& member : raw.groups[i].members) {
      auto& indexes = groups_of[member];
      if (indexes.empty() || indexes.back() != i) indexes.push_back(i);
    }
  std::unordered_map<std::string_view, const RawHost*> host_entry;
  for (const auto& h : raw.hosts) host_entry.try_emplace(h.name, &h);

  std::map<std::string, Pos> address_pos;
  out.sources.resize(inv.nodes.size());
  for (std::size_t n = 0; n < inv.nodes.size(); ++n) {
    auto& node = inv.nodes[n];
    auto& sources = out.sources[n];
    overlay(raw.defaults, node, address_pos, sources);
    if (const auto it = groups_of.find(node.name); it != groups_of.end())
      for (const auto i : it->second) {
        node.groups.push_back(raw.groups[i].name);
        overlay(raw.groups[i].vars, node, address_pos, sources);
      }
    if (const auto it = host_entry.find(node.name); it != host_entry.end())
      overlay(it->second->settings, node, address_pos, sources);
  }

  std::map<std::pair<std::string, int>, std::string> by_address;
  std::vector<std::string> names;
  for (const auto& node : inv.nodes) names.push_back(node.name);
  for (const auto& node : inv.nodes) {
    const auto pos = out.node_pos[node.name];
    if (node.gpu.count > 0 && (node.gpu.model.empty() || node.gpu.model == "none"))
      per_host.error(pos, fmt::format("host '{}' has {} GPUs but no gpu.model", node.name, node.gpu.count),
                     "set gpu: {model: H100, count: 8}");
    // Without the fabric manager, CUDA does not initialise on an NVSwitch board (error 802).
    if (node.gpu.count > 0 && has_nvswitch(node.gpu) && !inv.cluster.profile.name.empty() &&
        inv.cluster.packages.package("fabricmanager").empty())
      per_host.error(pos,
                     fmt::format("host '{}' has NVSwitch GPUs ({} x {}), but {} has no fabric manager package, without which "
                                 "CUDA does not initialise there",
                                 node.name, node.gpu.count, node.gpu.model, inv.cluster.profile.description),
                     "use driver_source: cuda-repository, or set gpu.nvswitch: false for PCIe cards");
    if (node.containers) {
      const auto at = out.sources[static_cast<std::size_t>(&node - inv.nodes.data())].containers;
      if (node.containers->runtime.empty())
        per_host.error(at, fmt::format("host '{}' declares containers but no containers.runtime", node.name),
                       "set runtime: containerd, docker or podman (the distribution's package)");
      if (inv.cluster.containers.toolkit_version.empty())
        per_host.error(at, fmt::format("host '{}' declares containers, but cluster.containers.toolkit_version is not set", node.name),
                       "set cluster.containers.toolkit_version, e.g. \"1.17.8\" (the NVIDIA Container Toolkit every container node gets)");
      if (node.containers->cdi_only && node.containers->runtime == "docker")
        per_host.error(at, fmt::format("host '{}': containers.cdi_only with docker", node.name),
                       "docker injects CDI devices only from Docker 25 on, and Debian 12's docker.io is 20.10: use the full toolkit (cdi_only: false), or podman");
    }
    if (node.connection.kind != ConnectionKind::ssh) continue;
    const auto key = std::pair{util::to_lower(node.connection.address), node.connection.port};
    auto [it, inserted] = by_address.try_emplace(key, node.name);
    if (!inserted) {
      const auto at = address_pos.contains(node.name) ? address_pos[node.name] : pos;
      per_host.error(at,
                     fmt::format("hosts '{}' and '{}' have the same address {} port {}", it->second, node.name,
                                 node.connection.address, node.connection.port),
                     "each host needs its own address");
    }
  }

  // Slurm and monitoring refer to hosts by name.
  auto& slurm = inv.cluster.slurm;
  if (slurm.enabled && slurm.controller.empty() && raw.controller_pos.line == 0)
    d.error_at(raw.cluster_pos.line, raw.cluster_pos.column, "'cluster.slurm' needs a 'controller'",
               "the host that runs slurmctld");
  check_node_reference(d, slurm.controller, raw.controller_pos, "Slurm controller", out.node_pos, names);
  check_node_reference(d, inv.cluster.monitoring.prometheus, raw.prometheus_pos, "Prometheus server", out.node_pos, names);
  std::set<std::string> partition_names;
  const RawPartition* default_partition = nullptr;
  for (const auto& rp : raw.partitions) {
    const auto& p = rp.partition;
    if (!p.name.empty() && !partition_names.insert(p.name).second)
      d.error_at(rp.pos.line, rp.pos.column, fmt::format("duplicate Slurm partition '{}'", p.name));
    for (const auto& member : p.node_names) {
      if (out.node_pos.contains(member)) continue;
      d.error_at(rp.nodes_pos.line, rp.nodes_pos.column,
                 fmt::format("partition '{}' lists '{}', which is not a host of the inventory", p.name, member),
                 hint_for(member, names));
      break;  // one message per partition; the rest are usually the same typo
    }
    if (p.is_default) {
      if (default_partition)
        d.error_at(rp.default_pos.line, rp.default_pos.column,
                   fmt::format("partitions '{}' and '{}' are both the default", default_partition->partition.name, p.name),
                   "Slurm allows one default partition");
      else
        default_partition = &rp;
    }
    slurm.partitions.push_back(p);
  }
  per_host.finish();
  return out;
}

}  // namespace gpuctl::inventory_detail
