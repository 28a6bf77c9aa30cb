// NCCL_SOCKET_IFNAME (issue #19): the value read as NCCL reads it (its documented examples and
// the quirks of its parser), validate's lint, hostile values, the net_interfaces probe under this
// host's shell on a real and a fake /sys/class/net (tests/data/net/), the nccl_socket_ifname
// check, and its place in gpu-node.yaml's nccl step.
#include <gpuctl/verify/catalog.hpp>
#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/json.hpp>
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/inventory/nccl_socket_ifname.hpp>
#include <gpuctl/plan/node_state.hpp>
#include <gpuctl/plan/program.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/checks.hpp>

#include "check_fixture.hpp"
#include "probe_capture.hpp"
#include "probe_shell.hpp"
#include "shipped_playbooks.hpp"
#include "temp_dir.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace gpuctl {
namespace {

using testing::read_test_data;

std::vector<std::string> selected(const std::string& value, const std::vector<std::string>& names) {
  const auto setting = parse_nccl_socket_ifname(value);
  std::vector<std::string> out;
  for (const auto& name : names)
    if (nccl_socket_ifname_selects(setting, name)) out.push_back(name);
  return out;
}

const std::vector<std::string> k_names{"docker0", "eth0", "eth1", "ib0", "lo"};

// ---- the value, as NCCL reads it --------------------------------------------------------

// The examples of NCCL's environment variable documentation (NCCL_SOCKET_IFNAME).
TEST(NcclSocketIfname, NcclsDocumentedExamples) {
  using Names = std::vector<std::string>;
  EXPECT_EQ(selected("eth", k_names), (Names{"eth0", "eth1"}));
  EXPECT_EQ(selected("=eth0", k_names), (Names{"eth0"}));
  EXPECT_EQ(selected("=eth0,eth1", k_names), (Names{"eth0", "eth1"}));
  EXPECT_EQ(selected("^docker", k_names), (Names{"eth0", "eth1", "ib0", "lo"}));
  EXPECT_EQ(selected("^=docker0", k_names), (Names{"eth0", "eth1", "ib0", "lo"}));
  EXPECT_EQ(selected("=eth", k_names), Names{}) << "exact: no interface is called eth";
  for (const char* fine : {"eth", "=eth0", "=eth0,eth1", "^docker", "^=docker0", "=bond0", "^docker,lo"})
    EXPECT_TRUE(parse_nccl_socket_ifname(fine).problems.empty()) << fine;
  const auto setting = parse_nccl_socket_ifname("^=docker0,lo");
  EXPECT_TRUE(setting.exclude && setting.exact);
  EXPECT_EQ(setting.names, (Names{"docker0", "lo"}));
}

// NCCL's parser (parseStringList, matchIfList, ncclFindInterfaces): ":<n>" is a port, empty
// entries are skipped, a list without an entry matches every name, a value of one character is
// not taken at all.
TEST(NcclSocketIfname, NcclsParserQuirks) {
  using Names = std::vector<std::string>;
  auto setting = parse_nccl_socket_ifname("=eth0:1");
  EXPECT_EQ(setting.names, (Names{"eth0"}));
  EXPECT_EQ(setting.entries, (Names{"eth0:1"}));
  EXPECT_EQ(selected("=eth0:1", k_names), (Names{"eth0"}));
  EXPECT_EQ(selected("eth0,,ib", k_names), (Names{"eth0", "ib0"}));
  EXPECT_EQ(selected("=,", k_names), k_names) << "no entry: NCCL's matchIfList matches all";
  EXPECT_EQ(selected("^=", k_names), Names{});
  setting = parse_nccl_socket_ifname("e");
  EXPECT_TRUE(setting.ignored);
  EXPECT_EQ(selected("e", k_names), Names{}) << "NCCL ignores it: the setting selects nothing";
  EXPECT_FALSE(parse_nccl_socket_ifname("ib").ignored);
}

TEST(NcclSocketIfname, ProblemsTheLintReports) {
  const auto problem = [](const std::string& value) {
    const auto setting = parse_nccl_socket_ifname(value);
    return setting.problems.empty() ? std::string() : util::join(setting.problems, " | ");
  };
  EXPECT_NE(problem("eth0,,eth1").find("an empty entry"), std::string::npos);
  EXPECT_NE(problem("eth0,").find("an empty entry"), std::string::npos);
  EXPECT_NE(problem("^=").find("names no interface: NCCL then excludes every one"), std::string::npos);
  EXPECT_NE(problem("=,").find("names no interface: NCCL then takes every one, lo included"), std::string::npos);
  EXPECT_NE(problem("e").find("a value of 1 character is ignored by NCCL"), std::string::npos);
  EXPECT_NE(problem("=enp1s0f0np0abcde").find("'enp1s0f0np0abcde' is longer than 15 characters"), std::string::npos);
  EXPECT_TRUE(problem("=enp1s0f0np0abcd").empty()) << "15 characters: a name the kernel takes";
  EXPECT_NE(problem("=eth0/1").find("holds '/'"), std::string::npos);
  EXPECT_NE(problem("=eth\t0").find("holds whitespace"), std::string::npos);
  EXPECT_NE(problem("=..").find("'..' cannot be a Linux interface name"), std::string::npos);
  EXPECT_NE(problem("eth*").find("NCCL matches names by prefix and does not expand '*' or '?'"), std::string::npos);
  EXPECT_NE(problem("=eth?").find("after '=' it compares whole names"), std::string::npos);
  EXPECT_NE(problem("=eth0:1").find("NCCL reads ':1' as a port"), std::string::npos);
  EXPECT_NE(problem(":1,eth0").find("':1' has no name before ':'"), std::string::npos);
}

// ---- inventory: lint and hostile values -------------------------------------------------

std::string diagnostics(const LoadResult& result) {
  std::string out;
  for (const auto& d : result.diagnostics) out += d.to_string() + "\n";
  return out;
}

LoadResult with_value(const std::string& quoted) {
  return load_inventory_text("cluster:\n  name: c\n  nccl:\n    NCCL_SOCKET_IFNAME: " + quoted + "\nhosts: {a1: }\n",
                             "inv.yaml");
}

TEST(NcclSocketIfnameLint, WarnsAtTheValueAndNeverFailsValidation) {
  auto result = with_value("\"eth0,,eth1\"");
  ASSERT_TRUE(result.ok()) << diagnostics(result);
  ASSERT_EQ(result.diagnostics.size(), 1u) << diagnostics(result);
  const auto& warning = result.diagnostics[0];
  EXPECT_EQ(warning.severity, Severity::warning);
  EXPECT_EQ(std::pair(warning.line, warning.column), std::pair(4, 25));
  EXPECT_NE(warning.message.find("NCCL_SOCKET_IFNAME 'eth0,,eth1': it has an empty entry"), std::string::npos)
      << warning.message;
  result = with_value("\"=enp1s0f0np0abcde,eth*\"");
  ASSERT_TRUE(result.ok()) << diagnostics(result);
  EXPECT_EQ(result.diagnostics.size(), 2u) << diagnostics(result);
  for (const char* fine : {"\"=bond0\"", "eth", "\"^docker,lo\"", "\"^=docker0\""}) {
    result = with_value(fine);
    EXPECT_TRUE(result.ok() && result.diagnostics.empty()) << fine << "\n" << diagnostics(result);
  }
}

// A value with shell metacharacters is refused by the nccl.conf grammar at its line; what the
// grammar lets through (globs, '!', '~', '[') is only ever compared in C++: neither the probe
// script nor the state script of a program that checks it carries the value.
TEST(NcclSocketIfnameLint, HostileValuesAreRefusedOrStayInert) {
  for (const char* hostile : {"\"eth0;reboot\"", "\"$(touch /tmp/x)\"", "\"`id`\"", "\"eth0 eth1\"",
                              "\"eth0\\nNCCL_NET_PLUGIN=/tmp/x.so\"", "\"'eth0'\"", "\"eth0|sh\"", "\"eth0&&id\"",
                              "\"eth0>x\"", "\"${IFS}\"", "\"eth0#\""}) {
    const auto result = with_value(hostile);
    EXPECT_FALSE(result.ok()) << hostile;
    const bool at_value = std::ranges::any_of(result.diagnostics, [](const Diagnostic& d) {
      return d.severity == Severity::error && d.line == 4 && d.column == 25;
    });
    EXPECT_TRUE(at_value) << hostile << "\n" << diagnostics(result);
  }
  auto loaded = load_inventory(std::string(GPUCTL_SOURCE_DIR) + "/docs/examples/cluster.yaml");
  ASSERT_TRUE(loaded.ok()) << diagnostics(loaded);
  auto inventory = *loaded.inventory;
  const std::string odd = "^=eth*,[x]!~y";
  inventory.cluster.nccl["NCCL_SOCKET_IFNAME"] = odd;
  ProgramSources sources;
  sources.templates_dir = testing::k_shipped_templates_dir;
  sources.secrets = SecretMode::masked;
  auto program = resolve_program(inventory, inventory.nodes[1], testing::shipped_playbooks(), sources);
  ASSERT_TRUE(program) << program.error().to_string();
  const auto options = node_probe_options(*program, check_needs(program->checks()).probe_extras());
  EXPECT_TRUE(options.optional_probes->contains("net_interfaces"));
  const auto script = facts::build_probe_script("n", options);
  EXPECT_EQ(script.find("eth*"), std::string::npos);
  EXPECT_EQ(script.find("[x]"), std::string::npos);
  EXPECT_FALSE(node_probe_options(*program).optional_probes->contains("net_interfaces")) << "plan never lists interfaces";
}

// ---- the probe --------------------------------------------------------------------------

std::string net_probe_body() { return testing::probe_body("net_interfaces"); }

// Run from `root`: a name that ran as a command would leave its CANARY there.
testing::ShellRun run_sh(const std::string& body, const std::string& root) {
  return testing::run_probe_body(body, {{"/sys/class/net", root}}, root);
}

// sysfs by the shell alone; the addresses, which sysfs does not hold, by one `ip`.
TEST(NetInterfacesProbe, ReadsSysfsWithTheShellAndAddressesWithOneIpOnlyInVerifyOrFacts) {
  const auto body = net_probe_body();
  for (const auto* helper : {"$(", "`", "cat ", " | ", "ls ", "grep"}) EXPECT_EQ(body.find(helper), std::string::npos) << helper;
  EXPECT_EQ(body.find("ip -o"), body.rfind("ip -o")) << "one ip";
  EXPECT_NE(body.find("{ ip -o addr show; return; }"), std::string::npos) << "ip's status is the probe's";
  facts::CollectOptions plan;
  plan.optional_probes.emplace();
  EXPECT_EQ(std::ranges::count(facts::probe_names(plan), "net_interfaces"), 0);
  EXPECT_EQ(std::ranges::count(facts::probe_names(), "net_interfaces"), 1);
  EXPECT_EQ(facts::probe_command("net_interfaces"),
            "grep . /sys/class/net/*/operstate; ip -o addr show (without ip: cat /proc/net/if_inet6)");
}

TEST(NetInterfacesProbe, ReadsThisHostsInterfaces) {
  const auto run = run_sh(net_probe_body(), "/sys/class/net");
  EXPECT_EQ(run.rc, 0);
  const auto interfaces = facts::parse_net_interfaces(run.out);
  ASSERT_TRUE(interfaces) << interfaces.error().to_string() << "\n" << run.out;
  const auto lo = std::ranges::find(*interfaces, "lo", &NetInterface::name);
  ASSERT_NE(lo, interfaces->end()) << run.out;
  // lo holds 127.0.0.1 in every network namespace where ip can list it.
  if (testing::run_shell_command("command -v ip").rc == 0) {
    ASSERT_TRUE(lo->addresses) << run.out;
    EXPECT_NE(std::ranges::find(*lo->addresses, "127.0.0.1/8"), lo->addresses->end()) << run.out;
  } else {
    EXPECT_FALSE(lo->addresses) << run.out;
  }
}

// Interface names may hold shell metacharacters ('$', '(', ';' are not refused by the kernel's
// dev_valid_name): the probe prints them with printf '%s', never evaluates them.
TEST(NetInterfacesProbe, RunsOnAFakeTreeWithHostileNames) {
  testing::TempDir root;
  const auto iface = [&](const std::string& name, const std::string& operstate) {
    std::filesystem::create_directories(root.path() + "/" + name);
    if (!operstate.empty()) std::ofstream(root.path() + "/" + name + "/operstate") << operstate << "\n";
  };
  iface("bond0", "up");
  iface("lo", "unknown");
  iface("$(touch${IFS}CANARY)", "down");
  iface("a;touch${IFS}CANARY;`touch${IFS}CANARY`", "up");
  iface("noattr", "");
  const auto run = run_sh(net_probe_body(), root.path());
  EXPECT_EQ(run.rc, 0);
  const auto interfaces = facts::parse_net_interfaces(run.out);
  ASSERT_TRUE(interfaces) << interfaces.error().to_string() << "\n" << run.out;
  ASSERT_EQ(interfaces->size(), 5u) << run.out;
  EXPECT_EQ((*interfaces)[0].name, "$(touch${IFS}CANARY)");
  EXPECT_EQ((*interfaces)[0].operstate, "down");
  EXPECT_EQ((*interfaces)[1].name, "a;touch${IFS}CANARY;`touch${IFS}CANARY`");
  EXPECT_EQ((*interfaces)[2].name, "bond0");
  EXPECT_EQ((*interfaces)[4].name, "noattr");
  EXPECT_TRUE((*interfaces)[4].operstate.empty()) << "an unreadable operstate stays unknown";
  EXPECT_FALSE(std::filesystem::exists(root.path() + "/CANARY"));
  const auto missing = run_sh(net_probe_body(), root.path() + "/none");
  EXPECT_EQ(missing.rc, 1);
}

// The addresses by a stand-in `ip` printing iproute2's lines (its path put where the probe names
// ip), and without any ip: unknown, never none. ip failing fails the probe.
TEST(NetInterfacesProbe, AddressesFromIpOrUnknownWithoutIt) {
  testing::TempDir root;
  for (const auto* name : {"bond0", "ib0", "lo"}) std::filesystem::create_directories(root.path() + "/net/" + name);
  std::ofstream(root.path() + "/net/bond0/operstate") << "up\n";
  const auto ip = root.write("ip",
                             "#!/bin/sh\n[ \"$*\" = '-o addr show' ] || exit 9\n"
                             "printf '%s\\n' '1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever' "
                             "'7: bond0    inet 10.1.0.7/16 brd 10.1.255.255 scope global bond0\\       valid_lft forever' "
                             "'9: veth9    inet 10.2.0.1/24 scope global veth9\\       valid_lft forever'\n"
                             "exit ${IP_STATUS:-0}\n",
                             0700);
  const auto with_ip = [&](const std::string& status) {
    return testing::run_probe_body(net_probe_body(), {{"/sys/class/net", root.path() + "/net"},
                                                      {"command -v ip ", "command -v " + ip + " "},
                                                      {"ip -o addr show", "IP_STATUS=" + status + " " + ip + " -o addr show"}});
  };
  auto run = with_ip("0");
  EXPECT_EQ(run.rc, 0) << run.out;
  auto interfaces = facts::parse_net_interfaces(run.out);
  ASSERT_TRUE(interfaces) << interfaces.error().to_string() << "\n" << run.out;
  ASSERT_EQ(interfaces->size(), 3u);
  EXPECT_EQ((*interfaces)[0].addresses, std::vector<std::string>{"10.1.0.7/16"});
  EXPECT_EQ((*interfaces)[1].addresses, std::vector<std::string>{}) << "ib0: no address";
  EXPECT_EQ((*interfaces)[2].addresses, std::vector<std::string>{"127.0.0.1/8"});
  EXPECT_EQ(with_ip("2").rc, 2) << "ip's failure is the probe's";
  // No ip: the IPv6 addresses from /proc/net/if_inet6 (here a copy in the kernel's format, the
  // names right-aligned as addrconf.c prints them), IPv4 unknown.
  std::ofstream(root.path() + "/if_inet6") << "fe8000000000000000fc00fffe000001 04 40 20 80     ib0\n"
                                              "20010db8000000000000000000000007 07 40 00 80   bond0\n"
                                              "00000000000000000000000000000001 01 80 10 80      lo\n";
  const auto without_ip = [&](const std::string& if_inet6) {
    return testing::run_probe_body(net_probe_body(), {{"/sys/class/net", root.path() + "/net"},
                                                      {"command -v ip ", "command -v gpuctl-test-no-such-ip "},
                                                      {"/proc/net/if_inet6", if_inet6}});
  };
  run = without_ip(root.path() + "/if_inet6");
  EXPECT_EQ(run.rc, 0);
  interfaces = facts::parse_net_interfaces(run.out);
  ASSERT_TRUE(interfaces) << interfaces.error().to_string() << "\n" << run.out;
  EXPECT_EQ((*interfaces)[0].addresses, std::vector<std::string>{"2001:db8::7/64"});
  EXPECT_EQ((*interfaces)[1].addresses, std::vector<std::string>{"fe80::fc:ff:fe00:1/64"});
  EXPECT_EQ((*interfaces)[2].addresses, std::vector<std::string>{"::1/128"});
  EXPECT_TRUE(std::ranges::all_of(*interfaces, [](const NetInterface& i) { return i.ipv6_only; }));
  // Nor /proc/net/if_inet6 (IPv6 disabled): the addresses are unknown, never none.
  run = without_ip(root.path() + "/none");
  EXPECT_EQ(run.rc, 0);
  interfaces = facts::parse_net_interfaces(run.out);
  ASSERT_TRUE(interfaces) << run.out;
  EXPECT_TRUE(std::ranges::none_of(*interfaces, [](const NetInterface& i) { return i.addresses.has_value(); })) << run.out;
}

// The capture of the build host (tests/data/net/README.md) and the parser's refusals.
TEST(NetInterfacesParser, ReadsTheCaptureAndRefusesWhatTheProbeDoesNotPrint) {
  const auto interfaces = facts::parse_net_interfaces(read_test_data("net/probe-build-host.txt"));
  ASSERT_TRUE(interfaces) << interfaces.error().to_string();
  ASSERT_EQ(interfaces->size(), 4u);
  EXPECT_EQ((*interfaces)[0].name, "eth0");
  EXPECT_EQ((*interfaces)[0].operstate, "up");
  EXPECT_EQ((*interfaces)[0].addresses,
            (std::vector<std::string>{"192.0.2.2/24", "fd00::2/64", "fe80::fc:ff:fe00:1/64"}));
  EXPECT_EQ((*interfaces)[1].addresses, std::vector<std::string>{});
  EXPECT_EQ((*interfaces)[3].name, "lo");
  EXPECT_EQ((*interfaces)[3].operstate, "unknown");
  EXPECT_EQ((*interfaces)[3].addresses, (std::vector<std::string>{"127.0.0.1/8", "::1/128"}));
  EXPECT_EQ((*interfaces)[3].nccl_addresses(), std::vector<std::string>{"127.0.0.1/8"}) << "NCCL skips ::1";
  for (const char* bad : {"", "\n", "eth0 up\n", "iface \n", "iface  up\n", "interface eth0 up\n",
                          "iface eth0 up\n4: eth0\n",                             // no family, no address
                          "iface eth0 up\neth0 inet 10.0.0.1/8\n",                // no index
                          "iface eth0 up\nx: eth0 inet 10.0.0.1/8 scope global\n",
                          "iface eth0 up\n4: eth0 inet 10.0.0.1/8\niface lo unknown\n",  // sysfs after ip
                          "iface eth0 up\nno_ip_command\n4: eth0 inet 10.0.0.1/8\n"})
    EXPECT_FALSE(facts::parse_net_interfaces(bad)) << bad;
  // Without ip: /proc/net/if_inet6's IPv6 addresses in RFC 5952's form, IPv4 unknown.
  const auto no_ip = facts::parse_net_interfaces(read_test_data("net/probe-build-host-no-ip.txt"));
  ASSERT_TRUE(no_ip) << no_ip.error().to_string();
  EXPECT_EQ((*no_ip)[0].addresses, (std::vector<std::string>{"fe80::fc:ff:fe00:1/64", "fd00::2/64"}));
  EXPECT_TRUE((*no_ip)[0].ipv6_only);
  EXPECT_EQ((*no_ip)[1].addresses, std::vector<std::string>{});
  EXPECT_EQ((*no_ip)[3].addresses, std::vector<std::string>{"::1/128"});
  const auto one = [](const std::string& hex, const std::string& prefix) -> std::string {
    const auto parsed =
        facts::parse_net_interfaces("iface eth0 up\nno_ip_command\nif_inet6_read\nif_inet6 eth0 " + hex + " " + prefix + "\n");
    return parsed && parsed->front().addresses && !parsed->front().addresses->empty() ? parsed->front().addresses->front()
                                                                                     : "refused";
  };
  EXPECT_EQ(one("20010db8000000000000000000000001", "40"), "2001:db8::1/64");
  EXPECT_EQ(one("00000000000000000000000000000000", "0"), "::/0");
  EXPECT_EQ(one("20010db8000000010000000000000000", "30"), "2001:db8:0:1::/48");
  EXPECT_EQ(one("20010db8000000000001000000000001", "40"), "2001:db8::1:0:0:1/64") << "the first of equal runs";
  EXPECT_EQ(one("20010db8000000010001000100010001", "40"), "2001:db8:0:1:1:1:1:1/64") << "one zero group stays";
  EXPECT_EQ(one("FE8000000000000000FC00FFFE000001", "40"), "fe80::fc:ff:fe00:1/64");
  for (const auto& [hex, prefix] : std::vector<std::pair<std::string, std::string>>{
           {"fe80", "40"}, {"fe8000000000000000fc00fffe00000g", "40"}, {"20010db8000000000000000000000001", "81"},
           {"20010db8000000000000000000000001", "x"}})
    EXPECT_EQ(one(hex, prefix), "refused") << hex << " " << prefix;
  for (const char* bad : {"iface eth0 up\nif_inet6 eth0 fe8000000000000000fc00fffe000001 40\n",  // ip was read
                          "iface eth0 up\nno_ip_command\nif_inet6_read\n4: eth0 inet 10.0.0.1/8\n",
                          "iface eth0 up\nif_inet6_read\n", "iface eth0 up\nno_ip_command\nno_ip_command\n"})
    EXPECT_FALSE(facts::parse_net_interfaces(bad)) << bad;
  // Families other than IPv4 and IPv6, and interfaces sysfs did not list, are left out.
  const auto other = facts::parse_net_interfaces("iface eth0 up\n4: eth0    link/ieee802.15.4 x\n5: new0 inet 10.0.0.1/8\n");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->front().addresses, std::vector<std::string>{});
}

