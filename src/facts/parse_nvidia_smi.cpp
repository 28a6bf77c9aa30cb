// nvidia-smi text other than --query-gpu: `-q` remapped-row sections, and the ways
// nvidia-smi says it could not run.
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/util/strings.hpp>

#include "parse_util.hpp"

#include <fmt/format.h>

namespace gpuctl::facts {
namespace {

std::size_t indent_of(std::string_view line) {
  const auto first = line.find_first_not_of(' ');
  return first == std::string_view::npos ? line.size() : first;
}

bool contains(std::string_view text, std::string_view needle) { return text.find(needle) != std::string_view::npos; }

}  // namespace

Result<std::map<std::string, RemappedRows>> parse_remapped_rows_q(std::string_view text) {
  std::map<std::string, RemappedRows> result;
  std::string bus_id;
  bool saw_gpu = false;
  std::optional<std::size_t> section_indent;  // set while inside "Remapped Rows"
  for (const auto& line : util::split_lines(text)) {
    const auto indent = indent_of(line);
    const auto content = util::trim(line);
    if (content.empty()) continue;
    if (indent == 0 && content.starts_with("GPU ")) {
      bus_id = std::string(util::trim(content.substr(4)));
      saw_gpu = true;
      section_indent.reset();
      continue;
    }
    if (section_indent && indent <= *section_indent) section_indent.reset();
    if (!section_indent) {
      if (content == "Remapped Rows" && saw_gpu) {
        section_indent = indent;
        result[bus_id];
      }
      continue;
    }
    if (indent != *section_indent + 4) continue;  // deeper: the bank histogram
    const auto colon = content.find(':');
    if (colon == std::string_view::npos) continue;
    const auto key = util::trim(content.substr(0, colon));
    const auto value = util::trim(content.substr(colon + 1));
    auto& rows = result[bus_id];
    const auto parse_count = [&](std::optional<std::int64_t>& out) -> Result<void> {
      if (detail::is_unavailable(value)) return {};
      const auto number = detail::to_int(value);
      if (!number) return fail(ErrorCode::parse, fmt::format("GPU {}: remapped rows '{}' = '{}' is not a number", bus_id, key, value));
      out = *number;
      return {};
    };
    const auto parse_flag = [&](std::optional<bool>& out) -> Result<void> {
      if (detail::is_unavailable(value)) return {};
      const auto flag = detail::to_bool(value);
      if (!flag) return fail(ErrorCode::parse, fmt::format("GPU {}: remapped rows '{}' = '{}' is not Yes/No", bus_id, key, value));
      out = *flag;
      return {};
    };
    Result<void> ok;
    if (key == "Correctable Error") ok = parse_count(rows.correctable);
    else if (key == "Uncorrectable Error") ok = parse_count(rows.uncorrectable);
    else if (key == "Pending") ok = parse_flag(rows.pending);
    else if (key == "Remapping Failure Occurred") ok = parse_flag(rows.failure);
    if (!ok) return std::unexpected(ok.error());
  }
  if (!saw_gpu) return fail(ErrorCode::parse, "nvidia-smi -q output has no 'GPU <bus id>' section");
  return result;
}

void merge_remapped_rows(std::vector<GpuInfo>& gpus, const std::map<std::string, RemappedRows>& rows) {
  for (auto& gpu : gpus) {
    const auto it = rows.find(gpu.pci_bus_id);
    if (it == rows.end()) continue;
    if (!gpu.remapped_rows_pending) gpu.remapped_rows_pending = it->second.pending;
    if (!gpu.remapped_rows_failure) gpu.remapped_rows_failure = it->second.failure;
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
  if (contains(all, "is not a valid field to query"))
    return "this nvidia-smi does not know a queried field" + quoted();
  if (exit_code != 0) return fmt::format("nvidia-smi exited with status {}{}", exit_code, quoted());
  if (util::trim(stdout_text).empty()) return "nvidia-smi printed nothing";
  return std::nullopt;
}

}  // namespace gpuctl::facts
