// nvidia-smi text other than --query-gpu: the `-q` memory repair sections (remapped rows,
// retired pages), and the ways nvidia-smi says it could not run.
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/util/strings.hpp>

#include "parse_util.hpp"

#include <fmt/format.h>
#include <vector>

namespace gpuctl::facts {
namespace {

std::size_t indent_of(std::string_view line) {
  const auto first = line.find_first_not_of(' ');
  return first == std::string_view::npos ? line.size() : first;
}

bool contains(std::string_view text, std::string_view needle) { return text.find(needle) != std::string_view::npos; }

// One "key : value" line of a memory section, stored into GpuMemoryRepair; false when the
// value is not of the field's type.
struct MemoryField {
  std::string_view key;         // as -q prints it
  std::string_view query_name;  // the --query-gpu name, the key of GpuMemoryRepair::unreported
  bool (*store)(GpuMemoryRepair&, std::string_view);
};

template <auto Member>
bool store_count(GpuMemoryRepair& repair, std::string_view value) {
  const auto number = detail::to_int(value);
  if (number) repair.*Member = *number;
  return number.has_value();
}

template <auto Member>
bool store_flag(GpuMemoryRepair& repair, std::string_view value) {
  const auto flag = detail::to_bool(value);
  if (flag) repair.*Member = *flag;
  return flag.has_value();
}

struct MemorySection {
  std::string_view title;
  std::vector<MemoryField> fields;
};

// The two -q sections about memory repair. "Pending Page Blacklist" is the retired-pages key
// of current drivers (R331 to R580 at least); older ones print "Pending".
const std::vector<MemorySection>& memory_sections() {
  static const std::vector<MemorySection> sections{
      {"Remapped Rows",
       {{"Correctable Error", "remapped_rows.correctable", &store_count<&GpuMemoryRepair::remapped_correctable>},
        {"Uncorrectable Error", "remapped_rows.uncorrectable", &store_count<&GpuMemoryRepair::remapped_uncorrectable>},
        {"Pending", "remapped_rows.pending", &store_flag<&GpuMemoryRepair::remapped_pending>},
        {"Remapping Failure Occurred", "remapped_rows.failure", &store_flag<&GpuMemoryRepair::remapped_failure>}}},
      {"Retired Pages",
       {{"Single Bit ECC", "retired_pages.sbe", &store_count<&GpuMemoryRepair::retired_single_bit>},
        {"Double Bit ECC", "retired_pages.dbe", &store_count<&GpuMemoryRepair::retired_double_bit>},
        {"Pending Page Blacklist", "retired_pages.pending", &store_flag<&GpuMemoryRepair::retired_pending>},
        {"Pending", "retired_pages.pending", &store_flag<&GpuMemoryRepair::retired_pending>}}},
  };
  return sections;
}

const MemorySection* find_section(std::string_view title) {
  for (const auto& section : memory_sections())
    if (section.title == title) return &section;
  return nullptr;
}

const MemoryField* find_field(const MemorySection& section, std::string_view key) {
  for (const auto& field : section.fields)
    if (field.key == key) return &field;
  return nullptr;
}

}  // namespace

Result<std::map<std::string, GpuMemoryRepair>> parse_memory_repair_q(std::string_view text) {
  std::map<std::string, GpuMemoryRepair> result;
  std::string bus_id;
  bool saw_gpu = false;
  const MemorySection* section = nullptr;  // set while inside one of k_sections
  std::size_t section_indent = 0;
  for (const auto& line : util::split_lines(text)) {
    const auto indent = indent_of(line);
    const auto content = util::trim(line);
    if (content.empty()) continue;
    if (indent == 0 && content.starts_with("GPU ")) {
      bus_id = std::string(util::trim(content.substr(4)));
      saw_gpu = true;
      section = nullptr;
      continue;
    }
    const auto colon = content.find(':');
    const auto key = util::trim(content.substr(0, colon));
    const auto value = colon == std::string_view::npos ? std::string_view{} : util::trim(content.substr(colon + 1));
    if (section && indent <= section_indent) section = nullptr;
    if (!section) {
      const auto* found = saw_gpu ? find_section(key) : nullptr;
      if (!found) continue;
      auto& repair = result[bus_id];
      // "Remapped Rows : N/A" (before Ampere): the whole section has no value.
      if (colon != std::string_view::npos) {
        for (const auto& field : found->fields) repair.unreported[std::string(field.query_name)] = std::string(value);
        continue;
      }
      section = found;
      section_indent = indent;
      continue;
    }
    if (indent != section_indent + 4 || colon == std::string_view::npos) continue;  // deeper: the bank histogram
    const auto* field = find_field(*section, key);
    if (!field) continue;
    auto& repair = result[bus_id];
    if (detail::is_unavailable(value)) {
      repair.unreported[std::string(field->query_name)] = std::string(value);
      continue;
    }
    if (!field->store(repair, value))
      return fail(ErrorCode::parse, fmt::format("GPU {}: {} '{}' = '{}' is not a valid value", bus_id, section->title, key, value));
  }
  if (!saw_gpu) return fail(ErrorCode::parse, "nvidia-smi -q output has no 'GPU <bus id>' section");
  return result;
}

void merge_memory_repair(std::vector<GpuInfo>& gpus, const std::map<std::string, GpuMemoryRepair>& repairs) {
  for (auto& gpu : gpus) {
    const auto it = repairs.find(gpu.pci_bus_id);
    if (it == repairs.end()) continue;
    const auto& repair = it->second;
    const auto fill = [&](std::optional<bool>& into, const std::optional<bool>& from, std::string_view field) {
      if (into) return;
      if (from) {
        into = from;
        if (const auto stale = gpu.unreported.find(field); stale != gpu.unreported.end()) gpu.unreported.erase(stale);
      } else if (const auto raw = repair.unreported.find(field); raw != repair.unreported.end()) {
        gpu.unreported.try_emplace(std::string(field), raw->second);
      }
    };
    fill(gpu.remapped_rows_pending, repair.remapped_pending, "remapped_rows.pending");
    fill(gpu.remapped_rows_failure, repair.remapped_failure, "remapped_rows.failure");
    fill(gpu.retired_pages_pending, repair.retired_pending, "retired_pages.pending");
  }
}

std::optional<std::string> classify_nvidia_smi_failure(int exit_code, std::string_view stdout_text,
                                                       std::string_view stderr_text) {
  const std::string all = std::string(stdout_text) + "\n" + std::string(stderr_text);
  const auto quoted = [&] {
    const auto line = detail::first_line(util::trim(stdout_text).empty() ? stderr_text : stdout_text);
    return line.empty() ? std::string() : ": " + line;
  };
  if (exit_code == 127 || contains(all, "command not found") || contains(all, "nvidia-smi: not found"))
    return "nvidia-smi: command not found (the NVIDIA driver's user-space tools are not installed)";
  if (exit_code == 124) return "nvidia-smi timed out (a GPU or the driver may be hung)";
  if (contains(all, "couldn't communicate with the NVIDIA driver"))
    return "the NVIDIA driver is not loaded" + quoted();
  if (contains(all, "Driver/library version mismatch"))
    return "the loaded NVIDIA kernel module and the installed driver libraries differ (reboot or reload the module)" + quoted();
  if (contains(all, "No devices were found")) return "nvidia-smi found no GPUs" + quoted();
  if (contains(all, "GPU is lost")) return "a GPU is lost (reboot to recover it)" + quoted();
  // One GPU failing: nvidia-smi prints the others' rows, this line, and a row of
  // "[Unknown Error]" for the failing one, then exits non-zero.
  if (const auto at = all.find("Unable to determine the device handle"); at != std::string::npos)
    return "nvidia-smi cannot reach a GPU: " + detail::first_line(std::string_view(all).substr(at));
  if (contains(all, "is not a valid field to query"))
    return "this nvidia-smi does not know a queried field" + quoted();
  if (exit_code != 0) return fmt::format("nvidia-smi exited with status {}{}", exit_code, quoted());
  if (util::trim(stdout_text).empty()) return "nvidia-smi printed nothing";
  return std::nullopt;
}

}  // namespace gpuctl::facts