TEST(NetInterfacesFacts, JsonAndText) {
  NodeFacts facts;
  facts.node = "gpu01";
  auto interfaces = facts::parse_net_interfaces(read_test_data("net/probe-build-host.txt"));
  ASSERT_TRUE(interfaces);
  facts.net_interfaces = Fact<std::vector<NetInterface>>::of(*interfaces);
  const auto j = nlohmann::json::parse(facts::facts_to_json(facts));
  EXPECT_EQ(j["net_interfaces"][0], nlohmann::json({{"name", "eth0"},
                                                     {"operstate", "up"},
                                                     {"addresses", {"192.0.2.2/24", "fd00::2/64", "fe80::fc:ff:fe00:1/64"}},
                                                     {"ipv6_only", false}}));
  EXPECT_EQ(j["net_interfaces"][1]["addresses"], nlohmann::json::array());
  EXPECT_EQ(j["net_interfaces"].size(), 4u);
  EXPECT_NE(facts::render_facts_text(facts).find("  network interfaces: eth0 (up, 192.0.2.2/24 +2), ifb0 (down, no address), "
                                                 "ifb1 (down, no address), lo (unknown, 127.0.0.1/8 +1)\n"),
            std::string::npos)
      << facts::render_facts_text(facts);
  facts.net_interfaces.value->front().addresses.reset();
  EXPECT_TRUE(nlohmann::json::parse(facts::facts_to_json(facts))["net_interfaces"][0]["addresses"].is_null());
}

