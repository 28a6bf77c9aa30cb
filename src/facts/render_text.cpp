// NodeFacts -> a compact human summary and GPU table for `gpuctl facts`.
#include <gpuctl/facts/json.hpp>

#include <fmt/format.h>

namespace gpuctl::facts {
namespace {

template <typename T>
std::string text_or_absent(const Fact<T>& fact, std::string (*show)(const T&)) {
  return fact.present() ? show(*fact.value) : "absent (" + fact.absent_reason + ")";
}

std::string show_string(const std::string& value) { return value; }

std::string show_uptime(const double& seconds) {
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

}  // namespace

std::string render_facts_text(const NodeFacts& facts) {
  std::string out = fmt::format(
      "{}: {}, kernel {}, up {}\n", facts.node,
      facts.os.present() ? facts.os.value->pretty_name : "os absent (" + facts.os.absent_reason + ")",
      text_or_absent(facts.kernel, show_string), text_or_absent(facts.uptime_s, show_uptime));
  std::string driver = text_or_absent(facts.driver_version, show_string);
  if (facts.driver_open_kernel_module.present()) driver += *facts.driver_open_kernel_module.value ? " (open)" : " (proprietary)";
  out += fmt::format("  driver {}, CUDA {}, NCCL {}\n", driver, text_or_absent(facts.cuda_version, show_string),
                     text_or_absent(facts.nccl_version, show_string));
  out += fmt::format("  modules: {}\n", gpu_modules(facts));
  if (!facts.gpus.present()) return out + fmt::format("  GPUs: absent ({})\n", facts.gpus.absent_reason);
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
  return out;
}

}  // namespace gpuctl::facts
