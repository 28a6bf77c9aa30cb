#include <gpuctl/inventory/nccl_ib_hca.hpp>

#include <gpuctl/util/strings.hpp>

#include <charconv>

namespace gpuctl {

NcclHca parse_hca_item(std::string_view item) {
  NcclHca hca{std::string(item), std::nullopt, std::string(item)};
  const auto colon = item.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return hca;
  int port = 0;
  const auto digits = item.substr(colon + 1);
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
  if (ec != std::errc{} || ptr != digits.data() + digits.size() || digits.empty()) return hca;
  hca.name = std::string(item.substr(0, colon));
  hca.port = port;
  return hca;
}

NcclHcaList parse_nccl_ib_hca(std::string_view value) {
  NcclHcaList list;
  value = util::trim(value);
  if (value.starts_with('^')) list.exclude = true, value.remove_prefix(1);
  if (value.starts_with('=')) list.exact = true, value.remove_prefix(1);
  for (const auto& item : util::split(value, ',')) {
    const auto text = util::trim(item);
    if (!text.empty()) list.hcas.push_back(parse_hca_item(text));
  }
  return list;
}

bool nccl_hca_matches(const NcclHcaList& list, const NcclHca& entry, std::string_view hca, std::optional<int> port) {
  const bool name = list.exact ? hca == entry.name : hca.starts_with(entry.name);
  return name && (!entry.port || !port || *entry.port == *port);
}

}  // namespace gpuctl