TEST(NetInterfacesProbe, FactIsAbsentWithTheReasonWhenTheProbeFails) {
  std::map<std::string, facts::ProbeOutput> probes;
  probes["net_interfaces"] = {1, "", "/sys/class/net: Permission denied"};
  auto facts = facts::facts_from_probes("n", probes);
  ASSERT_FALSE(facts.net_interfaces.present());
  EXPECT_EQ(facts.net_interfaces.absent_reason, "/sys/class/net: /sys/class/net: Permission denied");
  probes["net_interfaces"] = {0, "", ""};
  facts = facts::facts_from_probes("n", probes);
  EXPECT_FALSE(facts.net_interfaces.present()) << "no interface at all is unknown, not none";
  EXPECT_FALSE(facts::facts_from_probes("n", {}).net_interfaces.present());
}

// ---- the check --------------------------------------------------------------------------

// The build host's interfaces (tests/data/net/probe-build-host.txt), as the check lists them.
constexpr std::string_view k_observed =
    "eth0 (up, 192.0.2.2/24 +2), ifb0 (down, no address), ifb1 (down, no address), lo (unknown, 127.0.0.1/8 +1)";

class NcclSocketIfnameCheck : public testing::SingleCheckTest {
 protected:
  NcclSocketIfnameCheck() {
    auto interfaces = facts::parse_net_interfaces(read_test_data("net/probe-build-host.txt"));
    EXPECT_TRUE(interfaces);
    state.facts.net_interfaces = Fact<std::vector<NetInterface>>::of(*interfaces);
  }
  CheckResult with(const std::string& value) {
    inventory.cluster.nccl["NCCL_SOCKET_IFNAME"] = value;
    return run("nccl_socket_ifname");
  }
};

