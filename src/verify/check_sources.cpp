// The sources of the checks: facts probes (facts/collect.hpp) and the node state probe
// (plan/node_state.hpp). Kept apart from the checks so adding a check stays a one-place change.
#include "check_sources.hpp"

#include <gpuctl/facts/collect.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>
#include <map>

namespace gpuctl {
namespace {

// The probe each facts-based check reads.
const std::map<std::string, std::string>& probe_of_check() {
  static const std::map<std::string, std::string> probes{
      {"nouveau_not_loaded", "modules"}, {"nvidia_loaded", "modules"},   {"driver_version", "driver"},
      {"gpu_count", "gpus"},             {"gpu_model", "gpus"},          {"ecc_errors", "gpus"},
      {"row_remap", "remapped_rows"},    {"pcie_link", "gpus"},          {"persistence_mode", "gpus"},
      {"cuda_version", "cuda"},            {"nccl_present", "nccl_libraries"}, {"nvlink_topology", "topology"},
      {"ib_ports", "infiniband"},          {"nccl_ib_hca", "infiniband"},     {"nvidia_peermem", "modules"},
      {"nccl_socket_ifname", "net_interfaces"}, {"pcie_aer", "pcie_aer"},
  };
  return probes;
}

// Module checks cite only the lines about their module: /proc/modules is long.
std::string module_lines(const std::string& output, std::string_view module) {
  std::string lines;
  for (const auto& line : util::split_lines(output))
    if (line.starts_with(std::string(module) + " ")) lines += line + "\n";
  return lines.empty() ? fmt::format("(no line for {} among {} modules)", module, util::split_lines(output).size())
                       : lines;
}

void cite_probe(CheckResult& result, const NodeFacts& facts, const std::string& probe) {
  const auto it = facts.sources.find(probe);
  if (it == facts.sources.end()) return;
  result.command = it->second.command;
  result.output = it->second.output;
  if (it->second.exit_code != 0) result.output += fmt::format("{}[exit status {}]", result.output.ends_with('\n') || result.output.empty() ? "" : "\n", it->second.exit_code);
  if (probe == "modules" && it->second.exit_code == 0)
    result.output = module_lines(it->second.output, result.name == "nouveau_not_loaded" ? "nouveau"
                                                    : result.name == "nvidia_peermem"    ? "nvidia_peermem"
                                                                                         : "nvidia");
}

std::string yes_no(bool value) { return value ? "yes" : "no"; }

void cite_service(CheckResult& result, const NodeState& state, const std::string& service) {
  result.command = fmt::format("systemctl show -p UnitFileState,ActiveState {}", service);
  const auto it = state.services.find(service);
  if (it == state.services.end() || !it->second.known) result.output = "(systemctl gave no answer)";
  else result.output = fmt::format("enabled: {}\nactive: {}", yes_no(it->second.enabled), yes_no(it->second.running));
}

}  // namespace

std::string dcgm_exporter_service(const Inventory& inventory) {
  const auto service = inventory.cluster.packages.service("dcgm_exporter");
  return service.empty() ? "dcgm-exporter" : service;
}

void cite_source(CheckResult& result, const CheckInput& input) {
  const auto& name = result.name;
  if (const auto it = probe_of_check().find(name); it != probe_of_check().end()) {
    cite_probe(result, input.state.facts, it->second);
    return;
  }
  if (name == "slurmd_registered") {
    result.command = fmt::format("scontrol show node {}", input.node.name);
    if (input.state.slurm_node) result.output = facts::trim_output(input.state.slurm_node->output, k_source_output_limit);
    return;
  }
  if (name == "dcgm_diag" && input.dcgm_diag) {
    result.command = input.dcgm_diag->command.empty() ? fmt::format("dcgmi diag -r {} -j", input.dcgm_diag->level)
                                                      : input.dcgm_diag->command;
    result.output = facts::trim_output(input.dcgm_diag->output, k_source_output_limit);
    return;
  }
  if (name == "nccl_conf") {
    result.command = "sha256sum /etc/nccl.conf";
    const auto it = input.state.files.find("/etc/nccl.conf");
    if (it != input.state.files.end())
      result.output = it->second.exists ? it->second.digest + "  /etc/nccl.conf" : "(no such file)";
    return;
  }
  static const std::map<std::string, std::string> services{{"slurmd_active", "slurmd"},
                                                           {"slurmctld_active", "slurmctld"},
                                                           {"prometheus_active", "prometheus"}};
  if (const auto it = services.find(name); it != services.end()) {
    cite_service(result, input.state, it->second);
    return;
  }
  if (name == "exporters_active") {
    // The first service not running is the one the check reports.
    for (const auto& service : {dcgm_exporter_service(input.inventory), std::string("prometheus-node-exporter")}) {
      const auto it = input.state.services.find(service);
      if (it == input.state.services.end() || !it->second.known || !it->second.running) {
        cite_service(result, input.state, service);
        return;
      }
    }
  }
}

}  // namespace gpuctl
