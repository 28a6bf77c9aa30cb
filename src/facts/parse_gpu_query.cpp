// nvidia-smi --query-gpu CSV -> GpuInfo. Columns are bound by field name through one table,
// so adding a field is one line here and one in GpuInfo.
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/util/strings.hpp>

#include "parse_util.hpp"

#include <algorithm>
#include <array>
#include <fmt/format.h>

namespace gpuctl::facts {
namespace {

using detail::is_unavailable;
using detail::strip_unit;

// Stores one field's text into a GpuInfo; false when the text is not of the field's type.
// Never called with an unavailable marker: parse_gpu_query() records those as unreported.
using Setter = bool (*)(GpuInfo&, std::string_view);

template <auto Member>
bool set_text(GpuInfo& gpu, std::string_view value) {
  gpu.*Member = std::string(value);
  return true;
}

template <auto Member>
bool set_int64(GpuInfo& gpu, std::string_view value) {
  const auto number = detail::to_int(strip_unit(value));
  if (number) gpu.*Member = *number;
  return number.has_value();
}

template <auto Member>
bool set_int(GpuInfo& gpu, std::string_view value) {
  const auto number = detail::to_int(strip_unit(value));
  if (number) gpu.*Member = static_cast<int>(*number);
  return number.has_value();
}

template <auto Member>
bool set_double(GpuInfo& gpu, std::string_view value) {
  const auto number = detail::to_double(strip_unit(value));
  if (number) gpu.*Member = *number;
  return number.has_value();
}

template <auto Member>
bool set_bool(GpuInfo& gpu, std::string_view value) {
  const auto flag = detail::to_bool(value);
  if (flag) gpu.*Member = *flag;
  return flag.has_value();
}

bool set_index(GpuInfo& gpu, std::string_view value) {
  const auto number = detail::to_int(value);
  if (number) gpu.index = static_cast<int>(*number);
  return number.has_value() && *number >= 0;
}

struct FieldBinding {
  std::string_view name;
  Setter set;
  bool requested;  // part of gpu_query_fields()
};

constexpr std::array k_bindings{
    FieldBinding{"index", &set_index, true},
    FieldBinding{"name", &set_text<&GpuInfo::name>, true},
    FieldBinding{"uuid", &set_text<&GpuInfo::uuid>, true},
    FieldBinding{"serial", &set_text<&GpuInfo::serial>, true},
    FieldBinding{"pci.bus_id", &set_text<&GpuInfo::pci_bus_id>, true},
    FieldBinding{"driver_version", &set_text<&GpuInfo::driver_version>, true},
    FieldBinding{"vbios_version", &set_text<&GpuInfo::vbios_version>, true},
    FieldBinding{"memory.total", &set_int64<&GpuInfo::memory_total_mib>, true},
    FieldBinding{"memory.used", &set_int64<&GpuInfo::memory_used_mib>, true},
    FieldBinding{"persistence_mode", &set_bool<&GpuInfo::persistence_mode>, true},
    FieldBinding{"ecc.mode.current", &set_bool<&GpuInfo::ecc_enabled>, true},
    FieldBinding{"ecc.errors.corrected.volatile.total", &set_int64<&GpuInfo::ecc_volatile_corrected>, true},
    FieldBinding{"ecc.errors.uncorrected.volatile.total", &set_int64<&GpuInfo::ecc_volatile_uncorrected>, true},
    FieldBinding{"ecc.errors.corrected.aggregate.total", &set_int64<&GpuInfo::ecc_aggregate_corrected>, true},
    FieldBinding{"ecc.errors.uncorrected.aggregate.total", &set_int64<&GpuInfo::ecc_aggregate_uncorrected>, true},
    // "Yes"/"No" (pages wait for a reboot to be retired); [N/A] on Ampere and later.
    FieldBinding{"retired_pages.pending", &set_bool<&GpuInfo::retired_pages_pending>, true},
    // Asked through `-q -d ROW_REMAPPER` instead (older drivers reject these fields and a
    // rejected field fails the whole query), but understood when present.
    FieldBinding{"remapped_rows.pending", &set_bool<&GpuInfo::remapped_rows_pending>, false},
    FieldBinding{"remapped_rows.failure", &set_bool<&GpuInfo::remapped_rows_failure>, false},
    FieldBinding{"pcie.link.gen.current", &set_int<&GpuInfo::pcie_gen_current>, true},
    FieldBinding{"pcie.link.gen.max", &set_int<&GpuInfo::pcie_gen_max>, true},
    FieldBinding{"pcie.link.width.current", &set_int<&GpuInfo::pcie_width_current>, true},
    FieldBinding{"pcie.link.width.max", &set_int<&GpuInfo::pcie_width_max>, true},
    FieldBinding{"temperature.gpu", &set_int<&GpuInfo::temperature_c>, true},
    FieldBinding{"power.draw", &set_double<&GpuInfo::power_draw_w>, true},
    FieldBinding{"power.limit", &set_double<&GpuInfo::power_limit_w>, true},
};

constexpr std::array<std::string_view, 23> k_requested_fields = [] {
  std::array<std::string_view, 23> fields{};
  std::size_t n = 0;
  for (const auto& binding : k_bindings)
    if (binding.requested) fields[n++] = binding.name;
  return fields;
}();
static_assert(static_cast<std::size_t>(std::ranges::count_if(k_bindings, &FieldBinding::requested)) == k_requested_fields.size());

// Header names differ from query names: units in brackets and aliases.
std::string canonical_field(std::string_view header) {
  auto name = util::trim(header.substr(0, header.find(" [")));
  if (name == "gpu_name") return "name";
  if (name == "gpu_serial") return "serial";
  if (name == "gpu_uuid") return "uuid";
  if (name == "gpu_bus_id") return "pci.bus_id";
  if (name == "gpu.power.requested_limit") return "power.limit";
  return std::string(name);
}

const FieldBinding* find_binding(std::string_view name) {
  const auto it = std::ranges::find(k_bindings, name, &FieldBinding::name);
  return it == k_bindings.end() ? nullptr : &*it;
}

std::vector<std::string> split_row(std::string_view line) {
  auto cells = util::split(line, ',');
  for (auto& cell : cells) cell = std::string(util::trim(cell));
  return cells;
}

// A header names fields ("memory.total [MiB]"); a data row holds values ("0", "NVIDIA H200").
bool looks_like_header(const std::vector<std::string>& cells) {
  return std::ranges::all_of(cells, [](const std::string& cell) {
    const auto name = canonical_field(cell);
    return !name.empty() && name.front() >= 'a' && name.front() <= 'z' &&
           std::ranges::all_of(name, [](char c) {
             return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '_';
           });
  });
}

}  // namespace

std::span<const std::string_view> gpu_query_fields() { return k_requested_fields; }

std::string gpu_query_command() {
  std::string fields;
  for (const auto field : k_requested_fields) {
    if (!fields.empty()) fields += ',';
    fields += field;
  }
  return "nvidia-smi --query-gpu=" + fields + " --format=csv,nounits";
}

Result<std::vector<GpuInfo>> parse_gpu_query(std::string_view text, std::span<const std::string_view> fields) {
  std::vector<std::string> lines;
  for (auto& line : util::split_lines(text))
    if (!util::trim(line).empty()) lines.push_back(std::move(line));
  if (lines.empty()) return fail(ErrorCode::parse, "nvidia-smi --query-gpu printed no rows");

  std::vector<std::string> columns;
  std::size_t first_row = 0;
  if (auto header = split_row(lines.front()); looks_like_header(header)) {
    for (const auto& cell : header) columns.push_back(canonical_field(cell));
    first_row = 1;
  } else {
    for (const auto field : fields) columns.push_back(canonical_field(field));
  }
  if (std::ranges::find(columns, "index") == columns.end())
    return fail(ErrorCode::parse, "nvidia-smi --query-gpu output has no 'index' column");

  std::vector<GpuInfo> gpus;
  for (std::size_t i = first_row; i < lines.size(); ++i) {
    const auto cells = split_row(lines[i]);
    if (cells.size() != columns.size())
      return fail(ErrorCode::parse, fmt::format("nvidia-smi --query-gpu row {} has {} columns, expected {}: '{}'",
                                                i + 1, cells.size(), columns.size(), lines[i]));
    GpuInfo gpu;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const auto* binding = find_binding(columns[c]);
      if (binding == nullptr) continue;
      // No value: the field stays unset and keeps what nvidia-smi printed. The index is
      // what every other field hangs on, so it must be a number.
      if (is_unavailable(cells[c]) && binding->name != "index") {
        gpu.unreported[std::string(binding->name)] = cells[c];
        continue;
      }
      if (!binding->set(gpu, cells[c]))
        return fail(ErrorCode::parse, fmt::format("nvidia-smi --query-gpu row {}: {} = '{}' is not a valid value",
                                                  i + 1, columns[c], cells[c]));
    }
    gpus.push_back(std::move(gpu));
  }
  if (gpus.empty()) return fail(ErrorCode::parse, "nvidia-smi --query-gpu printed a header but no GPU rows");
  return gpus;
}

}  // namespace gpuctl::facts