TEST_F(NcclSocketIfnameCheck, PassesWhenAnInterfaceIsSelected) {
  auto r = with("=eth0");
  EXPECT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_EQ(r.observed, k_observed);
  EXPECT_EQ(r.expected, "an interface with an IP address that NCCL_SOCKET_IFNAME==eth0 selects");
  EXPECT_EQ(r.detail, "NCCL takes eth0 (up, 192.0.2.2/24 +2)");
  r = with("=eth0,bond0");
  EXPECT_EQ(r.status, CheckStatus::pass);
  EXPECT_EQ(r.detail, "NCCL takes eth0 (up, 192.0.2.2/24 +2); bond0 matches no interface here");
  r = with("^docker,lo");
  EXPECT_EQ(r.status, CheckStatus::pass);
  EXPECT_EQ(r.expected, "an interface besides lo, with an IP address, left by NCCL_SOCKET_IFNAME=^docker,lo");
  EXPECT_EQ(r.detail, "NCCL takes eth0 (up, 192.0.2.2/24 +2); ifb0 (down, no address), ifb1 (down, no address) have no "
                      "address, which NCCL skips");
  EXPECT_EQ(with("eth").status, CheckStatus::pass);
  // An interface that is down but has its address: NCCL takes it, and the operator is told.
  (*state.facts.net_interfaces.value)[1].addresses = std::vector<std::string>{"10.9.0.1/24"};
  r = with("ifb");
  EXPECT_EQ(r.status, CheckStatus::pass);
  EXPECT_EQ(r.detail, "NCCL takes ifb0 (down, 10.9.0.1/24); ifb1 (down, no address) has no address, which NCCL skips; "
                      "note: the kernel reports every one of them down (operstate)");
}

