// The facts batch's optional probes that fill NodeFacts' own members: each one's shell, the
// command a failure cites, and its parser (fact_catalog.hpp). `gpuctl facts` runs them all,
// plan none, verify those its checks read.
#include "fact_catalog.hpp"

#include <gpuctl/facts/parsers.hpp>

namespace gpuctl::facts {
namespace {

// `$T` is the batch's `timeout` prefix for nvidia-smi (probe_script.cpp).
std::string nvidia_smi(std::string_view arguments) { return fmt::format("$T nvidia-smi {}", arguments); }

// Merged into each GPU by the gpus probe's parser (collect.cpp): a refinement, no fact of its own.
const FactRegistration k_remapped_rows{{
    .probe = "remapped_rows",
    .command = "nvidia-smi -q -d ROW_REMAPPER",
    .group = FactGroup::builtin,
    .after_gpus = true,
    .shell = [] { return nvidia_smi("-q -d ROW_REMAPPER"); },
}};

// The topology matrix and NVLink states: absent with the reason when nvidia-smi could not
// answer (so the nvlink_topology check is an error, never a silent pass).
const FactRegistration k_topology{{
    .probe = "topology",
    .command = "nvidia-smi topo -m",
    .group = FactGroup::builtin,
    .after_gpus = true,
    .shell = [] { return nvidia_smi("topo -m"); },
    .fill = [](NodeFacts& facts, const Probes& probes) {
      facts.topology = parse_fact<TopologyMatrix>(probes, "topology", "nvidia-smi topo -m", parse_topology_matrix);
    },
}};

const FactRegistration k_nvlink{{
    .probe = "nvlink",
    .command = "nvidia-smi nvlink -s",
    .group = FactGroup::builtin,
    .after_gpus = true,
    .shell = [] { return nvidia_smi("nvlink -s"); },
    .fill = [](NodeFacts& facts, const Probes& probes) {
      facts.nvlink = parse_fact<std::vector<NvlinkGpu>>(probes, "nvlink", "nvidia-smi nvlink -s", parse_nvlink_status);
    },
}};

// Verify's health facts; absent with the reason when their probe did not run or failed, so
// the health checks are errors then, never passes.
const FactRegistration k_clock_events{{
    .probe = "clock_events",
    .group = FactGroup::builtin,
    .after_gpus = true,
    .shell = [] { return "$T " + clock_events_command(); },
    .fill = [](NodeFacts& facts, const Probes& probes) {
      facts.clock_events = parse_fact<std::vector<GpuClockEvents>>(probes, "clock_events",
                                                                   "nvidia-smi clock event reasons", parse_clock_events);
    },
}};

const FactRegistration k_fabric{{
    .probe = "fabric",
    .command = "nvidia-smi -q (each GPU's Fabric section)",
    .group = FactGroup::builtin,
    .after_gpus = true,
    .shell = [] { return probe_shell("fabric"); },
    .fill = [](NodeFacts& facts, const Probes& probes) {
      facts.fabric = parse_fact<std::vector<GpuFabric>>(probes, "fabric", "nvidia-smi -q fabric", parse_fabric);
    },
}};

// One read of the kernel log for two facts: the Xids/SXids and the peer-memory module's errors.
template <typename T, typename Parse>
Fact<T> kernel_log_fact(const Probes& probes, Parse parse) {
  if (auto failure = probe_failure(probes, "kernel_xids", "dmesg")) return Fact<T>::absent(std::move(*failure));
  auto value = parse(probes.at("kernel_xids").out);
  if (value) return Fact<T>::of(std::move(*value));
  // dmesg's own refusal ("read kernel buffer failed: Operation not permitted") says it best.
  return Fact<T>::absent(value.error().message + " (reading the kernel log needs root: connection.become)");
}

const FactRegistration k_kernel_xids{{
    .probe = "kernel_xids",
    .command = "dmesg | grep -e 'NVRM: Xid' -e 'SXid (' -e 'nvidia_peermem: ' -e 'nv_peer_mem: '",
    .group = FactGroup::builtin,
    .shell = [] { return probe_shell("kernel_xids"); },
    .fill = [](NodeFacts& facts, const Probes& probes) {
      facts.xid_events = kernel_log_fact<std::vector<XidEvent>>(probes, parse_kernel_xids);
      facts.peermem_kernel_errors = kernel_log_fact<std::vector<std::string>>(probes, parse_peermem_kernel_errors);
    },
}};

// The node's RDMA ports; an empty list when it has none (no /sys/class/infiniband).
const FactRegistration k_infiniband{{
    .probe = "infiniband",
    .command = "grep . /sys/class/infiniband/*/ports/*/{state,phys_state,rate,link_layer}",
    .group = FactGroup::builtin,
    .shell = [] { return probe_shell("infiniband"); },
    .fill = [](NodeFacts& facts, const Probes& probes) {
      facts.infiniband = parse_fact<std::vector<InfinibandPort>>(probes, "infiniband", "/sys/class/infiniband",
                                                                 parse_infiniband_ports);
    },
}};

// The node's network interfaces (never empty: lo is always there).
const FactRegistration k_net_interfaces{{
    .probe = "net_interfaces",
    .command = "grep . /sys/class/net/*/operstate; ip -o addr show (without ip: cat /proc/net/if_inet6)",
    .group = FactGroup::builtin,
    .shell = [] { return probe_shell("net_interfaces"); },
    .fill = [](NodeFacts& facts, const Probes& probes) {
      facts.net_interfaces = parse_fact<std::vector<NetInterface>>(probes, "net_interfaces", "/sys/class/net",
                                                                   parse_net_interfaces);
    },
}};

// Each GPU's PCIe AER counters; absent when a file that exists could not be read (grep failed).
const FactRegistration k_pcie_aer{{
    .probe = "pcie_aer",
    .command = "grep . /sys/bus/pci/devices/<GPU>/aer_dev_{correctable,fatal,nonfatal} (each GPU of "
               "/proc/driver/nvidia/gpus, and the port above it: /sys/bus/pci/devices/<GPU>/..)",
    .group = FactGroup::builtin,
    .shell = [] { return probe_shell("pcie_aer"); },
    .fill = [](NodeFacts& facts, const Probes& probes) {
      facts.pcie_aer = parse_fact<std::vector<GpuPcieAer>>(probes, "pcie_aer", "PCIe AER counters in sysfs", parse_pcie_aer);
    },
}};

}  // namespace
}  // namespace gpuctl::facts
