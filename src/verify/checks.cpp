#include <gpuctl/verify/checks.hpp>

#include "check_result.hpp"
#include "check_sources.hpp"
#include "dcgm_check.hpp"
#include "gpu_checks.hpp"
#include "health_checks.hpp"
#include "ib_checks.hpp"
#include "network_checks.hpp"
#include "pcie_aer_check.hpp"

#include <gpuctl/facts/slurm.hpp>
#include <gpuctl/plan/plan.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/nccl_allreduce.hpp>
#include <gpuctl/verify/nccl_nodes.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <functional>
#include <map>

namespace gpuctl {
namespace {

using CheckFunction = std::function<CheckResult(const CheckInput&)>;
using namespace verify_detail;

bool module_loaded(const NodeFacts& facts, std::string_view name) {
  return std::ranges::find(*facts.loaded_modules.value, name) != facts.loaded_modules.value->end();
}

CheckResult service_active(const CheckInput& in, const std::string& service) {
  const auto it = in.state.services.find(service);
  if (it == in.state.services.end() || !it->second.known) return cannot_run(fmt::format("systemd did not report {}", service));
  if (!it->second.running) return failed(fmt::format("{} not running", service), "running");
  return pass("running", "running");
}

CheckResult no_nvswitch() {
  return skipped("no NVSwitch on this node (gpu.nvswitch, or not an 8-GPU HGX board)");
}

// On NVSwitch boards CUDA initialises only when the fabric manager runs at exactly the loaded
// driver's version (error 802 otherwise): the one failure an upgrade of the driver alone leaves.
CheckResult check_fabricmanager_version(const CheckInput& in) {
  if (!has_nvswitch(in.node.gpu)) return no_nvswitch();
  const auto& loaded = in.state.facts.driver_version;
  if (!loaded.present()) return cannot_run(absent_reason(loaded, "loaded driver"));
  const auto package = in.inventory.cluster.packages.package("fabricmanager");
  const auto it = in.state.packages.find(package);
  const bool installed = it != in.state.packages.end() && it->second.installed;
  const auto observed = fmt::format("{} {}, driver {}", package, installed ? it->second.version : "not installed", *loaded.value);
  if (!installed)
    return failed(observed, *loaded.value,
                  fmt::format("install {} at {} (gpuctl apply): without it CUDA fails to initialise (error 802)", package,
                              *loaded.value));
  if (!version_matches(it->second.version, *loaded.value))
    return failed(observed, *loaded.value,
                  "the fabric manager must be the loaded driver's version, or it does not start and CUDA fails (error 802): "
                  "upgrade them together (driver-upgrade does)");
  return pass(observed, *loaded.value);
}

// The node as slurmctld sees it: registered, able to take jobs, with the inventory's GPUs as
// its GRES. A node Slurm does not know fails; no scontrol or no answer is an error.
CheckResult slurmd_registered(const CheckInput& in) {
  const std::string wanted_gres =
      in.node.gpu.count > 0 ? fmt::format("gpu:{}:{}", util::to_lower(in.node.gpu.model), in.node.gpu.count) : "";
  const std::string expected = fmt::format("registered, takes jobs, Gres={}", wanted_gres.empty() ? "(none)" : wanted_gres);
  if (!in.state.slurm_node) return cannot_run("Slurm's view of the node was not gathered");
  const auto& slurm = *in.state.slurm_node;
  if (!slurm.scontrol_found) return cannot_run("scontrol not found on the node (package slurm-client)");
  if (slurm.exit_code != 0) {
    if (slurm.output.find(fmt::format("Node {} not found", in.node.name)) != std::string::npos)
      return failed("not in Slurm", expected,
                    fmt::format("slurmctld does not know {}: apply the controller so its slurm.conf lists the node", in.node.name));
    return cannot_run(fmt::format("scontrol show node {} exited {}: {}", in.node.name, slurm.exit_code,
                                  util::trim(util::tail_lines(slurm.output, 2))));
  }
  const auto info = facts::parse_scontrol_node(slurm.output);
  if (!info) return cannot_run(info.error().message);
  if (info->name != in.node.name) return cannot_run(fmt::format("scontrol answered for node {}, not {}", info->name, in.node.name));
  const auto gres = facts::slurm_gpu_gres(info->gres);
  const auto observed = fmt::format("State={} Gres={}", util::join(info->states, "+"), gres.empty() ? "(none)" : gres);
  if (const auto problem = facts::slurm_node_problem(*info)) return failed(observed, expected, *problem);
  if (gres != wanted_gres)
    return failed(observed, expected, "slurm.conf or gres.conf on the node or the controller differs from the inventory");
  return pass(observed, expected);
}

// Every GPU pair linked as gpu.nvlink.connection says (topo -m), every NVLink up (nvlink -s),
// with the declared number of links per GPU and speed. Names each failing pair and link.
CheckResult nvlink_topology(const CheckInput& in) {
  if (!in.node.gpu.nvlink) return skipped("gpu.nvlink is not declared in the inventory");
  const auto& spec = *in.node.gpu.nvlink;
  std::vector<std::string> wanted;
  if (!spec.connection.empty()) wanted.push_back(fmt::format("{} between every GPU pair", spec.connection));
  if (spec.links_per_gpu) wanted.push_back(fmt::format("{} links up per GPU", *spec.links_per_gpu));
  else wanted.push_back("every link up");
  if (spec.min_link_speed_gbs) wanted.push_back(fmt::format("each at least {} GB/s", *spec.min_link_speed_gbs));
  const auto expected = util::join(wanted, ", ");

  std::vector<std::string> problems, observed;
  if (!spec.connection.empty()) {
    const auto& topology = in.state.facts.topology;
    if (!topology.present()) return cannot_run(absent_reason(topology, "GPU topology"));
    const auto gpus = topology.value->gpus();
    std::map<std::string, int> seen;
    for (std::size_t a = 0; a < gpus.size(); ++a)
      for (std::size_t b = a + 1; b < gpus.size(); ++b) {
        const auto link = topology.value->link(gpus[a], gpus[b]);
        ++seen[link];
        if (link != spec.connection) problems.push_back(fmt::format("{}-{} {}", gpus[a], gpus[b], link));
      }
    std::string pairs;
    for (const auto& [kind, count] : seen) pairs += fmt::format("{}{} x{}", pairs.empty() ? "" : " ", kind, count);
    observed.push_back(fmt::format("{} GPUs in topo -m{}", gpus.size(), pairs.empty() ? ", no GPU pair" : ": " + pairs));
    if (static_cast<int>(gpus.size()) != in.node.gpu.count)
      problems.push_back(fmt::format("topo -m lists {} GPUs, the inventory {}", gpus.size(), in.node.gpu.count));
  }
  const auto& nvlink = in.state.facts.nvlink;
  if (!nvlink.present()) return cannot_run(absent_reason(nvlink, "NVLink state"));
  int links_up = 0;
  for (const auto& gpu : *nvlink.value) {
    int up = 0;
    for (const auto& link : gpu.links) {
      if (!link.active) {
        problems.push_back(fmt::format("GPU {} link {} inactive", gpu.index, link.link));
        continue;
      }
      ++up;
      if (spec.min_link_speed_gbs && link.speed_gbs.value_or(0) < *spec.min_link_speed_gbs)
        problems.push_back(fmt::format("GPU {} link {} at {} GB/s", gpu.index, link.link, link.speed_gbs.value_or(0)));
    }
    links_up += up;
    if (spec.links_per_gpu && up != *spec.links_per_gpu)
      problems.push_back(fmt::format("GPU {} has {} links up", gpu.index, up));
  }
  // GPUs nvlink -s does not list at all have no NVLink: a failure when links are expected.
  const bool links_expected = spec.links_per_gpu || spec.connection.starts_with("NV");
  const int gpu_count = in.state.facts.gpus.present() ? static_cast<int>(in.state.facts.gpus.value->size()) : in.node.gpu.count;
  if (links_expected && static_cast<int>(nvlink.value->size()) < gpu_count)
    problems.push_back(nvlink.value->empty() ? "nvidia-smi nvlink -s lists no NVLink on any GPU"
                                             : fmt::format("nvlink -s lists {} of {} GPUs", nvlink.value->size(), gpu_count));
  observed.push_back(fmt::format("{} NVLinks up on {} GPUs", links_up, nvlink.value->size()));
  const auto observed_text = util::join(observed, "; ");
  if (!problems.empty())
    return failed(observed_text, expected, util::join(problems, "; ") + ": check the NVLink cabling/NVSwitch trays and the fabric manager");
  return pass(observed_text, expected);
}

// A real all-reduce over every local GPU: the sum must be right, and the bus bandwidth at
// least gpu.nccl_allreduce.min_busbw. With one GPU there is no bus: bandwidth is not judged
// unless the inventory asks for a minimum, which one GPU cannot meet.
CheckResult nccl_allreduce(const CheckInput& in) {
  const auto& spec = in.node.gpu.nccl_allreduce;
  if (!spec) return skipped("gpu.nccl_allreduce is not declared in the inventory");
  if (!spec->enabled) return skipped("gpu.nccl_allreduce.enabled is false in the inventory");
  const auto expected = spec->min_busbw_gbs ? fmt::format("correct sum, busbw >= {} GB/s", *spec->min_busbw_gbs)
                                            : std::string("correct sum (no min_busbw declared)");
  if (!in.nccl_allreduce) return cannot_run("the NCCL all-reduce did not run on the node (verify runs it)");
  const auto result = nccl_allreduce_result(*in.nccl_allreduce);
  if (!result) return cannot_run(result.error().message);
  const auto observed = fmt::format("{} GPUs, {} MiB, {} wrong, busbw {:.1f} GB/s (algbw {:.1f}) via {}", result->gpus,
                                    result->bytes >> 20, result->wrong, result->busbw_gbs, result->algbw_gbs,
                                    in.nccl_allreduce->tool);
  if (result->wrong > 0)
    return failed(observed, expected, fmt::format("{} elements of the sum are wrong: a GPU, NVLink or NCCL is faulty", result->wrong));
  if (in.nccl_allreduce->exit_code != 0)
    return cannot_run(fmt::format("{} exited {}: {}", in.nccl_allreduce->tool, in.nccl_allreduce->exit_code,
                                  util::trim(util::tail_lines(in.nccl_allreduce->output, 2))));
  if (result->gpus < 2) {
    if (spec->min_busbw_gbs)
      return failed(observed, expected, "one GPU has no bus bandwidth (busbw = algbw x 2(n-1)/n = 0): drop min_busbw for 1-GPU nodes");
    return {{}, CheckStatus::pass, observed, expected, "bandwidth not judged: with 1 GPU busbw is 0 by definition"};
  }
  if (spec->min_busbw_gbs && result->busbw_gbs < *spec->min_busbw_gbs)
    return failed(observed, expected, "bus bandwidth below the inventory's minimum: see nvlink_topology, NCCL_* settings, GPU clocks");
  return pass(observed, expected);
}

const std::map<std::string, CheckFunction>& registry() {
  static const std::map<std::string, CheckFunction> checks{
      {"nouveau_not_loaded",
       [](const CheckInput& in) {
         const auto& modules = in.state.facts.loaded_modules;
         if (!modules.present()) return cannot_run(absent_reason(modules, "loaded modules"));
         return module_loaded(in.state.facts, "nouveau") ? failed("nouveau loaded", "not loaded",
                                                                 "blacklist it and rebuild the initramfs, then reboot")
                                                         : pass("not loaded", "not loaded");
       }},
      {"nvidia_loaded",
       [](const CheckInput& in) {
         const auto& modules = in.state.facts.loaded_modules;
         if (!modules.present()) return cannot_run(absent_reason(modules, "loaded modules"));
         return module_loaded(in.state.facts, "nvidia") ? pass("loaded", "loaded") : failed("not loaded", "loaded");
       }},
      {"driver_version",
       [](const CheckInput& in) {
         const auto& wanted = in.inventory.cluster.nvidia.driver_version;
         const auto& loaded = in.state.facts.driver_version;
         if (!loaded.present()) return cannot_run(absent_reason(loaded, "loaded driver"));
         const auto package = in.inventory.cluster.packages.package("driver");
         const auto it = in.state.packages.find(package);
         const std::string installed = it != in.state.packages.end() && it->second.installed ? it->second.version : "";
         const auto observed = fmt::format("loaded {}, package {}", *loaded.value, installed.empty() ? "not installed" : installed);
         if (*loaded.value != wanted) return failed(observed, wanted, "the loaded module differs from the inventory");
         if (!installed.empty() && !version_matches(installed, wanted))
           return failed(observed, wanted, "the installed package differs from the loaded module: reboot");
         return pass(observed, wanted);
       }},
      {"fabricmanager_active",
       [](const CheckInput& in) -> CheckResult {
         if (!has_nvswitch(in.node.gpu)) return no_nvswitch();
         return service_active(in, in.inventory.cluster.packages.service("fabricmanager"));
       }},
      {"fabricmanager_version", check_fabricmanager_version},
      {"gpu_count",
       [](const CheckInput& in) {
         const auto& gpus = in.state.facts.gpus;
         if (!gpus.present()) return cannot_run(absent_reason(gpus, "GPUs"));
         const auto expected = std::to_string(in.node.gpu.count);
         const auto observed = std::to_string(gpus.value->size());
         return observed == expected ? pass(observed, expected) : failed(observed, expected, "a GPU may have fallen off the bus");
       }},
      {"gpu_model", check_gpu_model},
      {"ecc_errors", check_ecc_errors},
      {"row_remap", check_row_remap},
      {"pcie_link", check_pcie_link},
      {"pcie_aer", check_pcie_aer},
      {"persistence_mode", check_persistence_mode},
      {"clock_slowdown", check_clock_slowdown},
      {"gpu_temperature", check_gpu_temperature},
      {"xid_events", check_xid_events},
      {"fabric_state", check_fabric_state},
      {"cuda_version",
       [](const CheckInput& in) {
         const auto& cuda = in.state.facts.cuda_version;
         const auto& wanted = in.inventory.cluster.nvidia.cuda_version;
         if (!cuda.present()) return cannot_run(absent_reason(cuda, "CUDA toolkit"));
         // Whole version components: "12.4" matches 12.4.131, not 12.40.
         const bool same = *cuda.value == wanted || cuda.value->starts_with(wanted + ".");
         return same ? pass(*cuda.value, wanted) : failed(*cuda.value, wanted);
       }},
      {"nccl_present",
       [](const CheckInput& in) {
         const auto& nccl = in.state.facts.nccl_version;
         if (!nccl.present()) return failed("absent", "installed", nccl.absent_reason);
         return pass(*nccl.value, "installed");
       }},
      {"nccl_conf",
       [](const CheckInput& in) -> CheckResult {
         for (const auto& step : in.program.steps)
           for (const auto& resource : step.resources)
             if (resource.resource.kind == ResourceKind::file && resource.resource.file.path == "/etc/nccl.conf") {
               const auto it = in.state.files.find("/etc/nccl.conf");
               if (it == in.state.files.end()) return cannot_run("/etc/nccl.conf was not read");
               if (!it->second.exists) return failed("missing", "rendered from the inventory");
               return it->second.digest == resource.content_digest
                          ? pass("matches the inventory", "rendered from the inventory")
                          : failed("differs", "rendered from the inventory", "run gpuctl plan to see the diff");
             }
         return cannot_run("the program manages no /etc/nccl.conf");
       }},
      {"nvlink_topology", nvlink_topology},
      {"nccl_allreduce", nccl_allreduce},
      {"dcgm_diag", check_dcgm_diag},
      {"ib_ports", check_ib_ports},
      {"nvidia_peermem", check_nvidia_peermem},
      {"nccl_ib_hca", check_nccl_ib_hca},
      {"nccl_socket_ifname", check_nccl_socket_ifname},
      {"slurmd_active", [](const CheckInput& in) { return service_active(in, "slurmd"); }},
      {"slurmd_registered", slurmd_registered},
      {"slurmctld_active", [](const CheckInput& in) { return service_active(in, "slurmctld"); }},
      {"prometheus_active", [](const CheckInput& in) { return service_active(in, "prometheus"); }},
      {"exporters_active",
       [](const CheckInput& in) -> CheckResult {
         std::vector<std::string> services;
         if (in.inventory.cluster.monitoring.dcgm_exporter) services.push_back(dcgm_exporter_service(in.inventory));
         if (in.inventory.cluster.monitoring.node_exporter) services.push_back("prometheus-node-exporter");
         if (services.empty()) return {{}, CheckStatus::skipped, {}, {}, "monitoring disabled in the inventory"};
         for (const auto& service : services) {
           auto result = service_active(in, service);
           if (result.status != CheckStatus::pass) return result;
         }
         return pass(util::join(services, ", ") + " running", "running");
       }},
  };
  return checks;
}

}  // namespace

std::string_view to_string(CheckStatus status) {
  switch (status) {
    case CheckStatus::pass: return "pass";
    case CheckStatus::fail: return "fail";
    case CheckStatus::error: return "error";
    case CheckStatus::skipped: return "skipped";
  }
  return "error";
}

std::string_view grid_label(CheckStatus status) {
  switch (status) {
    case CheckStatus::pass: return "PASS";
    case CheckStatus::fail: return "FAIL";
    case CheckStatus::error: return "ERR";
    case CheckStatus::skipped: return "skip";
  }
  return "?";
}

const std::vector<CheckInfo>& known_checks() {
  static const std::vector<CheckInfo> info{
      {"nouveau_not_loaded", "the nouveau module is not loaded"},
      {"nvidia_loaded", "the nvidia module is loaded"},
      {"driver_version", "loaded driver = installed package = inventory"},
      {"gpu_count", "nvidia-smi sees the inventory's GPU count"},
      {"gpu_model", "every GPU is the inventory's model"},
      {"ecc_errors", "ECC on and no uncorrectable volatile errors"},
      {"row_remap", "no pending retired pages / row remaps, no remap failure"},
      {"pcie_link", "PCIe link at its maximum width"},
      {"pcie_aer", "no uncorrectable PCIe AER error since boot on a GPU or the port above it (sysfs aer_dev_*)"},
      {"persistence_mode", "persistence mode on"},
      {"clock_slowdown", "no GPU's clocks held down by HW slowdown (thermal, power brake) or SW thermal capping"},
      {"gpu_temperature", "every GPU at or below gpu.max_temperature_c"},
      {"xid_events", "no Xid since boot that needs the GPU looked at (application-side Xids are listed)"},
      {"fabricmanager_active", "NVSwitch boards: the fabric manager running"},
      {"fabricmanager_version", "NVSwitch boards: the fabric manager's package at the loaded driver's version"},
      {"fabric_state", "NVSwitch boards: every GPU's fabric registration Completed, Success"},
      {"cuda_version", "CUDA toolkit of the inventory's version"},
      {"nccl_present", "NCCL installed"},
      {"nccl_conf", "/etc/nccl.conf matches the inventory"},
      {"nvlink_topology", "every GPU pair linked as gpu.nvlink declares, every NVLink up"},
      {"nccl_allreduce", "an NCCL all-reduce over all GPUs sums correctly, bus bandwidth >= gpu.nccl_allreduce.min_busbw"},
      {"dcgm_diag", "DCGM's diagnostic (dcgmi diag -r gpu.dcgm_diag.level) passes every test on every GPU"},
      {"ib_ports", "every declared HCA present, its ports ACTIVE/LinkUp at ib.rate and ib.link_layer"},
      {"nvidia_peermem", "nvidia-peermem loaded where ib.gpudirect_rdma is declared (GPUDirect RDMA)"},
      {"nccl_ib_hca", "the HCAs NCCL_IB_HCA selects exist on the node"},
      {"nccl_socket_ifname", "NCCL_SOCKET_IFNAME selects an interface the node has"},
      {"slurmd_active", "slurmd running"},
      {"slurmd_registered", "the node is up in Slurm (not down or drained) with the inventory's GPUs as GRES"},
      {"slurmctld_active", "slurmctld running"},
      {"prometheus_active", "Prometheus running"},
      {"exporters_active", "the DCGM exporter and node-exporter running"},
  };
  return info;
}

std::string check_description(std::string_view name) {
  for (const auto& info : known_checks())
    if (info.name == name) return info.description;
  if (name == k_nccl_nodes_check)
    return "verify --nccl-nodes: an NCCL all-reduce across the node's set of nodes, run through Slurm, sums correctly "
           "(bus bandwidth reported)";
  return {};
}

std::vector<CheckResult> run_checks(const std::vector<std::string>& names, const CheckInput& input) {
  std::vector<CheckResult> results;
  for (const auto& name : names) {
    const auto it = registry().find(name);
    CheckResult result = it == registry().end() ? cannot_run(fmt::format("unknown check '{}'", name)) : it->second(input);
    result.name = name;
    if (result.status == CheckStatus::fail || result.status == CheckStatus::error) cite_source(result, input);
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace gpuctl
