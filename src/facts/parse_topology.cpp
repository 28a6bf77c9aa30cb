// Parsers of `nvidia-smi topo -m` and `nvidia-smi nvlink -s` (facts/parsers.hpp).
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/util/strings.hpp>

#include "parse_util.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace gpuctl::facts {
namespace {

// topo -m underlines its header with ANSI escapes even when not writing to a terminal.
std::string without_escapes(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
      i += 2;
      while (i < text.size() && !(text[i] >= '@' && text[i] <= '~')) ++i;
      continue;
    }
    out += text[i];
  }
  return out;
}

std::vector<std::string> tab_cells(std::string_view line) {
  std::vector<std::string> cells;
  for (const auto& cell : util::split(line, '\t')) cells.emplace_back(util::trim(cell));
  return cells;
}

bool is_device(std::string_view name) {
  // "GPU0", "NIC3", "mlx5_0": a prefix and a number ("GPU NUMA ID" is a column, not a device).
  for (std::string_view prefix : {"GPU", "NIC", "mlx5_", "NVS"})
    if (name.starts_with(prefix) && name.size() > prefix.size() &&
        std::ranges::all_of(name.substr(prefix.size()), [](char c) { return c >= '0' && c <= '9'; }))
      return true;
  return false;
}

// An entry of the matrix as the legend defines it.
bool known_entry(std::string_view entry) {
  if (entry == "X" || entry == "SYS" || entry == "NODE" || entry == "PHB" || entry == "PXB" || entry == "PIX" ||
      entry == "SOC" || entry == "NV")
    return true;
  return entry.starts_with("NV") && detail::to_int(entry.substr(2)).has_value();
}

}  // namespace

Result<TopologyMatrix> parse_topology_matrix(std::string_view text) {
  const auto clean = without_escapes(text);
  TopologyMatrix matrix;
  bool header = false, in_nic_legend = false;
  for (const auto& raw_line : util::split(clean, '\n')) {
    const std::string_view line = raw_line;
    const auto trimmed = util::trim(line);
    if (!header) {
      if (trimmed.empty()) continue;
      // The header starts with a tab (the row-label column is empty) and names the devices.
      const auto cells = tab_cells(line);
      if (cells.empty() || !cells[0].empty())
        return fail(ErrorCode::parse, fmt::format("topo -m: expected the header of device names, got '{}'", trimmed));
      for (std::size_t i = 1; i < cells.size(); ++i)
        if (is_device(cells[i])) matrix.devices.push_back(cells[i]);
      if (matrix.devices.empty()) return fail(ErrorCode::parse, "topo -m: the header names no device");
      header = true;
      continue;
    }
    if (trimmed.starts_with("Legend:")) continue;
    if (trimmed.starts_with("NIC Legend:")) {
      in_nic_legend = true;
      continue;
    }
    if (in_nic_legend) {
      // "  NIC0: mlx5_0"
      const auto colon = trimmed.find(':');
      if (colon != std::string_view::npos && is_device(trimmed.substr(0, colon)))
        matrix.nic_names[std::string(trimmed.substr(0, colon))] = std::string(util::trim(trimmed.substr(colon + 1)));
      continue;
    }
    if (trimmed.empty() || line.starts_with(" ")) continue;  // blank lines and the legend's "  X    = Self"
    const auto cells = tab_cells(line);
    if (!is_device(cells[0])) continue;
    if (std::ranges::find(matrix.devices, cells[0]) == matrix.devices.end())
      return fail(ErrorCode::parse, fmt::format("topo -m: row '{}' is not a column of the header", cells[0]));
    if (cells.size() < matrix.devices.size() + 1)
      return fail(ErrorCode::parse, fmt::format("topo -m: row '{}' has {} entries for {} devices", cells[0],
                                                cells.size() - 1, matrix.devices.size()));
    TopologyRow row;
    row.device = cells[0];
    for (std::size_t i = 1; i <= matrix.devices.size(); ++i) {
      if (!known_entry(cells[i]))
        return fail(ErrorCode::parse, fmt::format("topo -m: row '{}' has entry '{}' for {}, not in the legend",
                                                  cells[0], cells[i], matrix.devices[i - 1]));
      row.links.push_back(cells[i]);
    }
    // The affinity columns: nvidia-smi leaves an empty cell between NUMA Affinity and GPU
    // NUMA ID, so the non-empty cells are taken in order.
    std::vector<std::string> rest;
    for (std::size_t i = matrix.devices.size() + 1; i < cells.size(); ++i)
      if (!cells[i].empty()) rest.push_back(cells[i]);
    if (!rest.empty()) row.cpu_affinity = rest[0];
    if (rest.size() > 1) row.numa_affinity = rest[1];
    if (rest.size() > 2) row.gpu_numa_id = rest[2];
    matrix.rows.push_back(std::move(row));
  }
  if (!header) return fail(ErrorCode::parse, "topo -m: empty output");
  if (matrix.rows.empty()) return fail(ErrorCode::parse, "topo -m: no device rows");
  return matrix;
}

Result<std::vector<NvlinkGpu>> parse_nvlink_status(std::string_view text) {
  std::vector<NvlinkGpu> gpus;
  for (const auto& raw_line : util::split(text, '\n')) {
    const auto line = util::trim(raw_line);
    if (line.empty()) continue;
    if (line.starts_with("GPU ")) {
      // "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-...)"
      const auto colon = line.find(':');
      const auto index = colon == std::string_view::npos ? std::nullopt : detail::to_int(line.substr(4, colon - 4));
      if (!index) return fail(ErrorCode::parse, fmt::format("nvlink -s: cannot read the GPU line '{}'", line));
      NvlinkGpu gpu;
      gpu.index = static_cast<int>(*index);
      auto rest = util::trim(line.substr(colon + 1));
      if (const auto uuid = rest.find("(UUID: "); uuid != std::string_view::npos) {
        const auto close = rest.find(')', uuid);
        gpu.uuid = std::string(rest.substr(uuid + 7, close == std::string_view::npos ? std::string_view::npos : close - uuid - 7));
        rest = util::trim(rest.substr(0, uuid));
      }
      gpu.name = std::string(rest);
      gpus.push_back(std::move(gpu));
      continue;
    }
    if (gpus.empty()) return fail(ErrorCode::parse, fmt::format("nvlink -s: '{}' before any GPU line", line));
    auto& gpu = gpus.back();
    if (line.starts_with("Link ")) {
      // "Link 3: 26.562 GB/s" or "Link 3: <inactive>"
      const auto colon = line.find(':');
      const auto number = colon == std::string_view::npos ? std::nullopt : detail::to_int(line.substr(5, colon - 5));
      if (!number) return fail(ErrorCode::parse, fmt::format("nvlink -s: cannot read the link line '{}'", line));
      NvlinkLink link;
      link.link = static_cast<int>(*number);
      const auto value = util::trim(line.substr(colon + 1));
      if (value == "<inactive>") {
        link.active = false;
      } else if (const auto speed = detail::to_double(detail::strip_unit(value)); speed && value.ends_with("GB/s")) {
        link.active = true;
        link.speed_gbs = *speed;
      } else {
        return fail(ErrorCode::parse, fmt::format("nvlink -s: GPU {} link {} has speed '{}'", gpu.index, link.link, value));
      }
      gpu.links.push_back(link);
      continue;
    }
    gpu.note += (gpu.note.empty() ? "" : "; ") + std::string(line);
  }
  return gpus;
}

}  // namespace gpuctl::facts
