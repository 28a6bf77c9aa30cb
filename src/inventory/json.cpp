#include <gpuctl/inventory/json.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpuctl {
namespace {

using nlohmann::ordered_json;

constexpr int k_format_version = 1;

ordered_json node_json(const Node& node) {
  const auto& c = node.connection;
  ordered_json connection{
      {"kind", c.kind == ConnectionKind::ssh ? "ssh" : "local"},
      {"address", c.address},
      {"port", c.port},
      {"user", c.user},
      {"become", c.become},
      {"identity_file", c.identity_file},
      {"known_hosts", c.known_hosts_file},
      {"host_key_checking", c.host_key_policy == HostKeyPolicy::strict ? "strict" : "accept-new"},
      {"connect_timeout", c.connect_timeout_s},
      {"command_timeout", c.command_timeout_s}};
  ordered_json gpu{{"model", node.gpu.model}, {"count", node.gpu.count}};
  gpu["power_watts"] = node.gpu.power_watts ? ordered_json(*node.gpu.power_watts) : ordered_json(nullptr);
  gpu["max_temperature_c"] = node.gpu.max_temperature_c ? ordered_json(*node.gpu.max_temperature_c) : ordered_json(nullptr);
  // Only when declared, so inventories without them print as before.
  if (const auto& l = node.gpu.nvlink) {
    gpu["nvlink"] = {{"connection", l->connection.empty() ? ordered_json(nullptr) : ordered_json(l->connection)},
                     {"links_per_gpu", l->links_per_gpu ? ordered_json(*l->links_per_gpu) : ordered_json(nullptr)},
                     {"min_link_speed", l->min_link_speed_gbs ? ordered_json(*l->min_link_speed_gbs) : ordered_json(nullptr)}};
  }
  if (const auto& n = node.gpu.nccl_allreduce) {
    gpu["nccl_allreduce"] = {{"enabled", n->enabled},
                             {"min_busbw", n->min_busbw_gbs ? ordered_json(*n->min_busbw_gbs) : ordered_json(nullptr)},
                             {"message_size", n->message_bytes},
                             {"iterations", n->iterations}};
  }
  if (const auto& g = node.gpu.dcgm_diag)
    gpu["dcgm_diag"] = {{"enabled", g->enabled}, {"level", g->level}, {"replace_gpu_level", node.gpu.replace_gpu_diag_level}};
  ordered_json out{{"name", node.name}, {"groups", node.groups}, {"connection", connection}, {"gpu", gpu},
                   {"ib_hcas", node.ib_hcas}, {"rack", node.rack}};
  if (const auto& ib = node.ib)
    out["ib"] = {{"rate", ib->min_rate_gbps ? ordered_json(*ib->min_rate_gbps) : ordered_json(nullptr)},
                 {"link_layer", ib->link_layer.empty() ? ordered_json(nullptr) : ordered_json(ib->link_layer)},
                 {"gpudirect_rdma", ib->gpudirect_rdma}};
  out["pdu_capacity_watts"] = node.pdu_capacity_watts ? ordered_json(*node.pdu_capacity_watts) : ordered_json(nullptr);
  out["labels"] = node.labels;
  return out;
}


// The receivers declared (their secrets are names in the store, never values).
ordered_json alertmanager_json(const MonitoringSettings& m) {
  ordered_json out = ordered_json::object();
  if (m.webhook.declared)
    out["webhook"] = {{"url", m.webhook.url}, {"bearer_token", m.webhook.bearer_token}, {"severity", m.webhook.severity}};
  if (m.email.declared)
    out["email"] = {{"to", m.email.to}, {"from", m.email.from}, {"smarthost", m.email.smarthost},
                    {"auth_username", m.email.auth_username}, {"require_tls", m.email.require_tls}, {"severity", m.email.severity}};
  if (m.slack.declared) out["slack"] = {{"channel", m.slack.channel}, {"severity", m.slack.severity}};
  return out;
}

ordered_json cluster_json(const ClusterSettings& c) {
  const auto& n = c.nvidia;
  ordered_json partitions = ordered_json::array();
  for (const auto& p : c.slurm.partitions)
    partitions.push_back({{"name", p.name}, {"nodes", p.nodes}, {"node_names", p.node_names},
                          {"default", p.is_default}, {"options", p.options}});
  return {{"name", c.name},
          {"os_family", c.os_family},
          {"os", c.os},
          {"nvidia",
           {{"driver_branch", n.driver_branch},
            {"driver_version", n.driver_version},
            {"cuda", n.cuda_version},
            {"open_kernel_module", n.open_kernel_module},
            {"driver_source", n.driver_source},
            {"unpackaged_driver", n.unpackaged_driver},
            {"repository",
             {{"url", n.repository.url}, {"key_url", n.repository.key_url},
              {"key_file", n.repository.key_file}, {"pin_priority", n.repository.pin_priority},
              {"existing", n.repository.existing}}}}},
          // The package profile's rows as this inventory resolves them (docs/package-profiles.md).
          {"packages", {{"profile", c.profile.name}, {"packages", c.packages.packages}, {"services", c.packages.services}}},
          {"nccl", c.nccl},
          {"slurm",
           {{"enabled", c.slurm.enabled}, {"controller", c.slurm.controller},
            {"cluster_name", c.slurm.cluster_name}, {"partitions", partitions}, {"options", c.slurm.options},
            {"health_check_interval_seconds", c.slurm.health_check_interval_s}}},
          {"monitoring",
           {{"prometheus", c.monitoring.prometheus}, {"dcgm_exporter", c.monitoring.dcgm_exporter},
            {"node_exporter", c.monitoring.node_exporter},
            {"ports", {{"dcgm_exporter", c.monitoring.dcgm_exporter_port},
                       {"node_exporter", c.monitoring.node_exporter_port},
                       {"prometheus", c.monitoring.prometheus_port},
                       {"alertmanager", c.monitoring.alertmanager_port},
                       {"grafana", c.monitoring.grafana_port}}},
            {"verify_interval_seconds", c.monitoring.verify_interval_seconds},
            {"alertmanager", alertmanager_json(c.monitoring)},
            {"grafana", {{"url", c.monitoring.grafana.url}, {"key_url", c.monitoring.grafana.key_url},
                         {"key_file", c.monitoring.grafana.key_file}}}}}};
}

}  // namespace

