// NodeFacts -> a compact human summary and GPU table for `gpuctl facts`.
#include "fact_catalog.hpp"

#include <gpuctl/facts/json.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>
#include <map>
#include <vector>

namespace gpuctl::facts {
namespace {

template <typename T>
std::string text_or_absent(const Fact<T>& fact, std::string (*show)(const T&)) {
  return fact.present() ? show(*fact.value) : "absent (" + fact.absent_reason + ")";
}

std::string show_string(const std::string& value) { return value; }

std::string show_uptime(const double& seconds) {
  // A node prints /proc/uptime: a value past any real uptime (3.5e33, found by fuzzing) would
  // not fit the integer below (undefined behaviour), so it is shown as it was read.
  if (!(seconds >= 0 && seconds < 1e15)) return fmt::format("{} s", seconds);
  const auto total = static_cast<long long>(seconds);
  if (total >= 86400) return fmt::format("{}d {}h", total / 86400, total % 86400 / 3600);
  return fmt::format("{}h {}m", total / 3600, total % 3600 / 60);
}

template <typename T>
std::string opt(const std::optional<T>& value, std::string_view suffix = "") {
  return value ? fmt::format("{}{}", *value, suffix) : "-";
}

std::string flag(const std::optional<bool>& value, std::string_view yes = "on", std::string_view no = "off") {
  return value ? std::string(*value ? yes : no) : "-";
}

std::string gpu_modules(const NodeFacts& facts) {
  if (!facts.loaded_modules.present()) return "absent (" + facts.loaded_modules.absent_reason + ")";
  std::string out;
  for (const auto& name : *facts.loaded_modules.value)
    if (name.starts_with("nvidia") || name == "nouveau") out += (out.empty() ? "" : " ") + name;
  return out.empty() ? "no nvidia/nouveau module loaded" : out;
}

// ", from package nvidia-utils-580", ", not from a package (...)": who installed nvidia-smi.
std::string driver_origin_text(const NodeFacts& facts) {
  if (!facts.driver_origin.present()) return fmt::format(", origin absent ({})", facts.driver_origin.absent_reason);
  const auto& origin = *facts.driver_origin.value;
  std::string marks;
  for (const auto& mark : origin.runfile_marks) marks += (marks.empty() ? "" : " and ") + mark;
  const std::string note = origin.note.empty() ? "" : "; " + origin.note;
  switch (origin.kind) {
    case DriverOrigin::Kind::package:
      return fmt::format(", from package {}{}{}", origin.package, note,
                         marks.empty() ? "" : " (NVIDIA's runfile has left " + marks + " too)");
    case DriverOrigin::Kind::runfile:
      return fmt::format(", from NVIDIA's runfile ({} is owned by no dpkg package; {} {}{})", origin.path, marks,
                         origin.runfile_marks.size() == 1 ? "exists" : "exist", note);
    case DriverOrigin::Kind::unpackaged:
      return fmt::format(", not from a package (nvidia-smi at {} is owned by no dpkg package{})", origin.path, note);
    case DriverOrigin::Kind::no_user_space:
      return facts.driver_version.present()
                 ? ", no nvidia-smi on the host (the kernel module is loaded: a driver container, such as the GPU Operator's?)"
                 : ", no nvidia-smi on the host";
  }
  return {};
}

// "GPU0-GPU1 NV18 (all 28 pairs)" when uniform, else every pair; then the links per GPU.
std::string nvlink_summary(const NodeFacts& facts) {
  std::string out;
  if (!facts.topology.present()) {
    out += fmt::format("  topology: absent ({})\n", facts.topology.absent_reason);
  } else {
    const auto gpus = facts.topology.value->gpus();
    std::map<std::string, int> kinds;
    for (std::size_t a = 0; a < gpus.size(); ++a)
      for (std::size_t b = a + 1; b < gpus.size(); ++b) ++kinds[facts.topology.value->link(gpus[a], gpus[b])];
    std::string pairs;
    for (const auto& [kind, count] : kinds) pairs += fmt::format("{}{} x{}", pairs.empty() ? "" : ", ", kind, count);
    out += fmt::format("  topology: {} GPUs, GPU pairs: {}\n", gpus.size(), pairs.empty() ? "none" : pairs);
  }
  if (!facts.nvlink.present()) return out + fmt::format("  NVLink: absent ({})\n", facts.nvlink.absent_reason);
  if (facts.nvlink.value->empty()) return out + "  NVLink: no GPU lists a link (nvidia-smi nvlink -s printed nothing)\n";
  for (const auto& gpu : *facts.nvlink.value) {
    int active = 0;
    std::map<double, int> speeds;
    for (const auto& link : gpu.links)
      if (link.active) ++active, ++speeds[link.speed_gbs.value_or(0)];
    std::string speed_text;
    for (const auto& [speed, count] : speeds) speed_text += fmt::format("{}{} x {} GB/s", speed_text.empty() ? "" : ", ", count, speed);
    out += fmt::format("  NVLink GPU {}: {} of {} links active{}{}\n", gpu.index, active, gpu.links.size(),
                       speed_text.empty() ? "" : " (" + speed_text + ")", gpu.note.empty() ? "" : "; " + gpu.note);
  }
  return out;
}

// One line per RDMA port; "no HCAs" when the node has none.
std::string infiniband_summary(const NodeFacts& facts) {
  if (!facts.infiniband.present()) return fmt::format("  InfiniBand: absent ({})\n", facts.infiniband.absent_reason);
  if (facts.infiniband.value->empty()) return "  InfiniBand: no HCAs\n";
  std::string out;
  const auto known = [](const std::string& text) { return text.empty() ? std::string("?") : text; };
  for (const auto& p : *facts.infiniband.value)
    out += fmt::format("  InfiniBand {}:{}: {} {}, {}, {}\n", p.hca, p.port, known(p.state), known(p.phys_state),
                       known(p.rate), known(p.link_layer));
  return out;
}

// The interfaces on one line with their operstate and first address: "eth0 (up, 192.0.2.2/24),
// lo (unknown, 127.0.0.1/8 +1)".
std::string net_interfaces_summary(const NodeFacts& facts) {
  if (!facts.net_interfaces.present())
    return fmt::format("  network interfaces: absent ({})\n", facts.net_interfaces.absent_reason);
  std::vector<std::string> names;
  for (const auto& interface : *facts.net_interfaces.value)
    names.push_back(interface.summary());
  return fmt::format("  network interfaces: {}\n", util::join(names, ", "));
}

// One line per GPU, and per port above one, that has AER statistics, with its totals; one line
// when none has.
// The lines of the facts fact files declare (fact_catalog.hpp), each in its file's words.
std::string declared_facts_summary(const NodeFacts& facts) {
  std::string out;
  for (const auto* fact : fact_catalog())
    if (fact->to_text) out += fact->to_text(facts);
  return out;
}

std::string pcie_aer_summary(const NodeFacts& facts) {
  if (!facts.pcie_aer.present()) return fmt::format("  PCIe AER: absent ({})\n", facts.pcie_aer.absent_reason);
  std::string out;
  const auto total = [](const std::optional<AerCounts>& counts) {
    return counts ? std::to_string(counts->total) : std::string("-");
  };
  const auto line = [&](std::string_view label, const auto& function) {
    if (!function.correctable && !function.fatal && !function.nonfatal) return;
    out += fmt::format("  PCIe AER {}: correctable {}, non-fatal {}, fatal {}\n", label, total(function.correctable),
                       total(function.nonfatal), total(function.fatal));
  };
  for (const auto& gpu : *facts.pcie_aer.value) {
    line(gpu.bus_id, gpu);
    if (gpu.upstream_port) line(fmt::format("{} (port above {})", gpu.upstream_port->bus_id, gpu.bus_id), *gpu.upstream_port);
  }
  if (out.empty() && !facts.pcie_aer.value->empty()) out = "  PCIe AER: no AER statistics in sysfs for the GPUs\n";
  return out;
}

}  // namespace

std::string render_facts_text(const NodeFacts& facts) {
  std::string out = fmt::format(
      "{}: {}, kernel {}, up {}\n", facts.node,
      facts.os.present() ? facts.os.value->pretty_name : "os absent (" + facts.os.absent_reason + ")",
      text_or_absent(facts.kernel, show_string), text_or_absent(facts.uptime_s, show_uptime));
  std::string driver = text_or_absent(facts.driver_version, show_string);
  if (facts.driver_open_kernel_module.present()) driver += *facts.driver_open_kernel_module.value ? " (open)" : " (proprietary)";
  driver += driver_origin_text(facts);
  out += fmt::format("  driver {}, CUDA {}, NCCL {}\n", driver, text_or_absent(facts.cuda_version, show_string),
                     text_or_absent(facts.nccl_version, show_string));
  out += fmt::format("  modules: {}\n", gpu_modules(facts));
  if (!facts.gpus.present())
    return out + fmt::format("  GPUs: absent ({})\n", facts.gpus.absent_reason) + pcie_aer_summary(facts) +
           infiniband_summary(facts) + net_interfaces_summary(facts) + declared_facts_summary(facts);
  out += fmt::format("  {:<3} {:<14} {:<17} {:>10} {:<7} {:<4} {:<11} {:<7} {:<11} {:>5} {:>8}\n", "GPU", "NAME",
                     "BUS ID", "MEMORY", "PERSIST", "ECC", "UNCORR V/A", "REMAP", "PCIE", "TEMP", "POWER");
  for (const auto& gpu : *facts.gpus.value) {
    std::string remap = gpu.remapped_rows_failure.value_or(false) ? "FAILED"
                        : gpu.remapped_rows_pending.value_or(false) ? "pending"
                                                                    : flag(gpu.remapped_rows_pending, "pending", "ok");
    out += fmt::format("  {:<3} {:<14} {:<17} {:>10} {:<7} {:<4} {:<11} {:<7} {:<11} {:>5} {:>8}\n", gpu.index,
                       gpu.name, gpu.pci_bus_id, opt(gpu.memory_total_mib, " MiB"), flag(gpu.persistence_mode),
                       flag(gpu.ecc_enabled),
                       opt(gpu.ecc_volatile_uncorrected) + "/" + opt(gpu.ecc_aggregate_uncorrected), remap,
                       opt(gpu.pcie_gen_current) + "x" + opt(gpu.pcie_width_current) + "/" + opt(gpu.pcie_gen_max) +
                           "x" + opt(gpu.pcie_width_max),
                       opt(gpu.temperature_c, "C"),
                       gpu.power_draw_w ? fmt::format("{:.1f} W", *gpu.power_draw_w) : std::string("-"));
  }
  // Values nvidia-smi failed to read ("[Unknown Error]"); "[N/A]" is routine and left out.
  for (const auto& gpu : *facts.gpus.value) {
    std::string failed;
    for (const auto& [field, raw] : gpu.unreported)
      if (!is_not_applicable(raw)) failed += fmt::format("{}{} = {}", failed.empty() ? "" : ", ", field, raw.empty() ? "(empty)" : raw);
    if (!failed.empty()) out += fmt::format("  GPU {} unreadable: {}\n", gpu.index, failed);
  }
  return out + nvlink_summary(facts) + pcie_aer_summary(facts) + infiniband_summary(facts) +
         net_interfaces_summary(facts) + declared_facts_summary(facts);
}

}  // namespace gpuctl::facts
