// NodeFacts -> JSON (nlohmann stays inside this file).
#include <gpuctl/facts/json.hpp>

#include "fact_catalog.hpp"

#include <nlohmann/json.hpp>

#include <sstream>

namespace gpuctl::facts {
namespace {

using nlohmann::ordered_json;

template <typename T>
ordered_json optional_json(const std::optional<T>& value) {
  return value ? ordered_json(*value) : ordered_json(nullptr);
}

template <typename T, typename ToJson>
ordered_json fact_json(const Fact<T>& fact, ToJson to_json) {
  if (!fact.present()) return ordered_json{{"absent", fact.absent_reason}};
  return to_json(*fact.value);
}

template <typename T>
ordered_json fact_json(const Fact<T>& fact) {
  return fact_json(fact, [](const T& value) { return ordered_json(value); });
}

ordered_json gpu_json(const GpuInfo& gpu) {
  ordered_json j;
  j["index"] = gpu.index;
  j["name"] = gpu.name;
  j["uuid"] = gpu.uuid;
  j["serial"] = gpu.serial;
  j["pci_bus_id"] = gpu.pci_bus_id;
  j["driver_version"] = gpu.driver_version;
  j["vbios_version"] = gpu.vbios_version;
  j["memory_total_mib"] = optional_json(gpu.memory_total_mib);
  j["memory_used_mib"] = optional_json(gpu.memory_used_mib);
  j["persistence_mode"] = optional_json(gpu.persistence_mode);
  j["ecc_enabled"] = optional_json(gpu.ecc_enabled);
  j["ecc_volatile_corrected"] = optional_json(gpu.ecc_volatile_corrected);
  j["ecc_volatile_uncorrected"] = optional_json(gpu.ecc_volatile_uncorrected);
  j["ecc_aggregate_corrected"] = optional_json(gpu.ecc_aggregate_corrected);
  j["ecc_aggregate_uncorrected"] = optional_json(gpu.ecc_aggregate_uncorrected);
  j["retired_pages_pending"] = optional_json(gpu.retired_pages_pending);
  j["remapped_rows_pending"] = optional_json(gpu.remapped_rows_pending);
  j["remapped_rows_failure"] = optional_json(gpu.remapped_rows_failure);
  j["pcie_gen_current"] = optional_json(gpu.pcie_gen_current);
  j["pcie_gen_max"] = optional_json(gpu.pcie_gen_max);
  j["pcie_width_current"] = optional_json(gpu.pcie_width_current);
  j["pcie_width_max"] = optional_json(gpu.pcie_width_max);
  j["temperature_c"] = optional_json(gpu.temperature_c);
  j["power_draw_w"] = optional_json(gpu.power_draw_w);
  j["power_limit_w"] = optional_json(gpu.power_limit_w);
  j["unreported"] = ordered_json::object();
  for (const auto& [field, raw] : gpu.unreported) j["unreported"][field] = raw;
  return j;
}

ordered_json topology_json(const TopologyMatrix& matrix) {
  auto rows = ordered_json::array();
  for (const auto& row : matrix.rows)
    rows.push_back(ordered_json{{"device", row.device},
                                {"links", row.links},
                                {"cpu_affinity", row.cpu_affinity},
                                {"numa_affinity", row.numa_affinity},
                                {"gpu_numa_id", row.gpu_numa_id}});
  return ordered_json{{"devices", matrix.devices}, {"rows", rows}, {"nic_names", matrix.nic_names}};
}

ordered_json nvlink_json(const std::vector<NvlinkGpu>& gpus) {
  auto list = ordered_json::array();
  for (const auto& gpu : gpus) {
    auto links = ordered_json::array();
    for (const auto& link : gpu.links)
      links.push_back(ordered_json{{"link", link.link}, {"active", link.active}, {"speed_gbs", optional_json(link.speed_gbs)}});
    list.push_back(ordered_json{{"index", gpu.index}, {"name", gpu.name}, {"uuid", gpu.uuid}, {"links", links}, {"note", gpu.note}});
  }
  return list;
}

ordered_json clock_events_json(const std::vector<GpuClockEvents>& gpus) {
  auto list = ordered_json::array();
  for (const auto& gpu : gpus)
    list.push_back(ordered_json{{"pci_bus_id", gpu.pci_bus_id},
                                {"hw_slowdown", optional_json(gpu.hw_slowdown)},
                                {"hw_thermal_slowdown", optional_json(gpu.hw_thermal_slowdown)},
                                {"hw_power_brake_slowdown", optional_json(gpu.hw_power_brake_slowdown)},
                                {"sw_thermal_slowdown", optional_json(gpu.sw_thermal_slowdown)}});
  return list;
}

ordered_json fabric_json(const std::vector<GpuFabric>& gpus) {
  auto list = ordered_json::array();
  for (const auto& gpu : gpus) {
    auto health = ordered_json::object();
    for (const auto& [key, value] : gpu.health) health[key] = value;
    list.push_back(ordered_json{{"pci_bus_id", gpu.pci_bus_id}, {"state", gpu.state}, {"status", gpu.status},
                                {"clique_id", gpu.clique_id}, {"cluster_uuid", gpu.cluster_uuid}, {"health", health}});
  }
  return list;
}

ordered_json xid_events_json(const std::vector<XidEvent>& events) {
  auto list = ordered_json::array();
  for (const auto& event : events)
    list.push_back(ordered_json{{"pci", event.pci}, {"code", event.code}, {"message", event.message},
                                {"nvswitch", event.nvswitch}, {"fatal", optional_json(event.fatal)},
                                {"uptime_s", optional_json(event.uptime_s)},
                                {"cleared_by_reset_at", optional_json(event.cleared_by_reset_at)}});
  return list;
}

ordered_json net_interfaces_json(const std::vector<NetInterface>& interfaces) {
  auto list = ordered_json::array();
  for (const auto& interface : interfaces)
    list.push_back(ordered_json{{"name", interface.name},
                                {"operstate", interface.operstate},
                                {"addresses", interface.addresses ? ordered_json(*interface.addresses) : ordered_json()},
                                {"ipv6_only", interface.ipv6_only}});
  return list;
}

// One AER file: each error's count by the kernel's name, in its order, and the TOTAL_ line;
// null where the kernel did not create the file.
ordered_json aer_counts_json(const std::optional<AerCounts>& counts) {
  if (!counts) return nullptr;
  auto errors = ordered_json::object();
  for (const auto& counter : counts->errors) errors[counter.name] = counter.count;
  return ordered_json{{"errors", errors}, {"total", counts->total}};
}

ordered_json port_aer_json(const PciePortAer& port) {
  return ordered_json{{"bus_id", port.bus_id},
                      {"correctable", aer_counts_json(port.correctable)},
                      {"fatal", aer_counts_json(port.fatal)},
                      {"nonfatal", aer_counts_json(port.nonfatal)}};
}

ordered_json pcie_aer_json(const std::vector<GpuPcieAer>& gpus) {
  auto list = ordered_json::array();
  for (const auto& gpu : gpus)
    list.push_back(ordered_json{{"bus_id", gpu.bus_id},
                                {"device_in_sysfs", gpu.device_in_sysfs},
                                {"correctable", aer_counts_json(gpu.correctable)},
                                {"fatal", aer_counts_json(gpu.fatal)},
                                {"nonfatal", aer_counts_json(gpu.nonfatal)},
                                {"upstream_port", gpu.upstream_port ? port_aer_json(*gpu.upstream_port) : nullptr}});
  return list;
}

ordered_json driver_origin_json(const DriverOrigin& origin) {
  return ordered_json{{"kind", std::string(to_string(origin.kind))},
                      {"package", origin.package},
                      {"path", origin.path},
                      {"runfile_marks", origin.runfile_marks},
                      {"note", origin.note}};
}

ordered_json node_json(const NodeFacts& facts) {
  ordered_json j;
  j["format_version"] = k_facts_format_version;
  j["node"] = facts.node;
  j["os"] = fact_json(facts.os, [](const OsRelease& os) {
    return ordered_json{{"id", os.id}, {"version_id", os.version_id}, {"pretty_name", os.pretty_name}};
  });
  j["kernel"] = fact_json(facts.kernel);
  j["boot_id"] = fact_json(facts.boot_id);
  j["uptime_s"] = fact_json(facts.uptime_s);
  j["loaded_modules"] = fact_json(facts.loaded_modules);
  j["driver_version"] = fact_json(facts.driver_version);
  j["driver_open_kernel_module"] = fact_json(facts.driver_open_kernel_module);
  j["driver_origin"] = fact_json(facts.driver_origin, driver_origin_json);
  j["cuda_version"] = fact_json(facts.cuda_version);
  j["nccl_version"] = fact_json(facts.nccl_version);
  j["gpus"] = fact_json(facts.gpus, [](const std::vector<GpuInfo>& gpus) {
    auto list = ordered_json::array();
    for (const auto& gpu : gpus) list.push_back(gpu_json(gpu));
    return list;
  });
  j["topology"] = fact_json(facts.topology, topology_json);
  j["nvlink"] = fact_json(facts.nvlink, nvlink_json);
  j["clock_events"] = fact_json(facts.clock_events, clock_events_json);
  j["fabric"] = fact_json(facts.fabric, fabric_json);
  j["xid_events"] = fact_json(facts.xid_events, xid_events_json);
  j["peermem_kernel_errors"] = fact_json(facts.peermem_kernel_errors, [](const std::vector<std::string>& lines) {
    return ordered_json(lines);
  });
  j["infiniband"] = fact_json(facts.infiniband, [](const std::vector<InfinibandPort>& ports) {
    auto list = ordered_json::array();
    for (const auto& p : ports)
      list.push_back(ordered_json{{"hca", p.hca}, {"port", p.port}, {"state", p.state}, {"phys_state", p.phys_state},
                      {"rate", p.rate}, {"rate_gbps", optional_json(p.rate_gbps)}, {"link_layer", p.link_layer}});
    return list;
  });
  j["net_interfaces"] = fact_json(facts.net_interfaces, net_interfaces_json);
  j["pcie_aer"] = fact_json(facts.pcie_aer, pcie_aer_json);
  for (const auto* fact : fact_catalog())
    if (fact->to_json) fact->to_json(facts, j);
  if (!facts.packages_absent_reason.empty()) j["packages"] = ordered_json{{"absent", facts.packages_absent_reason}};
  else j["packages"] = ordered_json(facts.packages);
  return j;
}

// A node prints what it likes: bytes that are not UTF-8 (a Latin-1 os-release, a garbled GPU
// name) become U+FFFD instead of an exception that loses every node's facts (found by tests/fuzz).
std::string dump_json(const ordered_json& json) {
  return json.dump(2, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace

std::string facts_to_json(const NodeFacts& facts) { return dump_json(node_json(facts)); }

void write_facts_report_json(std::ostream& out, std::span<const NodeFactsOutcome> outcomes) {
  // Byte for byte what dump(2) of the whole report gives: each node's own dump(2), every line
  // indented two levels deeper (dump escapes newlines inside strings, so lines are structure).
  out << "{\n  \"format_version\": " << k_facts_format_version << ",\n  \"nodes\": [";
  const char* separator = "\n";
  for (const auto& outcome : outcomes) {
    ordered_json node;
    if (outcome.facts) {
      node = node_json(*outcome.facts);
      node.erase("format_version");
    } else {
      node = ordered_json{{"node", outcome.node}, {"status", exec::to_string(outcome.status)}, {"error", outcome.error}};
    }
    const std::string text = dump_json(node);
    out << separator << "    ";
    for (const char c : text) {
      out << c;
      if (c == '\n') out << "    ";
    }
    separator = ",\n";
  }
  out << (outcomes.empty() ? "]\n}" : "\n  ]\n}");
}

std::string facts_report_to_json(std::span<const NodeFactsOutcome> outcomes) {
  std::ostringstream out;
  write_facts_report_json(out, outcomes);
  return out.str();
}

}  // namespace gpuctl::facts