std::string diagnostics_to_json(const std::string& path, const LoadResult& result) {
  ordered_json list = ordered_json::array();
  int errors = 0, warnings = 0;
  for (const auto& d : result.diagnostics) {
    (d.severity == Severity::error ? errors : warnings)++;
    list.push_back({{"severity", d.severity == Severity::error ? "error" : "warning"},
                    {"file", d.file},
                    {"line", d.line},
                    {"column", d.column},
                    {"message", d.message},
                    {"hint", d.hint}});
  }
  ordered_json out{{"format_version", k_format_version}, {"file", path}, {"valid", result.ok()},
                   {"errors", errors}, {"warnings", warnings}, {"diagnostics", list}};
  // Replace invalid UTF-8 from the file instead of throwing.
  return out.dump(2, ' ', false, ordered_json::error_handler_t::replace);
}

std::string inventory_to_json(const Inventory& inventory, std::span<const Node* const> nodes) {
  ordered_json groups = ordered_json::array();
  for (const auto& g : inventory.groups) groups.push_back({{"name", g.name}, {"hosts", g.hosts}, {"members", g.members}});
  ordered_json node_list = ordered_json::array();
  for (const auto* node : nodes) node_list.push_back(node_json(*node));
  ordered_json out{{"format_version", k_format_version}, {"file", inventory.path}, {"digest", inventory.digest},
                   {"cluster", cluster_json(inventory.cluster)}, {"groups", groups}, {"nodes", node_list}};
  return out.dump(2, ' ', false, ordered_json::error_handler_t::replace);
}

std::string describe_node_settings(const Node& node) {
  std::string out;
  const auto& c = node.connection;
  out += fmt::format("  groups: {}\n", node.groups.empty() ? "-" : util::join(node.groups, ","));
  if (c.kind == ConnectionKind::local)
    out += "  connection: local\n";
  else
    out += fmt::format("  connection: ssh {}@{}:{} (become: {}, host_key_checking: {}, connect_timeout: {}s, "
                       "command_timeout: {}s{}{})\n",
                       c.user, c.address, c.port, c.become, c.host_key_policy == HostKeyPolicy::strict ? "strict" : "accept-new",
                       c.connect_timeout_s, c.command_timeout_s,
                       c.identity_file.empty() ? "" : ", identity_file: " + c.identity_file,
                       c.known_hosts_file.empty() ? "" : ", known_hosts: " + c.known_hosts_file);
  if (node.gpu.count > 0)
    out += fmt::format("  gpu: {}x {}{}\n", node.gpu.count, node.gpu.model,
                       node.gpu.power_watts ? fmt::format(", {} W each", *node.gpu.power_watts) : "");
  else
    out += "  gpu: none\n";
  if (!node.ib_hcas.empty()) out += fmt::format("  ib_hcas: {}\n", util::join(node.ib_hcas, ","));
  if (const auto& ib = node.ib)
    out += fmt::format("  ib: rate {}, link_layer {}, gpudirect_rdma {}\n",
                       ib->min_rate_gbps ? fmt::format("{}", *ib->min_rate_gbps) : "any",
                       ib->link_layer.empty() ? "any" : ib->link_layer, ib->gpudirect_rdma);
  if (!node.rack.empty()) out += fmt::format("  rack: {}\n", node.rack);
  if (node.pdu_capacity_watts) out += fmt::format("  pdu_capacity_watts: {}\n", *node.pdu_capacity_watts);
  for (const auto& [key, value] : node.labels) out += fmt::format("  label {}: {}\n", key, value);
  return out;
}

std::string describe_nodes(std::span<const Node* const> nodes) {
  std::string out;
  for (const auto* node : nodes) out += node->name + ":\n" + describe_node_settings(*node);
  return out;
}

}  // namespace gpuctl