// NCCL skips an interface without an address (its findInterfaces walks getifaddrs): selected by
// name but without one is no interface to NCCL. Addresses that were not read are unknown.
TEST_F(NcclSocketIfnameCheck, AnInterfaceWithoutAnAddressIsNoneToNccl) {
  auto r = with("ifb");
  ASSERT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, k_observed);
  EXPECT_NE(r.detail.find("NCCL_SOCKET_IFNAME=ifb selects ifb0 (down, no address), ifb1 (down, no address), but none of "
                          "them has an IP address"),
            std::string::npos)
      << r.detail;
  EXPECT_NE(r.detail.find("give the interface its address (an IPoIB interface needs one configured)"), std::string::npos);
  r = with("=ifb0");
  ASSERT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("selects ifb0 (down, no address), but it has no IP address"), std::string::npos) << r.detail;
  // Only the IPv6 loopback: NCCL skips ::1 too.
  (*state.facts.net_interfaces.value)[1].addresses = std::vector<std::string>{"::1/128"};
  EXPECT_EQ(with("=ifb0").status, CheckStatus::fail);
  // No ip on the node: whether the interface has an address is unknown, never a pass.
  for (auto& interface : *state.facts.net_interfaces.value) interface.addresses.reset();
  r = with("=eth0");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_EQ(r.observed, "eth0 (up), ifb0 (down), ifb1 (down), lo (unknown)");
  EXPECT_NE(r.detail.find("whether it has an IP address is unknown: the node has no `ip` command (install iproute2)"),
            std::string::npos)
      << r.detail;
  // Selecting nothing stays a failure, addresses or not.
  EXPECT_EQ(with("=bond0").status, CheckStatus::fail);
}

