// The net_interfaces probe: every entry of /sys/class/net and its operstate, as the kernel names
// them (Documentation/ABI/testing/sysfs-class-net; tests/data/net/, with sources).
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

namespace gpuctl::facts {

Result<std::vector<NetInterface>> parse_net_interfaces(std::string_view text) {
  std::vector<NetInterface> interfaces;
  for (const auto& raw : util::split_lines(text)) {
    const std::string_view line = util::trim(raw);
    if (line.empty()) continue;
    if (!line.starts_with("iface "))
      return fail(ErrorCode::parse, fmt::format("'{}' is not 'iface <name> <operstate>'", line));
    const auto rest = line.substr(6);
    const auto space = rest.find(' ');
    const auto name = rest.substr(0, space);
    if (name.empty()) return fail(ErrorCode::parse, fmt::format("'{}' names no interface", line));
    // An operstate the kernel did not give (the file unreadable) stays empty: unknown.
    interfaces.push_back({std::string(name), space == std::string_view::npos
                                                 ? std::string()
                                                 : std::string(util::trim(rest.substr(space + 1)))});
  }
  // Every network namespace has lo: nothing listed means /sys/class/net was not read.
  if (interfaces.empty()) return fail(ErrorCode::parse, "no interface listed, not even lo");
  return interfaces;
}

}  // namespace gpuctl::facts
