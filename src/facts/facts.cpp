#include <gpuctl/facts/facts.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <fmt/format.h>
#include <numeric>

namespace gpuctl {

std::optional<std::string> GpuInfo::unreported_text(std::string_view field) const {
  const auto it = unreported.find(field);
  return it == unreported.end() ? std::nullopt : std::optional<std::string>(it->second);
}

bool is_not_applicable(std::string_view raw) {
  return raw == "[N/A]" || raw == "N/A" || raw == "[Not Supported]" || raw == "Not Supported";
}

bool NodeFacts::module_loaded(std::string_view name) const {
  return loaded_modules.present() && std::ranges::find(*loaded_modules.value, name) != loaded_modules.value->end();
}

std::string TopologyMatrix::link(std::string_view from, std::string_view to) const {
  const auto column = std::ranges::find(devices, to);
  if (column == devices.end()) return {};
  const auto index = static_cast<std::size_t>(column - devices.begin());
  for (const auto& row : rows)
    if (row.device == from) return index < row.links.size() ? row.links[index] : std::string{};
  return {};
}

std::vector<std::string> TopologyMatrix::gpus() const {
  std::vector<std::string> names;
  for (const auto& row : rows)
    if (row.device.starts_with("GPU")) names.push_back(row.device);
  return names;
}

std::vector<std::string> NetInterface::nccl_addresses() const {
  std::vector<std::string> list;
  if (!addresses) return list;
  for (const auto& address : *addresses)
    if (!address.starts_with("::1/") && address != "::1") list.push_back(address);
  return list;
}

std::string NetInterface::summary() const {
  const auto state = operstate.empty() ? std::string("?") : operstate;
  if (!addresses) return fmt::format("{} ({})", name, state);
  if (addresses->empty() && ipv6_only) return fmt::format("{} ({}, no IPv6 address, IPv4 unknown)", name, state);
  if (addresses->empty()) return fmt::format("{} ({}, no address)", name, state);
  if (addresses->size() == 1) return fmt::format("{} ({}, {})", name, state, addresses->front());
  return fmt::format("{} ({}, {} +{})", name, state, addresses->front(), addresses->size() - 1);
}

std::uint64_t AerCounts::sum() const {
  return std::accumulate(errors.begin(), errors.end(), std::uint64_t{0},
                         [](std::uint64_t total, const AerCounter& counter) { return total + counter.count; });
}

// "DDDDDDDD:BB:DD.F" (nvidia-smi prints an 8-digit domain, upper case) -> "dddd:bb:dd.f", the
// name the kernel gives the device (pci_name: "%04x:%02x:%02x.%d").
std::string sysfs_pci_bus_id(std::string_view pci_bus_id) {
  const auto first = pci_bus_id.find(':');
  if (first == std::string_view::npos || first == 0) return {};
  const auto domain_text = pci_bus_id.substr(0, first);
  unsigned long domain = 0;
  const auto [ptr, ec] = std::from_chars(domain_text.data(), domain_text.data() + domain_text.size(), domain, 16);
  if (ec != std::errc{} || ptr != domain_text.data() + domain_text.size()) return {};
  const auto rest = pci_bus_id.substr(first + 1);  // "18:00.0"
  if (rest.size() != 7 || rest[2] != ':' || rest[5] != '.') return {};
  std::string tail;
  for (const char c : rest) {
    if (c == ':' || c == '.') tail += c;
    else if (std::isxdigit(static_cast<unsigned char>(c))) tail += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else return {};
  }
  return fmt::format("{:04x}:{}", domain, tail);
}

}  // namespace gpuctl