// No ip on the node (the lent H200): the IPv6 addresses from /proc/net/if_inet6 prove an
// interface NCCL can take; without one, IPv4 is unknown and the check an error, never a fail.
TEST_F(NcclSocketIfnameCheck, OnlyIpv6ReadWithoutIp) {
  auto interfaces = facts::parse_net_interfaces(read_test_data("net/probe-build-host-no-ip.txt"));
  ASSERT_TRUE(interfaces);
  state.facts.net_interfaces = Fact<std::vector<NetInterface>>::of(*interfaces);
  auto r = with("^docker,lo");
  EXPECT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_EQ(r.observed, "eth0 (up, fe80::fc:ff:fe00:1/64 +1), ifb0 (down, no IPv6 address, IPv4 unknown), ifb1 (down, no "
                        "IPv6 address, IPv4 unknown), lo (unknown, ::1/128)");
  EXPECT_EQ(r.detail, "NCCL takes eth0 (up, fe80::fc:ff:fe00:1/64 +1); also selected, IPv4 address unknown: ifb0 "
                      "(down, no IPv6 address, IPv4 unknown), ifb1 (down, no IPv6 address, IPv4 unknown)");
  r = with("=ifb0");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.detail.find("which has no IPv6 address, and whether it has an IPv4 one is unknown: the node has no `ip` "
                          "command (install iproute2)"),
            std::string::npos)
      << r.detail;
  EXPECT_EQ(with("=lo").status, CheckStatus::error) << "::1 alone is no address to NCCL";
}

