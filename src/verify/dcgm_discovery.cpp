// DCGM's GPU ids from `dcgmi discovery -l`: replace-gpu limits DCGM's diagnostic to the new
// cards with `dcgmi diag -i`, which takes DCGM's ids, and those are DCGM's own numbering.
#include <gpuctl/verify/dcgm_diag.hpp>

#include <gpuctl/util/strings.hpp>

#include <charconv>
#include <fmt/format.h>

namespace gpuctl {
namespace {

std::optional<int> gpu_id(std::string_view text) {
  text = util::trim(text);
  int value = -1;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

// The id a line opens: "| 3      | Name: ..." (the table) or "GPU ID: 3" (the list).
std::optional<int> id_of_line(std::string_view line) {
  if (line.starts_with("GPU ID:")) return gpu_id(line.substr(7));
  if (!line.starts_with("|")) return std::nullopt;
  const auto end = line.find('|', 1);
  if (end == std::string_view::npos) return std::nullopt;
  return gpu_id(line.substr(1, end - 1));
}

// The UUID a line names: "Device UUID: GPU-..." anywhere in it (inside the table's cell too).
std::string uuid_of_line(std::string_view line) {
  constexpr std::string_view key = "Device UUID:";
  const auto at = line.find(key);
  if (at == std::string_view::npos) return {};
  auto rest = util::trim(line.substr(at + key.size()));
  const auto end = rest.find_first_of(" |");
  return std::string(rest.substr(0, end));
}

}  // namespace

Result<std::vector<std::pair<std::string, int>>> parse_dcgm_discovery(std::string_view output) {
  std::vector<std::pair<std::string, int>> gpus;
  std::optional<int> current;
  for (const auto& line : util::split_lines(output)) {
    const std::string_view text = util::trim(line);
    if (text.ends_with("NvSwitches found.") || text.ends_with("NvSwitch found.")) break;  // other entities follow
    if (const auto id = id_of_line(text)) current = id;
    const auto uuid = uuid_of_line(text);
    if (!uuid.empty() && current) {
      gpus.emplace_back(uuid, *current);
      current.reset();
    }
  }
  if (gpus.empty())
    return fail(ErrorCode::parse, fmt::format("dcgmi discovery -l listed no GPU: {}", util::trim(util::tail_lines(output, 3))));
  return gpus;
}

}  // namespace gpuctl
