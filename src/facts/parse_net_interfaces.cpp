// The net_interfaces probe: every entry of /sys/class/net and its operstate, as the kernel names
// them (Documentation/ABI/testing/sysfs-class-net), then each interface's addresses as
// `ip -o addr show` prints them, or, on a node without ip, its IPv6 addresses from
// /proc/net/if_inet6 (tests/data/net/, with sources).
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>

namespace gpuctl::facts {
namespace {

bool all_digits(std::string_view text) {
  return !text.empty() && std::ranges::all_of(text, [](unsigned char c) { return std::isdigit(c) != 0; });
}

// One line of `ip -o addr show`: "<index>: <name>    <family> <address>/<prefix> ... \ valid_lft ...".
// Only IPv4 and IPv6 addresses are kept: the families NCCL's socket transport uses.
Result<void> read_address(std::vector<NetInterface>& interfaces, std::string_view line) {
  const auto fields = util::split_words(line);
  if (fields.size() < 4 || !fields[0].ends_with(':') || !all_digits(fields[0].substr(0, fields[0].size() - 1)))
    return fail(ErrorCode::parse, fmt::format("'{}' is not ip's '<index>: <name> <family> <address>'", line));
  if (fields[2] != "inet" && fields[2] != "inet6") return {};
  // An interface that came between the two reads is not in sysfs's list: left out.
  const auto interface = std::ranges::find(interfaces, fields[1], &NetInterface::name);
  if (interface == interfaces.end()) return {};
  interface->addresses->emplace_back(fields[3]);
  return {};
}

// /proc/net/if_inet6's address, 32 hex digits, in RFC 5952's text form: lower case, no leading
// zeros in a group, the longest run of two or more zero groups (the first of equals) as "::".
std::optional<std::string> ipv6_text(std::string_view hex) {
  if (hex.size() != 32 || !std::ranges::all_of(hex, [](unsigned char c) { return std::isxdigit(c) != 0; }))
    return std::nullopt;
  std::array<unsigned, 8> groups{};
  for (std::size_t i = 0; i < 8; ++i) std::from_chars(hex.data() + i * 4, hex.data() + i * 4 + 4, groups[i], 16);
  std::size_t best = 8, best_length = 0;
  for (std::size_t i = 0; i < 8;) {
    std::size_t j = i;
    while (j < 8 && groups[j] == 0) ++j;
    if (j - i > best_length && j - i >= 2) best = i, best_length = j - i;
    i = j == i ? i + 1 : j;
  }
  std::string text;
  for (std::size_t i = 0; i < 8; ++i) {
    if (i == best) {
      text += "::";
      i += best_length - 1;
      continue;
    }
    if (!text.empty() && !text.ends_with(':')) text += ':';
    text += fmt::format("{:x}", groups[i]);
  }
  return text;
}

// One address line of the probe's /proc/net/if_inet6 read: "if_inet6 <name> <32 hex> <prefix hex>".
Result<void> read_if_inet6(std::vector<NetInterface>& interfaces, std::string_view line) {
  const auto fields = util::split_words(line);
  const auto address = fields.size() == 4 ? ipv6_text(fields[2]) : std::nullopt;
  unsigned prefix = 0;
  const auto [ptr, ec] = fields.size() == 4 ? std::from_chars(fields[3].data(), fields[3].data() + fields[3].size(), prefix, 16)
                                            : std::from_chars_result{nullptr, std::errc::invalid_argument};
  if (!address || ec != std::errc{} || ptr != fields[3].data() + fields[3].size() || prefix > 128)
    return fail(ErrorCode::parse, fmt::format("'{}' is not /proc/net/if_inet6's '<name> <address> <prefix>'", line));
  const auto interface = std::ranges::find(interfaces, fields[1], &NetInterface::name);
  if (interface != interfaces.end()) interface->addresses->push_back(fmt::format("{}/{}", *address, prefix));
  return {};
}

}  // namespace

Result<std::vector<NetInterface>> parse_net_interfaces(std::string_view text) {
  std::vector<NetInterface> interfaces;
  bool no_ip = false;            // the probe found no ip command
  bool if_inet6_read = false;    // ... and read /proc/net/if_inet6 instead
  std::vector<std::string> address_lines;  // read once sysfs's list is whole
  for (const auto& raw : util::split_lines(text)) {
    const std::string_view line = util::trim(raw);
    if (line.empty()) continue;
    if (line == "no_ip_command" || line == "if_inet6_read") {
      if (!address_lines.empty() || (line == "no_ip_command" ? no_ip : !no_ip || if_inet6_read))
        return fail(ErrorCode::parse, fmt::format("'{}' out of the probe's order", line));
      (line == "no_ip_command" ? no_ip : if_inet6_read) = true;
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
  if (no_ip && !if_inet6_read) {
    if (!address_lines.empty()) return fail(ErrorCode::parse, "address lines although the probe read none");
    for (auto& interface : interfaces) interface.addresses.reset();
    return interfaces;
  }
  for (auto& interface : interfaces) interface.ipv6_only = no_ip;
  for (const auto& line : address_lines) {
    if (no_ip != line.starts_with("if_inet6 "))
      return fail(ErrorCode::parse, fmt::format("'{}' is not a line of {}", line, no_ip ? "/proc/net/if_inet6" : "ip"));
    if (auto read = no_ip ? read_if_inet6(interfaces, line) : read_address(interfaces, line); !read)
      return std::unexpected(read.error());
  }
  return interfaces;
}

}  // namespace gpuctl::facts