TEST_F(NcclSocketIfnameCheck, FailsNamingTheSettingAndTheNodesInterfaces) {
  auto r = with("=bond0");
  ASSERT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, k_observed);
  EXPECT_NE(r.detail.find("NCCL_SOCKET_IFNAME==bond0 selects none of the node's interfaces (eth0, ifb0, ifb1, lo)"),
            std::string::npos)
      << r.detail;
  EXPECT_NE(r.detail.find("fix cluster.nccl's NCCL_SOCKET_IFNAME or the node's interface names"), std::string::npos);
  r = with("^eth,ifb");  // only lo is left: a job across nodes cannot use it
  ASSERT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("leaves none besides lo"), std::string::npos) << r.detail;
  r = with("e");
  ASSERT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("NCCL ignores a NCCL_SOCKET_IFNAME of one character"), std::string::npos) << r.detail;
  EXPECT_EQ(with("=eth").status, CheckStatus::fail);
  // A failing check cites what it read.
  state.facts.sources["net_interfaces"] = {"grep . /sys/class/net/*/operstate", "iface eth0 up\n", 0};
  r = with("=bond0");
  EXPECT_EQ(r.command, "grep . /sys/class/net/*/operstate");
  EXPECT_EQ(r.output, "iface eth0 up\n");
}

