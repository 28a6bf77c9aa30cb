#include <gpuctl/inventory/nccl_socket_ifname.hpp>

#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace gpuctl {
namespace {

// The kernel's IFNAMSIZ (16) less the terminating NUL: net/core/dev.c's dev_valid_name refuses
// longer names, so no interface is called that and no prefix that long matches one.
constexpr std::size_t k_max_interface_name = 15;

// Why `name` (an entry without its ":<port>") can match no interface, or what NCCL does with
// it that the author may not expect; empty when nothing.
std::string name_problem(std::string_view name, std::string_view entry, bool exact) {
  if (name.size() > k_max_interface_name)
    return fmt::format("'{}' is longer than {} characters, the most a Linux interface name has: it matches no interface",
                       name, k_max_interface_name);
  if (name.find('/') != std::string_view::npos)
    return fmt::format("'{}' holds '/', which no Linux interface name holds: it matches no interface", name);
  if (std::ranges::any_of(name, [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }))
    return fmt::format("'{}' holds whitespace, which no Linux interface name holds: it matches no interface", name);
  if (exact && (name == "." || name == ".."))
    return fmt::format("'{}' cannot be a Linux interface name: it matches no interface", name);
  if (name.find_first_of("*?") != std::string_view::npos)
    return exact ? fmt::format("'{}': NCCL does not expand '*' or '?', and after '=' it compares whole names (for "
                               "eth0, eth1, ... drop the '=' and write the prefix alone, 'eth')",
                               name)
                 : fmt::format("'{}': NCCL matches names by prefix and does not expand '*' or '?' (write the prefix "
                               "alone, e.g. 'eth' for eth0, eth1, ...)",
                               name);
  if (entry.size() > name.size())
    return fmt::format("'{}': NCCL reads '{}' as a port, which sockets ignore: it is the same as '{}' (and no "
                       "interface name holds ':')",
                       entry, entry.substr(name.size()), name);
  return {};
}

}  // namespace

NcclSocketIfname parse_nccl_socket_ifname(std::string_view value) {
  NcclSocketIfname setting;
  // NCCL takes the setting only when it is longer than one character (ncclFindInterfaces).
  setting.ignored = value.size() <= 1;
  if (setting.ignored)
    setting.problems.push_back(fmt::format("a value of {} character{} is ignored by NCCL, which then picks the "
                                           "interfaces itself",
                                           value.size(), value.size() == 1 ? "" : "s"));
  if (value.starts_with('^')) setting.exclude = true, value.remove_prefix(1);
  if (value.starts_with('=')) setting.exact = true, value.remove_prefix(1);
  bool empty_entry = false;
  for (const auto& entry : util::split(value, ',')) {
    // NCCL ends a name at ':' and reads the rest of the entry as a port.
    const std::string_view name = std::string_view(entry).substr(0, entry.find(':'));
    if (name.empty()) {
      if (entry.empty()) empty_entry = true;
      else setting.problems.push_back(fmt::format("'{}' has no name before ':', so NCCL skips it", entry));
      continue;
    }
    setting.names.emplace_back(name);
    setting.entries.push_back(entry);
    if (auto problem = name_problem(name, entry, setting.exact); !problem.empty())
      setting.problems.push_back(std::move(problem));
  }
  if (empty_entry && !setting.names.empty())
    setting.problems.push_back("it has an empty entry (',,', or a ',' at either end), which NCCL skips");
  if (setting.names.empty() && !setting.ignored)
    setting.problems.push_back(setting.exclude ? "it names no interface: NCCL then excludes every one and finds none"
                                               : "it names no interface: NCCL then takes every one, lo included");
  return setting;
}

bool nccl_socket_ifname_selects(const NcclSocketIfname& setting, std::string_view name) {
  if (setting.ignored) return false;
  const bool listed = setting.names.empty() || std::ranges::any_of(setting.names, [&](const std::string& entry) {
                        return setting.exact ? name == entry : name.starts_with(entry);
                      });
  return listed != setting.exclude;
}

}  // namespace gpuctl
