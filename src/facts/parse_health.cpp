// Parsers of verify's health probes: why the clocks are held down, the NVSwitch fabric's
// registration and health, and the kernel log's Xid, SXid and peer-memory lines. Pure.
#include "parse_util.hpp"

#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

namespace gpuctl::facts {
namespace {

using detail::is_unavailable;

constexpr std::string_view k_clock_fields =
    "pci.bus_id,clocks_throttle_reasons.hw_slowdown,clocks_throttle_reasons.hw_thermal_slowdown,"
    "clocks_throttle_reasons.hw_power_brake_slowdown,clocks_throttle_reasons.sw_thermal_slowdown";

Error malformed(std::string_view what, std::string_view line) {
  return Error{ErrorCode::parse, fmt::format("{}: unexpected line '{}'", what, line), {}, {}};
}

// The rows of a `--format=csv,noheader` query, each cut into exactly `cells` trimmed cells.
Result<std::vector<std::vector<std::string>>> csv_rows(std::string_view text, std::size_t cells, std::string_view what) {
  std::vector<std::vector<std::string>> rows;
  for (const auto& line : util::split_lines(text)) {
    if (util::trim(line).empty()) continue;
    std::vector<std::string> row;
    for (const auto& cell : util::split(line, ',')) row.push_back(std::string(util::trim(cell)));
    if (row.size() != cells) return std::unexpected(malformed(what, line));
    rows.push_back(std::move(row));
  }
  if (rows.empty()) return std::unexpected(Error{ErrorCode::parse, fmt::format("{}: no GPU rows", what), {}, {}});
  return rows;
}

// "Active" / "Not Active"; a bracketed or plain N/A-like value is no answer.
Result<std::optional<bool>> active(std::string_view cell, std::string_view line) {
  if (cell == "Active") return std::optional<bool>(true);
  if (cell == "Not Active") return std::optional<bool>(false);
  if (is_unavailable(cell)) return std::optional<bool>();
  return std::unexpected(malformed("nvidia-smi clock event reasons", line));
}

}  // namespace

std::string clock_events_command() {
  return fmt::format("nvidia-smi --query-gpu={} --format=csv,noheader", k_clock_fields);
}

Result<std::vector<GpuClockEvents>> parse_clock_events(std::string_view text) {
  auto rows = csv_rows(text, 5, "nvidia-smi clock event reasons");
  if (!rows) return std::unexpected(rows.error());
  std::vector<GpuClockEvents> gpus;
  for (const auto& row : *rows) {
    GpuClockEvents gpu;
    gpu.pci_bus_id = row[0];
    const std::string line = util::join(row, ", ");
    std::optional<bool>* fields[] = {&gpu.hw_slowdown, &gpu.hw_thermal_slowdown, &gpu.hw_power_brake_slowdown,
                                     &gpu.sw_thermal_slowdown};
    for (std::size_t i = 0; i < 4; ++i) {
      auto value = active(row[i + 1], line);
      if (!value) return std::unexpected(value.error());
      *fields[i] = *value;
    }
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

// The fabric fields live only in `-q` (the CSV query has no health field); the probe's shell
// (src/facts/probes/fabric.sh) keeps only the GPU lines and their Fabric sections.
std::string fabric_command() { return "nvidia-smi -q"; }

Result<std::vector<GpuFabric>> parse_fabric(std::string_view text) {
  std::vector<GpuFabric> gpus;
  enum class In { other, fabric, health } in = In::other;
  std::optional<int> rc;      // the probe's "@@smi-rc N"; plain `-q` text has none
  std::string first_words;    // nvidia-smi's first line, for a failure
  for (const auto& line : util::split_lines(text)) {
    const auto indent = line.find_first_not_of(' ');
    if (indent == std::string::npos) continue;
    const auto content = util::trim(line);
    if (line.starts_with("@@smi-rc ")) {
      const auto value = detail::to_int(util::trim(line.substr(9)));
      if (!value) return std::unexpected(malformed("nvidia-smi -q", line));
      rc = static_cast<int>(*value);
      continue;
    }
    if (first_words.empty() && indent == 0 && !content.starts_with("=")) first_words = std::string(content);
    if (indent == 0 && content.starts_with("GPU ")) {
      gpus.push_back({std::string(util::trim(content.substr(4))), "N/A", "N/A", false});
      in = In::other;
      continue;
    }
    if (gpus.empty()) continue;
    if (indent <= 4) in = indent == 4 && content == "Fabric" ? In::fabric : In::other;
    else if (in == In::health && indent <= 8) in = In::fabric;
    if (in == In::other || (indent == 4 && content == "Fabric")) continue;
    if (indent == 8 && content == "Health") {
      in = In::health;
      continue;
    }
    const auto colon = content.find(':');
    if (colon == std::string_view::npos) return std::unexpected(malformed("nvidia-smi -q Fabric section", line));
    const auto key = std::string(util::trim(content.substr(0, colon)));
    auto value = std::string(util::trim(content.substr(colon + 1)));
    auto& gpu = gpus.back();
    if (in == In::health) gpu.health.emplace_back(key, std::move(value));
    else if (key == "State") {
      gpu.state_reported = !is_unavailable(value);
      gpu.state = std::move(value);
    } else if (key == "Status") gpu.status = std::move(value);
    else if (key == "CliqueId") gpu.clique_id = std::move(value);
    else if (key == "ClusterUUID") gpu.cluster_uuid = std::move(value);
  }
  if (rc && *rc != 0)
    return std::unexpected(Error{ErrorCode::parse, fmt::format("nvidia-smi -q exited {}: {}", *rc, first_words), {}, {}});
  if (gpus.empty()) return std::unexpected(Error{ErrorCode::parse, "nvidia-smi -q printed no 'GPU <bus id>' section", {}, {}});
  return gpus;
}

namespace {

constexpr std::string_view k_peermem_modules[] = {"nvidia_peermem: ", "nv_peer_mem: "};

// "nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 63 ...": the NVSwitch driver's
// format (nvswitch's NVSWITCH_PRINT_SXID: "SXid (PCI:%s): %05d, " then the event's words).
// Nullopt for the event's follow-up lines ("Severity 1 ...", "Data {...}"); error: no code.
// What follows "Xid (" or "SXid (": "PCI:0000:b3:00): 79, the rest". The event with its PCI
// address and code, and the text after the code's comma (none without one); nullopt when the
// line has no such head.
struct EventHead {
  XidEvent event;
  std::optional<std::string_view> after_code;
};
std::optional<EventHead> parse_event_head(std::string_view rest) {
  const auto close = rest.find("): ");
  if (close == std::string_view::npos) return std::nullopt;
  EventHead head;
  auto pci = rest.substr(0, close);
  if (pci.starts_with("PCI:")) pci.remove_prefix(4);
  head.event.pci = std::string(pci);
  rest.remove_prefix(close + 3);
  const auto comma = rest.find(',');
  const auto code = detail::to_int(util::trim(rest.substr(0, comma)));
  if (!code || *code < 0) return std::nullopt;
  head.event.code = static_cast<int>(*code);
  if (comma != std::string_view::npos) head.after_code = rest.substr(comma + 1);
  return head;
}

Result<std::optional<XidEvent>> parse_sxid_line(std::string_view line, std::size_t at) {
  auto head = parse_event_head(line.substr(at + 6));
  if (!head || !head->after_code) return std::unexpected(malformed("dmesg SXid line", line));
  XidEvent event = std::move(head->event);
  event.nvswitch = true;
  auto rest = *head->after_code;
  const auto next = rest.find(',');
  const auto severity = util::trim(rest.substr(0, next));
  if (severity == "Fatal") event.fatal = true;
  else if (severity == "Non-fatal") event.fatal = false;
  else return std::optional<XidEvent>();
  if (next != std::string_view::npos) event.message = std::string(util::trim(rest.substr(next + 1)));
  return std::optional<XidEvent>(std::move(event));
}

// "[ 1234.567890] NVRM: ..." -> 1234.56789; nullopt for journalctl's form or no timestamp.
std::optional<double> dmesg_timestamp(std::string_view line) {
  if (!line.starts_with('[')) return std::nullopt;
  const auto close = line.find(']');
  if (close == std::string_view::npos) return std::nullopt;
  const auto inner = util::trim(line.substr(1, close - 1));
  const auto dot = inner.find('.');
  const auto whole = detail::to_int(inner.substr(0, dot));
  if (!whole || *whole < 0) return std::nullopt;
  double value = static_cast<double>(*whole);
  if (dot != std::string_view::npos) {
    double scale = 0.1;
    for (const char c : inner.substr(dot + 1)) {
      if (c < '0' || c > '9') return std::nullopt;
      value += (c - '0') * scale;
      scale /= 10;
    }
  }
  return value;
}

// A reset gpuctl recorded in this boot: "UPTIME PCI" (the probe keeps only this boot's lines).
struct ResetRecord {
  double uptime_s = 0;
  std::string pci;  // the Xid line's form, "0000:b3:00", or "all"
};

std::optional<ResetRecord> parse_reset_record(std::string_view rest) {
  const auto fields = util::split_words(rest);
  if (fields.size() != 2) return std::nullopt;
  const auto uptime = dmesg_timestamp(fmt::format("[{}]", fields[0]));
  if (!uptime) return std::nullopt;
  return ResetRecord{*uptime, std::string(fields[1])};
}

bool is_peermem_line(std::string_view line) {
  for (const auto module : k_peermem_modules)
    if (line.find(module) != std::string_view::npos) return true;
  return false;
}

// The probe's rc line, or why the read is no answer.
Result<void> dmesg_answered(std::optional<int> rc, const std::vector<std::string>& complaints) {
  if (!rc) return std::unexpected(Error{ErrorCode::parse, "dmesg: the kernel-log probe was cut short", {}, {}});
  if (*rc != 0)
    return std::unexpected(Error{ErrorCode::parse,
                                 complaints.empty() ? fmt::format("dmesg exited {}", *rc)
                                                    : fmt::format("dmesg exited {}: {}", *rc, complaints.front()),
                                 {}, {}});
  return {};
}

}  // namespace

Result<std::vector<std::string>> parse_peermem_kernel_errors(std::string_view text) {
  std::vector<std::string> lines;
  std::optional<int> rc;
  std::vector<std::string> complaints;
  for (const auto& line : util::split_lines(text)) {
    if (line.starts_with("@@dmesg-rc ")) {
      rc = static_cast<int>(detail::to_int(util::trim(line.substr(11))).value_or(-1));
      continue;
    }
    if (line.starts_with("@@gpu-reset ")) continue;
    std::size_t at = std::string::npos;
    for (const auto module : k_peermem_modules)
      if (at == std::string::npos) at = line.find(module);
    if (at == std::string::npos) {
      if (line.find("NVRM: ") == std::string::npos && line.find("SXid") == std::string::npos && !util::trim(line).empty())
        complaints.push_back(std::string(util::trim(line)));
      continue;
    }
    const std::string_view text_line = std::string_view(line).substr(at);
    if (text_line.find("disagrees about version of symbol") != std::string_view::npos ||
        text_line.find("Unknown symbol") != std::string_view::npos)
      lines.emplace_back(util::trim(text_line));
  }
  if (auto answered = dmesg_answered(rc, complaints); !answered) return std::unexpected(answered.error());
  return lines;
}

Result<std::vector<XidEvent>> parse_kernel_xids(std::string_view text) {
  std::vector<XidEvent> events;
  std::vector<ResetRecord> resets;
  std::optional<int> rc;
  std::vector<std::string> complaints;  // dmesg's own words when it fails
  for (const auto& line : util::split_lines(text)) {
    if (line.starts_with("@@gpu-reset ")) {
      auto record = parse_reset_record(std::string_view(line).substr(12));
      if (!record) return std::unexpected(malformed("gpuctl's GPU reset record", line));
      resets.push_back(std::move(*record));
      continue;
    }
    if (line.starts_with("@@dmesg-rc ")) {
      const auto value = detail::to_int(util::trim(line.substr(11)));
      if (!value) return std::unexpected(malformed("dmesg", line));
      rc = static_cast<int>(*value);
      continue;
    }
    if (const auto sxid = line.find("SXid ("); sxid != std::string::npos && line.find("NVRM: Xid (") == std::string::npos) {
      auto event = parse_sxid_line(line, sxid);
      if (!event) return std::unexpected(event.error());
      if (*event) {
        (*event)->uptime_s = dmesg_timestamp(line);
        events.push_back(std::move(**event));
      }
      continue;
    }
    const auto at = line.find("NVRM: Xid (");
    if (at == std::string::npos) {
      if (!util::trim(line).empty() && !is_peermem_line(line)) complaints.push_back(std::string(util::trim(line)));
      continue;
    }
    // "NVRM: Xid (PCI:0000:b3:00): 79, pid=..., message" (older drivers: "Xid (0000:03:00): 14, ...").
    auto head = parse_event_head(std::string_view(line).substr(at + 11));
    if (!head) return std::unexpected(malformed("dmesg Xid line", line));
    if (head->after_code) head->event.message = std::string(util::trim(*head->after_code));
    head->event.uptime_s = dmesg_timestamp(line);
    events.push_back(std::move(head->event));
  }
  if (auto answered = dmesg_answered(rc, complaints); !answered) return std::unexpected(answered.error());
  // An Xid logged before gpuctl reset its GPU (or the board) in this boot was dealt with. Only
  // events with a timestamp are matched: without one, the order is unknown and the Xid stands.
  for (auto& event : events) {
    if (!event.uptime_s) continue;
    for (const auto& reset : resets)
      if ((reset.pci == "all" || reset.pci == pci_address_form(event.pci)) && *event.uptime_s <= reset.uptime_s)
        event.cleared_by_reset_at = std::max(event.cleared_by_reset_at.value_or(0.0), reset.uptime_s);
  }
  return events;
}

std::string pci_address_form(std::string_view pci) {
  std::string out = util::to_lower(pci);
  if (const auto colon = out.find(':'); colon != std::string::npos && colon > 4) out.erase(0, colon - 4);
  return out;
}

}  // namespace gpuctl::facts