TEST_F(NcclSocketIfnameCheck, SkippedWithoutTheSettingErrorWithoutTheInterfaces) {
  inventory.cluster.nccl.erase("NCCL_SOCKET_IFNAME");
  auto r = run("nccl_socket_ifname");
  EXPECT_EQ(r.status, CheckStatus::skipped);
  EXPECT_EQ(r.detail, "NCCL_SOCKET_IFNAME is not declared in cluster.nccl");
  state.facts.net_interfaces = Fact<std::vector<NetInterface>>::absent("/sys/class/net: Permission denied");
  r = with("=eth0");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_EQ(r.detail, "network interfaces unknown: /sys/class/net: Permission denied");
}

TEST_F(NcclSocketIfnameCheck, ListsAtMostSixteenInterfaces) {
  std::vector<NetInterface> many;
  for (int i = 0; i < 40; ++i) many.push_back({fmt::format("veth{:02}", i), "up"});
  state.facts.net_interfaces = Fact<std::vector<NetInterface>>::of(many);
  const auto r = with("=bond0");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_TRUE(r.observed.ends_with("veth15 (up) and 24 more")) << r.observed;
}

// ---- gpu-node.yaml ----------------------------------------------------------------------

TEST(NcclStep, ChecksTheConfAndTheSocketInterface) {
  auto loaded = load_inventory(std::string(GPUCTL_SOURCE_DIR) + "/docs/examples/cluster.yaml");
  ASSERT_TRUE(loaded.ok());
  ProgramSources sources;
  sources.templates_dir = testing::k_shipped_templates_dir;
  sources.secrets = SecretMode::masked;
  auto program = resolve_program(*loaded.inventory, loaded.inventory->nodes[1], testing::shipped_playbooks(), sources);
  ASSERT_TRUE(program) << program.error().to_string();
  const auto step = std::ranges::find_if(program->steps, [](const ResolvedStep& s) { return s.step->name == "nccl"; });
  ASSERT_NE(step, program->steps.end());
  EXPECT_EQ(step->step->checks, (std::vector<std::string>{"nccl_conf", "nccl_socket_ifname"}));
  std::vector<std::string> names;
  for (const auto& info : known_checks()) names.push_back(info.name);
  EXPECT_EQ(std::ranges::count(names, "nccl_socket_ifname"), 1);
}

}  // namespace
}  // namespace gpuctl
