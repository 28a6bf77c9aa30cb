// The net_interfaces probe: every entry of /sys/class/net and its operstate, as the kernel names
// them (Documentation/ABI/testing/sysfs-class-net), then each interface's addresses as
// `ip -o addr show` prints them (tests/data/net/, with sources).
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace gpuctl::facts {
namespace {

bool all_digits(std::string_view text) {
  return !text.empty() && std::ranges::all_of(text, [](unsigned char c) { return std::isdigit(c) != 0; });
}

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> list;
  std::size_t at = 0;
  while (at < line.size()) {
    while (at < line.size() && std::isspace(static_cast<unsigned char>(line[at])) != 0) ++at;
    const auto start = at;
    while (at < line.size() && std::isspace(static_cast<unsigned char>(line[at])) == 0) ++at;
    if (at > start) list.push_back(line.substr(start, at - start));
  }
  return list;
}

// One line of `ip -o addr show`: "<index>: <name>    <family> <address>/<prefix> ... \ valid_lft ...".
// Only IPv4 and IPv6 addresses are kept: the families NCCL's socket transport uses.
Result<void> read_address(std::vector<NetInterface>& interfaces, std::string_view line) {
  const auto fields = words(line);
  if (fields.size() < 4 || !fields[0].ends_with(':') || !all_digits(fields[0].substr(0, fields[0].size() - 1)))
    return fail(ErrorCode::parse, fmt::format("'{}' is not ip's '<index>: <name> <family> <address>'", line));
  if (fields[2] != "inet" && fields[2] != "inet6") return {};
  // An interface that came between the two reads is not in sysfs's list: left out.
  const auto interface = std::ranges::find(interfaces, fields[1], &NetInterface::name);
  if (interface == interfaces.end()) return {};
  interface->addresses->emplace_back(fields[3]);
  return {};
}

}  // namespace

Result<std::vector<NetInterface>> parse_net_interfaces(std::string_view text) {
  std::vector<NetInterface> interfaces;
  bool addresses_read = true;  // until the probe says there was no ip to read them
  std::vector<std::string> address_lines;  // ip's, read once sysfs's list is whole
  for (const auto& raw : util::split_lines(text)) {
    const std::string_view line = util::trim(raw);
    if (line.empty()) continue;
    if (line == "no_ip_command") {
      addresses_read = false;
      continue;
    }
    if (!line.starts_with("iface ")) {
      address_lines.emplace_back(line);
      continue;
    }
    if (!address_lines.empty())
      return fail(ErrorCode::parse, fmt::format("'{}' comes after ip's address lines", line));
    const auto rest = line.substr(6);
    const auto space = rest.find(' ');
    const auto name = rest.substr(0, space);
    if (name.empty()) return fail(ErrorCode::parse, fmt::format("'{}' names no interface", line));
    // An operstate the kernel did not give (the file unreadable) stays empty: unknown.
    interfaces.push_back({std::string(name),
                          space == std::string_view::npos ? std::string() : std::string(util::trim(rest.substr(space + 1))),
                          std::vector<std::string>{}});
  }
  // Every network namespace has lo: nothing listed means /sys/class/net was not read.
  if (interfaces.empty()) return fail(ErrorCode::parse, "no interface listed, not even lo");
  if (!addresses_read) {
    if (!address_lines.empty()) return fail(ErrorCode::parse, "address lines although the probe found no ip command");
    for (auto& interface : interfaces) interface.addresses.reset();
    return interfaces;
  }
  for (const auto& line : address_lines)
    if (auto read = read_address(interfaces, line); !read) return std::unexpected(read.error());
  return interfaces;
}

}  // namespace gpuctl::facts
