// Each Slurm node's slurm.conf hardware values and gres.conf GPU cores, with their sources
// (plan/slurm_hardware.hpp).
#include <gpuctl/plan/slurm_hardware.hpp>

#include <gpuctl/inventory/hostlist.hpp>
#include <gpuctl/util/strings.hpp>

#include <charconv>
#include <fmt/format.h>
#include <map>
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

// A pin's text as a value: a positive whole number, else nullopt (validate refuses the rest).
std::optional<std::int64_t> pinned_value(std::string_view text) {
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || end != text.data() + text.size() || value <= 0) return std::nullopt;
  return value;
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
      const auto& text = pin->second.second;
      const auto value = pinned_value(text);
      if (!value)
        return fail(ErrorCode::validation,
                    fmt::format("label {} of node {} is '{}', not a positive whole number", pin->second.first, node.name, text),
                    Location{inventory.path, 0, 0, node.name, ""}, "write a number, e.g. slurm.RealMemory: \"1900000\" (MiB)");
      out.values.push_back({std::string(key), *value, "pinned: label " + pin->second.first});
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

namespace {

// "Key=Value" words of a line, keys as written.
std::map<std::string, std::string, std::less<>> line_words(std::string_view line) {
  std::map<std::string, std::string, std::less<>> words;
  for (const auto& word : util::split_words(line))
    if (const auto eq = word.find('='); eq != std::string_view::npos && eq > 0)
      words.emplace(std::string(word.substr(0, eq)), std::string(word.substr(eq + 1)));
  return words;
}

// Whether a line's NodeName= hostlist names `node`.
bool names_node(const std::map<std::string, std::string, std::less<>>& words, const std::string& node) {
  const auto it = words.find("NodeName");
  if (it == words.end()) return false;
  const auto names = hostlist::expand(it->second);
  return names && std::ranges::find(*names, node) != names->end();
}

}  // namespace

std::optional<SlurmNodeHardware> deployed_slurm_hardware(const Node& node, std::string_view slurm_conf,
                                                         std::string_view gres_conf, const std::string& read_on,
                                                         const std::string& why) {
  const auto source = fmt::format("as the deployed slurm.conf has it (read on {}; {} not read: {})", read_on, node.name, why);
  SlurmNodeHardware out;
  for (const auto& line : util::split_lines(slurm_conf)) {
    const auto words = line_words(line);
    if (!line.starts_with("NodeName=") || !names_node(words, node.name)) continue;
    for (const auto key : k_slurm_hardware_keys) {
      const auto it = words.find(key);
      const auto value = it == words.end() ? std::nullopt : pinned_value(it->second);
      if (!value) return std::nullopt;
      out.values.push_back({std::string(key), *value, source});
    }
    break;
  }
  if (out.values.size() != std::size(k_slurm_hardware_keys)) return std::nullopt;
  // Pins win as they do for a node that answers.
  for (const auto& [label, text] : node.labels)
    if (const auto key = pinned_hardware_key(label))
      for (auto& value : out.values)
        if (value.key == *key)
          if (const auto pinned = pinned_value(text)) value = {value.key, *pinned, "pinned: label " + label};
  // gres.conf: one line per GPU with its Cores=, in File= order, where the node had them.
  std::map<int, std::string> cores;
  for (const auto& line : util::split_lines(gres_conf)) {
    const auto words = line_words(line);
    if (!line.starts_with("NodeName=") || !names_node(words, node.name)) continue;
    const auto file = words.find("File"), core = words.find("Cores");
    constexpr std::string_view k_device = "/dev/nvidia";
    if (file == words.end() || core == words.end() || !file->second.starts_with(k_device)) continue;
    int index = -1;
    const auto digits = std::string_view(file->second).substr(k_device.size());
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
    // The file is a node's: only a core list passes into the files gpuctl renders, and in our own form.
    const auto list = facts::parse_cpu_list(core->second);
    if (ec == std::errc{} && end == digits.data() + digits.size() && index >= 0 && list && !list->empty())
      cores[index] = core_ranges(std::set<int>(list->begin(), list->end()));
  }
  if (node.gpu.count > 0 && static_cast<int>(cores.size()) == node.gpu.count && cores.rbegin()->first == node.gpu.count - 1) {
    for (const auto& [index, text] : cores) out.gpu_cores.push_back(text);
    out.gpu_cores_source = source;
  } else if (node.gpu.count > 0) {
    out.gpu_cores_source = "none: " + source;
  }
  return out;
}

}  // namespace gpuctl
