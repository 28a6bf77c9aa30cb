// Each Slurm node's slurm.conf hardware values and gres.conf GPU cores, with their sources
// (plan/slurm_hardware.hpp).
#include <gpuctl/plan/slurm_hardware.hpp>

#include <gpuctl/util/strings.hpp>

#include <charconv>
#include <fmt/format.h>
#include <set>

namespace gpuctl {
namespace {

constexpr std::int64_t k_gib = 1024;

std::int64_t observed_value(const facts::SlurmHardware& h, std::string_view key) {
  if (key == "CPUs") return h.cpus;
  if (key == "Boards") return h.boards;
  if (key == "SocketsPerBoard") return h.sockets_per_board;
  if (key == "CoresPerSocket") return h.cores_per_socket;
  if (key == "ThreadsPerCore") return h.threads_per_core;
  return h.real_memory_mib;
}

// "0,1,2,5,6" -> "0-2,5-6" (sorted, distinct).
std::string core_ranges(const std::set<int>& cores) {
  std::vector<std::string> parts;
  for (auto it = cores.begin(); it != cores.end();) {
    const int first = *it;
    int last = first;
    while (++it != cores.end() && *it == last + 1) last = *it;
    parts.push_back(first == last ? std::to_string(first) : fmt::format("{}-{}", first, last));
  }
  return util::join(parts, ",");
}

// gres.conf Cores= of each GPU: the logical cores of the CPUs sysfs says are local to it.
void derive_gpu_cores(const Node& node, const facts::NodeHardware& observed, SlurmNodeHardware& out) {
  if (node.gpu.count <= 0) return;
  const auto found = static_cast<int>(observed.gpus.size());
  if (found == 0) {
    out.gpu_cores_source = "none: sysfs shows no NVIDIA GPU on the node's PCI bus";
    return;
  }
  if (found != node.gpu.count) {
    out.gpu_cores_source = fmt::format("none: sysfs shows {} NVIDIA GPUs, the inventory declares {}", found, node.gpu.count);
    return;
  }
  std::vector<std::string> cores;
  for (const auto& gpu : observed.gpus) {
    std::set<int> local;
    for (const int cpu : gpu.cpus)
      if (const auto it = observed.core_of_cpu.find(cpu); it != observed.core_of_cpu.end()) local.insert(it->second);
    if (local.empty()) {
      out.gpu_cores_source = fmt::format("none: sysfs gives GPU {} no local CPU that lscpu lists", gpu.pci_address);
      return;
    }
    cores.push_back(core_ranges(local));
  }
  out.gpu_cores = std::move(cores);
  out.gpu_cores_source = "each GPU's local_cpulist (sysfs), as lscpu's cores";
}

}  // namespace

std::int64_t derated_real_memory(std::int64_t mem_total_mib, const SlurmSettings& slurm) {
  const std::int64_t reserve = slurm.memory_reserve_mib > 0
                                   ? slurm.memory_reserve_mib
                                   : (mem_total_mib * slurm.memory_reserve_percent + 99) / 100;  // rounded up
  std::int64_t left = mem_total_mib - reserve;
  if (left >= k_gib) left = left / k_gib * k_gib;
  return std::max<std::int64_t>(left, 1);
}

std::string memory_reserve_text(const SlurmSettings& slurm) {
  return slurm.memory_reserve_mib > 0 ? fmt::format("{} MiB", slurm.memory_reserve_mib)
                                      : fmt::format("{}%", slurm.memory_reserve_percent);
}

Result<SlurmNodeHardware> derive_slurm_hardware(const Inventory& inventory, const Node& node,
                                                const Result<facts::NodeHardware>& observed) {
  const auto& slurm = inventory.cluster.slurm;
  std::map<std::string_view, std::pair<std::string, std::string>> pins;  // key -> (label, value)
  for (const auto& [label, value] : node.labels)
    if (const auto key = pinned_hardware_key(label)) pins[*key] = {label, value};
  SlurmNodeHardware out;
  for (const auto key : k_slurm_hardware_keys) {
    if (const auto pin = pins.find(key); pin != pins.end()) {
      std::int64_t value = 0;
      const auto& text = pin->second.second;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc{} || end != text.data() + text.size() || value <= 0)
        return fail(ErrorCode::validation,
                    fmt::format("label {} of node {} is '{}', not a positive whole number", pin->second.first, node.name, text),
                    Location{inventory.path, 0, 0, node.name, ""}, "write a number, e.g. slurm.RealMemory: \"1900000\" (MiB)");
      out.values.push_back({std::string(key), value, "pinned: label " + pin->second.first});
      continue;
    }
    if (!observed) {
      Location where{inventory.path, 0, 0, node.name, ""};
      return fail(ErrorCode::validation,
                  fmt::format("the hardware of Slurm node {} is not known ({}), so slurm.conf cannot give its {}",
                              node.name, observed.error().message, key),
                  where,
                  fmt::format("make {} reachable, or pin its values with labels slurm.CPUs, slurm.Boards, "
                              "slurm.SocketsPerBoard, slurm.CoresPerSocket, slurm.ThreadsPerCore and slurm.RealMemory",
                              node.name));
    }
    const auto value = observed_value(observed->slurm, key);
    if (key == "RealMemory")
      out.values.push_back({std::string(key), derated_real_memory(value, slurm),
                            fmt::format("{} MiB ({}) less the {} reserve, in whole GiB", value, observed->source,
                                        memory_reserve_text(slurm))});
    else
      out.values.push_back({std::string(key), value, observed->source});
  }
  if (observed) derive_gpu_cores(node, *observed, out);
  else if (node.gpu.count > 0) out.gpu_cores_source = "none: " + observed.error().message;
  return out;
}

}  // namespace gpuctl
