// Network checks over the `net_interfaces` fact: the entries of /sys/class/net and their
// operstate, as the kernel names them.
#include "check_result.hpp"

#include <gpuctl/inventory/nccl_socket_ifname.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace gpuctl::verify_detail {
namespace {

// At most this many interfaces in observed: a container host can have hundreds of veths, and
// one long line per node would not fold in the table.
constexpr std::size_t k_listed_interfaces = 16;

std::string interfaces_text(const std::vector<const NetInterface*>& interfaces) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < interfaces.size() && i < k_listed_interfaces; ++i) names.push_back(interfaces[i]->summary());
  auto text = util::join(names, ", ");
  if (interfaces.size() > k_listed_interfaces) text += fmt::format(" and {} more", interfaces.size() - k_listed_interfaces);
  return text;
}

}  // namespace

// NCCL takes the interfaces NCCL_SOCKET_IFNAME selects, among those with an IPv4 or IPv6 address
// (its findInterfaces walks getifaddrs), for its bootstrap and socket transport; when it takes
// none, NCCL finds no socket interface and the job fails at start. lo does not count as left by
// an exclusion list: a job across nodes cannot use it.
CheckResult check_nccl_socket_ifname(const CheckInput& in) {
  const auto it = in.inventory.cluster.nccl.find("NCCL_SOCKET_IFNAME");
  if (it == in.inventory.cluster.nccl.end()) return skipped("NCCL_SOCKET_IFNAME is not declared in cluster.nccl");
  const auto& value = it->second;
  const auto setting = parse_nccl_socket_ifname(value);
  const auto expected =
      setting.exclude ? fmt::format("an interface besides lo, with an IP address, left by NCCL_SOCKET_IFNAME={}", value)
                      : fmt::format("an interface with an IP address that NCCL_SOCKET_IFNAME={} selects", value);
  const auto& fact = in.state.facts.net_interfaces;
  if (!fact.present()) return cannot_run(absent_reason(fact, "network interfaces"));
  std::vector<const NetInterface*> all, selected;
  for (const auto& interface : *fact.value) {
    all.push_back(&interface);
    if (setting.exclude && interface.name == "lo") continue;
    if (nccl_socket_ifname_selects(setting, interface.name)) selected.push_back(&interface);
  }
  const auto observed = interfaces_text(all);
  const auto names = [&] {
    std::vector<std::string> list;
    for (const auto* interface : all) list.push_back(interface->name);
    return util::join(list, ", ");
  };
  if (setting.ignored)
    return failed(observed, expected,
                  fmt::format("NCCL ignores a NCCL_SOCKET_IFNAME of one character and picks the interfaces itself: "
                              "set cluster.nccl's NCCL_SOCKET_IFNAME to one of the node's interfaces ({})",
                              names()));
  if (selected.empty())
    return failed(observed, expected,
                  fmt::format("NCCL_SOCKET_IFNAME={} {} of the node's interfaces ({}): NCCL finds no socket interface "
                              "and the job fails at start; fix cluster.nccl's NCCL_SOCKET_IFNAME or the node's "
                              "interface names",
                              value, setting.exclude ? "leaves none besides lo" : "selects none", names()));
  // NCCL skips an interface without an address: one selected by name but without is no interface
  // to it. Addresses not read (no ip and no /proc/net/if_inet6 on the node) leave that unknown,
  // never a pass.
  if (std::ranges::any_of(selected, [](const NetInterface* interface) { return !interface->addresses; }))
    return {{}, CheckStatus::error, observed, expected,
            fmt::format("NCCL_SOCKET_IFNAME={} selects {}, but whether {} an IP address is unknown: the node has no "
                        "`ip` command (install iproute2); NCCL takes only interfaces with one",
                        value, interfaces_text(selected), selected.size() == 1 ? "it has" : "they have")};
  std::vector<const NetInterface*> usable, without_address;
  for (const auto* interface : selected)
    (interface->nccl_addresses().empty() ? without_address : usable).push_back(interface);
  // Only IPv6 read (no ip on the node): an interface without an IPv6 address may still hold an
  // IPv4 one.
  if (usable.empty() && std::ranges::any_of(selected, [](const NetInterface* interface) { return interface->ipv6_only; }))
    return {{}, CheckStatus::error, observed, expected,
            fmt::format("NCCL_SOCKET_IFNAME={} selects {}, which {} no IPv6 address, and whether {} an IPv4 one is "
                        "unknown: the node has no `ip` command (install iproute2); NCCL takes only interfaces with an "
                        "address",
                        value, interfaces_text(selected), selected.size() == 1 ? "has" : "have",
                        selected.size() == 1 ? "it has" : "they have")};
  if (usable.empty())
    return failed(observed, expected,
                  fmt::format("NCCL_SOCKET_IFNAME={} selects {}, but {}, and NCCL takes only interfaces "
                              "with an IPv4 or IPv6 address: it finds no socket interface and the job fails at start; "
                              "give the interface its address (an IPoIB interface needs one configured) or point "
                              "cluster.nccl's NCCL_SOCKET_IFNAME at an interface that has one",
                              value, interfaces_text(selected),
                              selected.size() == 1 ? "it has no IP address" : "none of them has an IP address"));
  // Names of the list that match nothing here are harmless while another one matches: said, not failed.
  std::vector<std::string> unmatched;
  if (!setting.exclude)
    for (std::size_t i = 0; i < setting.names.size(); ++i) {
      const NcclSocketIfname one{false, setting.exact, {setting.names[i]}, {}, false, {}};
      if (std::ranges::none_of(all, [&](const NetInterface* interface) {
            return nccl_socket_ifname_selects(one, interface->name);
          }))
        unmatched.push_back(setting.entries[i]);
    }
  auto result = pass(observed, expected);
  result.detail = fmt::format("NCCL takes {}", interfaces_text(usable));
  if (!without_address.empty())
    result.detail += without_address.front()->ipv6_only
                         ? fmt::format("; also selected, IPv4 address unknown: {}", interfaces_text(without_address))
                         : fmt::format("; {} {} no address, which NCCL skips", interfaces_text(without_address),
                                       without_address.size() == 1 ? "has" : "have");
  if (!unmatched.empty()) result.detail += fmt::format("; {} match{} no interface here", util::join(unmatched, ", "),
                                                       unmatched.size() == 1 ? "es" : "");
  // An address is what this check proves; an interface that is down is named, for the operator.
  if (std::ranges::all_of(usable, [](const NetInterface* interface) { return interface->operstate == "down"; }))
    result.detail += "; note: the kernel reports every one of them down (operstate)";
  return result;
}

namespace {

const CheckRegistration k_socket_ifname{{
    .name = "nccl_socket_ifname",
    .description = "NCCL_SOCKET_IFNAME selects an interface the node has",
    .section = CheckSection::network,
    .facts = {"net_interfaces"},
    .judge = check_nccl_socket_ifname,
}};

}  // namespace
}  // namespace gpuctl::verify_detail
