#include <gpuctl/facts/facts.hpp>

#include <algorithm>

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

}  // namespace gpuctl
