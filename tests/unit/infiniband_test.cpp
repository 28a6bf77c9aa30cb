// InfiniBand/RDMA (issue #19): the sysfs probe and its parser on the kernel's real formats
// (tests/data/infiniband/, with sources), the inventory's `ib` and NCCL_IB_HCA lint, the
// ib_ports / nvidia_peermem / nccl_ib_hca checks, and the rdma step of gpu-node.yaml.
#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/inventory/nccl_ib_hca.hpp>
#include <gpuctl/plan/program.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/checks.hpp>

#include "probe_capture.hpp"
#include "probe_shell.hpp"
#include "check_fixture.hpp"
#include "program_builder.hpp"
#include "shipped_playbooks.hpp"
#include "temp_dir.hpp"
#include "template_test_inventory.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace gpuctl {
namespace {

using testing::read_test_data;

std::vector<InfinibandPort> parse_ok(const std::string& text) {
  auto ports = facts::parse_infiniband_ports(text);
  EXPECT_TRUE(ports) << (ports ? "" : ports.error().to_string());
  return ports ? *ports : std::vector<InfinibandPort>{};
}

// ibstatus prints each port's sysfs files verbatim ("state:\t\t 2: INIT"): the probe's form of
// the same port, so the parser reads a real capture.
std::string probe_form_of_ibstatus(const std::string& ibstatus) {
  std::string out;
  for (const auto& line : util::split_lines(ibstatus)) {
    const auto text = std::string(util::trim(line));
    if (text.starts_with("Infiniband device '")) {
      const auto name_end = text.find('\'', 19);
      const auto port_at = text.find(" port ", name_end);
      out += "port " + text.substr(19, name_end - 19) + " " + text.substr(port_at + 6, text.find(' ', port_at + 6) - port_at - 6) + "\n";
      continue;
    }
    const auto colon = text.find(':');
    if (colon == std::string::npos) continue;
    const auto key = text.substr(0, colon);
    const auto value = std::string(util::trim(text.substr(colon + 1)));
    if (key == "state") out += "state=" + value + "\n";
    else if (key == "phys state") out += "phys_state=" + value + "\n";
    else if (key == "rate") out += "rate=" + value + "\n";
    else if (key == "link_layer") out += "link_layer=" + value + "\n";
  }
  return out;
}

// ---- parser -----------------------------------------------------------------------------

TEST(InfinibandParser, ReadsAnHgxNodeAtNdr) {
  const auto ports = parse_ok(read_test_data("infiniband/probe-hgx-ndr.txt"));
  ASSERT_EQ(ports.size(), 8u);
  EXPECT_EQ(ports[0].hca, "mlx5_0");
  EXPECT_EQ(ports[7].hca, "mlx5_7");
  for (const auto& port : ports) {
    EXPECT_EQ(port.port, 1);
    EXPECT_EQ(port.state, "ACTIVE");
    EXPECT_EQ(port.phys_state, "LinkUp");
    EXPECT_EQ(port.rate, "400 Gb/sec (4X NDR)");
    EXPECT_EQ(port.rate_gbps, 400.0);
    EXPECT_EQ(port.link_layer, "InfiniBand");
  }
}

TEST(InfinibandParser, ReadsTheRealIbstatusCaptureOfAnInitAndAPollingPort) {
  const auto ports = parse_ok(probe_form_of_ibstatus(read_test_data("infiniband/ibstatus-mthca0-init-polling.txt")));
  ASSERT_EQ(ports.size(), 2u);
  EXPECT_EQ(ports[0].hca, "mthca0");
  EXPECT_EQ(ports[0].state, "INIT");
  EXPECT_EQ(ports[0].phys_state, "LinkUp");
  EXPECT_EQ(ports[0].rate_gbps, 10.0);  // "10 Gb/sec (4X)": SDR before kernels named it
  EXPECT_EQ(ports[1].port, 2);
  EXPECT_EQ(ports[1].state, "DOWN");
  EXPECT_EQ(ports[1].phys_state, "Polling");
}

TEST(InfinibandParser, EveryKernelFormOfTheValues) {
  const auto ports = parse_ok(read_test_data("infiniband/probe-faults.txt") + read_test_data("infiniband/probe-roce.txt"));
  ASSERT_EQ(ports.size(), 9u);
  EXPECT_EQ(ports[3].phys_state, "Disabled");
  EXPECT_EQ(ports[4].rate_gbps, 200.0);
  EXPECT_EQ(ports[5].state, "ARMED");
  EXPECT_EQ(ports[6].link_layer, "Ethernet");
  EXPECT_EQ(ports[7].rate_gbps, 25.0);
  // The half the kernel prints for SDR x1 and the name with a space.
  const auto odd = parse_ok("port qib0 1\nstate=5: ACTIVE_DEFER\nphys_state=7: Phy Test\nrate=2.5 Gb/sec (1X SDR)\nlink_layer=Unknown\n");
  ASSERT_EQ(odd.size(), 1u);
  EXPECT_EQ(odd[0].rate_gbps, 2.5);
  EXPECT_EQ(odd[0].phys_state, "Phy Test");
}

TEST(InfinibandParser, NoInfinibandIsNoHcasAndAnUnreadableFileStaysUnknown) {
  EXPECT_TRUE(parse_ok("no_infiniband\n").empty());
  EXPECT_TRUE(parse_ok("").empty());  // the class exists, no device in it
  const auto ports = parse_ok("port mlx5_0 1\nstate=\nphys_state=5: LinkUp\nrate=\nlink_layer=InfiniBand\n");
  ASSERT_EQ(ports.size(), 1u);
  EXPECT_TRUE(ports[0].state.empty());
  EXPECT_FALSE(ports[0].rate_gbps);
}

TEST(InfinibandParser, RefusesWhatTheKernelDoesNotPrint) {
  for (const char* bad : {"state=4: ACTIVE\n", "port mlx5_0\n", "port mlx5_0 x\n", "port mlx5_0 1\nstate=ACTIVE\n",
                          "port mlx5_0 1\nrate=fast\n", "port mlx5_0 1\nrate=400 Gbps\n", "port mlx5_0 1\nspeed=1\n",
                          "port mlx5_0 1\ngarbage\n"})
    EXPECT_FALSE(facts::parse_infiniband_ports(bad)) << bad;
}

// ---- the probe under this host's shell ------------------------------------------------------

std::string infiniband_probe_body() { return testing::probe_body("infiniband"); }

std::string run_sh(const std::string& body, const std::string& root) {
  return testing::run_probe_body(body, {{"/sys/class/infiniband", root}}).out;
}

TEST(InfinibandProbe, ReadsSysfsWithTheShellAloneAndOnlyInVerifyOrFacts) {
  const auto body = infiniband_probe_body();
  for (const auto* helper : {"$(", "`", "cat ", " | ", "ls ", "grep"}) EXPECT_EQ(body.find(helper), std::string::npos) << helper;
  facts::CollectOptions plan;
  plan.optional_probes.emplace();
  const auto lean = facts::probe_names(plan);
  EXPECT_EQ(std::ranges::count(lean, "infiniband"), 0);
  EXPECT_EQ(std::ranges::count(facts::probe_names(), "infiniband"), 1);
}

TEST(InfinibandProbe, RunsOnAFakeSysfsTree) {
  testing::TempDir root;
  // The tree of tests/data/infiniband/probe-faults.txt's first two ports, and an unreadable file.
  const auto port = [&](const std::string& hca, const std::string& state, const std::string& phys, const std::string& rate) {
    const auto dir = root.path() + "/" + hca + "/ports/1";
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/state") << state << "\n";
    std::ofstream(dir + "/phys_state") << phys << "\n";
    if (!rate.empty()) std::ofstream(dir + "/rate") << rate << "\n";
    std::ofstream(dir + "/link_layer") << "InfiniBand\n";
  };
  port("mlx5_0", "4: ACTIVE", "5: LinkUp", "400 Gb/sec (4X NDR)");
  port("mlx5_1", "1: DOWN", "2: Polling", "");
  const auto out = run_sh(infiniband_probe_body(), root.path());
  const auto ports = parse_ok(out);
  ASSERT_EQ(ports.size(), 2u) << out;
  EXPECT_EQ(ports[0].rate, "400 Gb/sec (4X NDR)");
  EXPECT_EQ(ports[1].state, "DOWN");
  EXPECT_FALSE(ports[1].rate_gbps) << "a missing file is unknown, not 0";
  EXPECT_EQ(run_sh(infiniband_probe_body(), root.path() + "/none"), "no_infiniband\n");
}

TEST(InfinibandProbe, FactIsAbsentWithTheReasonWhenTheProbeFails) {
  std::map<std::string, facts::ProbeOutput> probes;
  probes["infiniband"] = {1, "", "/sys/class/infiniband: Permission denied"};
  auto facts = facts::facts_from_probes("n", probes);
  ASSERT_FALSE(facts.infiniband.present());
  EXPECT_EQ(facts.infiniband.absent_reason, "/sys/class/infiniband: /sys/class/infiniband: Permission denied");
  probes["infiniband"] = {0, "no_infiniband\n", ""};
  facts = facts::facts_from_probes("n", probes);
  ASSERT_TRUE(facts.infiniband.present());
  EXPECT_TRUE(facts.infiniband.value->empty());
  EXPECT_FALSE(facts::facts_from_probes("n", {}).infiniband.present());
}

// ---- NCCL_IB_HCA --------------------------------------------------------------------------

TEST(NcclIbHca, ParsesNcclsForms) {
  auto list = parse_nccl_ib_hca("mlx5");
  EXPECT_FALSE(list.exclude || list.exact);
  ASSERT_EQ(list.hcas.size(), 1u);
  EXPECT_TRUE(nccl_hca_matches(list, list.hcas[0], "mlx5_3", 1));
  list = parse_nccl_ib_hca("=mlx5_0:1,mlx5_1:1");
  EXPECT_TRUE(list.exact);
  ASSERT_EQ(list.hcas.size(), 2u);
  EXPECT_EQ(list.hcas[1].name, "mlx5_1");
  EXPECT_EQ(list.hcas[1].port, 1);
  EXPECT_TRUE(nccl_hca_matches(list, list.hcas[0], "mlx5_0", 1));
  EXPECT_FALSE(nccl_hca_matches(list, list.hcas[0], "mlx5_0", 2));
  EXPECT_FALSE(nccl_hca_matches(list, list.hcas[0], "mlx5_01", 1));
  list = parse_nccl_ib_hca("^=mlx5_1,mlx5_4");
  EXPECT_TRUE(list.exclude && list.exact);
  EXPECT_EQ(list.hcas.size(), 2u);
}

// ---- inventory ----------------------------------------------------------------------------

std::string diagnostics(const LoadResult& result) {
  std::string out;
  for (const auto& d : result.diagnostics) out += d.to_string() + "\n";
  return out;
}

TEST(InventoryIb, DeclaresRateLinkLayerAndGpudirectKeyByKey) {
  const auto result = load_inventory_text(
      "cluster: {name: c}\n"
      "defaults: {ib: {rate: 400, link_layer: InfiniBand}}\n"
      "hosts:\n"
      "  a1: {ib_hcas: [mlx5_0], ib: {gpudirect_rdma: true}}\n"
      "  a2: {ib: {link_layer: Ethernet, rate: 200}}\n"
      "  a3: {}\n",
      "inv.yaml");
  ASSERT_TRUE(result.ok()) << diagnostics(result);
  const auto& nodes = result.inventory->nodes;
  ASSERT_TRUE(nodes[0].ib);
  EXPECT_EQ(nodes[0].ib->min_rate_gbps, 400.0);
  EXPECT_EQ(nodes[0].ib->link_layer, "InfiniBand");
  EXPECT_TRUE(nodes[0].ib->gpudirect_rdma);
  EXPECT_EQ(nodes[1].ib->link_layer, "Ethernet");
  EXPECT_FALSE(nodes[1].ib->gpudirect_rdma);
  EXPECT_EQ(nodes[2].ib->min_rate_gbps, 400.0);
}

TEST(InventoryIb, BadValuesAreRefusedAtTheirLine) {
  const auto check = [](const std::string& ib, int column, const std::string& words) {
    const auto result = load_inventory_text("cluster: {name: c}\nhosts:\n  a1: {ib: " + ib + "}\n", "inv.yaml");
    EXPECT_FALSE(result.ok()) << ib;
    const auto it = std::ranges::find_if(result.diagnostics, [&](const Diagnostic& d) {
      return d.message.find(words) != std::string::npos;
    });
    ASSERT_NE(it, result.diagnostics.end()) << diagnostics(result);
    EXPECT_EQ(std::pair(it->line, it->column), std::pair(3, column)) << diagnostics(result);
  };
  check("{link_layer: infiniband}", 25, "'ib.link_layer'");
  check("{rate: -1}", 19, "'ib.rate'");
  check("{gpudirect_rdma: maybe}", 29, "'ib.gpudirect_rdma'");
  check("{speed: 400}", 13, "speed");
  check("{}", 12, "'ib' declares nothing");
}

TEST(InventoryIb, LintsAnNcclIbHcaTheHostsDoNotList) {
  const std::string head = "cluster:\n  name: c\n  nccl:\n    NCCL_IB_HCA: ";
  const std::string hosts =
      "\ngroups:\n  gpu: {hosts: \"g[1-4]\", vars: {ib_hcas: [mlx5_0, mlx5_1]}}\n  cpu: {hosts: c1}\n";
  auto result = load_inventory_text(head + "\"=mlx5_0,mlx5_2\"" + hosts, "inv.yaml");
  ASSERT_TRUE(result.ok()) << diagnostics(result);
  ASSERT_EQ(result.diagnostics.size(), 1u) << diagnostics(result);
  const auto& warning = result.diagnostics[0];
  EXPECT_EQ(warning.severity, Severity::warning);
  EXPECT_EQ(std::pair(warning.line, warning.column), std::pair(4, 18));
  EXPECT_NE(warning.message.find("NCCL_IB_HCA names 'mlx5_2', which is not among the ib_hcas of hosts 'g[1-4]'"),
            std::string::npos)
      << warning.message;
  // A prefix that matches, an exclusion, a port of a listed HCA: nothing to say.
  for (const char* fine : {"mlx5", "\"^mlx5_7\"", "\"mlx5_0:1,mlx5_1:1\""}) {
    result = load_inventory_text(head + fine + hosts, "inv.yaml");
    EXPECT_TRUE(result.diagnostics.empty()) << fine << "\n" << diagnostics(result);
  }
  // The example inventory names exactly its HCAs.
  result = load_inventory(std::string(GPUCTL_SOURCE_DIR) + "/docs/examples/cluster.yaml");
  EXPECT_TRUE(result.diagnostics.empty()) << diagnostics(result);
  ASSERT_TRUE(result.inventory->nodes[1].ib);
  EXPECT_TRUE(result.inventory->nodes[1].ib->gpudirect_rdma);
}

// ---- checks -------------------------------------------------------------------------------

class IbChecks : public testing::SingleCheckTest {
 protected:
  IbChecks() {
    node.ib_hcas = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_7"};
    set_ports("probe-hgx-ndr.txt");
    state.facts.loaded_modules = Fact<std::vector<std::string>>::of({"nvidia_peermem", "nvidia"});
  }

  void set_ports(const std::string& file) {
    state.facts.infiniband = Fact<std::vector<InfinibandPort>>::of(parse_ok(read_test_data("infiniband/" + file)));
  }

};

TEST_F(IbChecks, AHealthyNdrNodePasses) {
  node.ib = IbSpec{400.0, "InfiniBand", true};
  auto r = run("ib_ports");
  EXPECT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_EQ(r.observed, "8 ports ACTIVE/LinkUp, 400 Gb/sec (4X NDR), InfiniBand");
  EXPECT_EQ(r.expected, "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7 ACTIVE/LinkUp, >= 400 Gb/sec, InfiniBand");
  EXPECT_EQ(run("nvidia_peermem").status, CheckStatus::pass);
  inventory.cluster.nccl["NCCL_IB_HCA"] = "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7";
  r = run("nccl_ib_hca");
  EXPECT_EQ(r.status, CheckStatus::pass) << r.detail;
}

TEST_F(IbChecks, SkippedWhenNotDeclaredErrorWhenNotGathered) {
  node.ib_hcas.clear();
  node.ib.reset();
  inventory.cluster.nccl.erase("NCCL_IB_HCA");
  EXPECT_EQ(run("ib_ports").status, CheckStatus::skipped);
  EXPECT_EQ(run("nvidia_peermem").status, CheckStatus::skipped);
  EXPECT_EQ(run("nccl_ib_hca").status, CheckStatus::skipped);
  node.ib_hcas = {"mlx5_0"};
  node.ib = IbSpec{std::nullopt, "", true};
  inventory.cluster.nccl["NCCL_IB_HCA"] = "mlx5_0";
  state.facts.infiniband = Fact<std::vector<InfinibandPort>>::absent("/sys/class/infiniband: Permission denied");
  state.facts.loaded_modules = Fact<std::vector<std::string>>::absent("/proc/modules: No such file or directory");
  for (const char* check : {"ib_ports", "nccl_ib_hca", "nvidia_peermem"}) {
    const auto r = run(check);
    EXPECT_EQ(r.status, CheckStatus::error) << check;
    EXPECT_NE(r.detail.find("unknown:"), std::string::npos) << r.detail;
  }
}

TEST_F(IbChecks, EachFaultyPortIsNamedWithItsFix) {
  node.ib = IbSpec{400.0, "InfiniBand", false};
  set_ports("probe-faults.txt");
  const auto r = run("ib_ports");
  ASSERT_EQ(r.status, CheckStatus::fail);
  for (const char* seen : {"mlx5_1:1 DOWN/Polling, 10 Gb/sec (4X), InfiniBand", "mlx5_2:1 INIT/LinkUp",
                           "mlx5_3:1 DOWN/Disabled", "mlx5_4:1 ACTIVE/LinkUp, 200 Gb/sec (4X HDR)", "mlx5_5:1 ARMED/LinkUp",
                           "mlx5_6:1 ACTIVE/LinkUp, 100 Gb/sec (4X EDR), Ethernet", "mlx5_7 missing"})
    EXPECT_NE(r.observed.find(seen), std::string::npos) << seen << "\n" << r.observed;
  EXPECT_EQ(r.observed.find("mlx5_0"), std::string::npos) << "a healthy port is not listed";
  for (const char* fix : {"mlx5_1:1: no link (Polling): check the cable", "mlx5_2:1: the link is up but no subnet manager",
                          "mlx5_3:1: the port is disabled", "mlx5_4:1: the link trained at 200 Gb/sec, below 400",
                          "the port runs Ethernet: set its type with mlxconfig LINK_TYPE_P1 (1 = InfiniBand)",
                          "mlx5_7: not in /sys/class/infiniband"})
    EXPECT_NE(r.detail.find(fix), std::string::npos) << fix << "\n" << r.detail;
}

// A port with no link (DOWN/Polling, the kernel's idle "10 Gb/sec (4X)", as in the real ibstatus
// capture) has no trained rate: it says it has no link, never "trained at 10 Gb/sec ... reseat".
TEST_F(IbChecks, APortWithNoLinkSaysSoNotThatItTrainedSlow) {
  node.ib = IbSpec{400.0, "InfiniBand", false};
  node.ib_hcas = {"mlx5_1", "mlx5_3"};
  set_ports("probe-faults.txt");
  const auto r = run("ib_ports");
  ASSERT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("mlx5_1:1: no link (Polling): check the cable"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("mlx5_3:1: the port is disabled"), std::string::npos) << r.detail;
  EXPECT_EQ(r.detail.find("trained at"), std::string::npos) << r.detail;
}

TEST_F(IbChecks, RoceAndNamedPorts) {
  node.ib_hcas = {"mlx5_0:1"};
  node.ib = IbSpec{25.0, "Ethernet", false};
  set_ports("probe-roce.txt");
  EXPECT_EQ(run("ib_ports").status, CheckStatus::pass);
  node.ib_hcas = {"mlx5_0:2"};
  auto r = run("ib_ports");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "mlx5_0 has no port 2");
  node.ib_hcas = {"mlx5_1"};
  r = run("ib_ports");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("the port is disabled"), std::string::npos) << r.detail;
}

TEST_F(IbChecks, NoHcasOnTheNodeFailsEveryDeclaredOne) {
  state.facts.infiniband = Fact<std::vector<InfinibandPort>>::of({});
  const auto r = run("ib_ports");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.observed.find("mlx5_0 missing; mlx5_1 missing"), std::string::npos) << r.observed;
}

TEST_F(IbChecks, AnUnreadableValueIsNeverAPass) {
  node.ib_hcas = {"mlx5_0"};
  node.ib = IbSpec{400.0, "", false};
  state.facts.infiniband = Fact<std::vector<InfinibandPort>>::of(
      parse_ok("port mlx5_0 1\nstate=4: ACTIVE\nphys_state=5: LinkUp\nrate=\nlink_layer=InfiniBand\n"));
  const auto r = run("ib_ports");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_EQ(r.observed, "mlx5_0:1 rate unreadable");
}

TEST_F(IbChecks, PeermemNotLoadedFails) {
  node.ib = IbSpec{std::nullopt, "", true};
  state.facts.loaded_modules = Fact<std::vector<std::string>>::of({"nvidia", "mlx5_ib"});
  const auto r = run("nvidia_peermem");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("modprobe nvidia-peermem"), std::string::npos);
}

// Issue #34: where the kernel log shows the module refused for a symbol version (the real
// dmesg of NVIDIA/gpu-operator #2868), modprobe cannot help: the hint says rebuild it for the
// running ib_core/MOFED. An ib_core without the peer-memory API (Mellanox/nv_peer_memory #84)
// says install MOFED.
TEST_F(IbChecks, PeermemRefusedForASymbolVersionSaysRebuildNotModprobe) {
  node.ib = IbSpec{std::nullopt, "", true};
  state.facts.loaded_modules = Fact<std::vector<std::string>>::of({"nvidia", "mlx5_ib"});
  const auto lines = facts::parse_peermem_kernel_errors(read_test_data("kernel-log/dmesg-peermem-symbol-version.txt"));
  ASSERT_TRUE(lines) << lines.error().message;
  ASSERT_EQ(lines->size(), 8u);
  EXPECT_EQ(lines->front(), "nvidia_peermem: disagrees about version of symbol ib_register_peer_memory_client");
  state.facts.peermem_kernel_errors = Fact<std::vector<std::string>>::of(*lines);
  const auto r = run("nvidia_peermem");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "not loaded: nvidia_peermem: disagrees about version of symbol ib_register_peer_memory_client");
  EXPECT_NE(r.detail.find("built against another ib_core (MLNX_OFED/DOCA-OFED)"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("DKMS"), std::string::npos) << r.detail;
  EXPECT_EQ(r.detail.find("modprobe nvidia-peermem;"), std::string::npos) << "no modprobe-first advice: " << r.detail;

  const auto inbox = facts::parse_peermem_kernel_errors(read_test_data("kernel-log/dmesg-peermem-unknown-symbol.txt"));
  ASSERT_TRUE(inbox) << inbox.error().message;
  state.facts.peermem_kernel_errors = Fact<std::vector<std::string>>::of(*inbox);
  const auto missing = run("nvidia_peermem");
  EXPECT_NE(missing.detail.find("no peer-memory API"), std::string::npos) << missing.detail;

  // A log that could not be read leaves the plain advice, saying where the reason would be.
  state.facts.peermem_kernel_errors = Fact<std::vector<std::string>>::absent("dmesg exited 1: not permitted");
  EXPECT_NE(run("nvidia_peermem").detail.find("its reason is in the kernel log"), std::string::npos);
}

TEST_F(IbChecks, NcclIbHcaNamesOnlyHcasOfTheNode) {
  inventory.cluster.nccl["NCCL_IB_HCA"] = "=mlx5_0,mlx5_9:1";
  auto r = run("nccl_ib_hca");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("NCCL_IB_HCA names mlx5_9:1, not on this node"), std::string::npos) << r.detail;
  inventory.cluster.nccl["NCCL_IB_HCA"] = "mlx5";  // a prefix: every mlx5_*
  EXPECT_EQ(run("nccl_ib_hca").status, CheckStatus::pass);
  inventory.cluster.nccl["NCCL_IB_HCA"] = "=mlx5";  // exact: no HCA is called mlx5
  EXPECT_EQ(run("nccl_ib_hca").status, CheckStatus::fail);
  inventory.cluster.nccl["NCCL_IB_HCA"] = "^mlx5";  // excludes them all
  r = run("nccl_ib_hca");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("excludes every HCA"), std::string::npos);
  inventory.cluster.nccl["NCCL_IB_HCA"] = "^=mlx5_7,mlx5_42";
  EXPECT_EQ(run("nccl_ib_hca").status, CheckStatus::pass);
}

TEST(IbChecksKnown, AreListedAndCiteWhatTheyRead) {
  std::vector<std::string> names;
  for (const auto& info : known_checks()) names.push_back(info.name);
  for (const char* check : {"ib_ports", "nvidia_peermem", "nccl_ib_hca"})
    EXPECT_EQ(std::ranges::count(names, check), 1) << check;
}

// ---- the rdma step ------------------------------------------------------------------------

TEST(RdmaStep, InstallsTheRdmaStackAndLoadsPeermemWhereDeclared) {
  auto loaded = load_inventory(std::string(GPUCTL_SOURCE_DIR) + "/docs/examples/cluster.yaml");
  ASSERT_TRUE(loaded.ok());
  auto inventory = *loaded.inventory;
  ProgramSources sources;
  sources.templates_dir = testing::k_shipped_templates_dir;
  sources.secrets = SecretMode::masked;
  const auto step_of = [&](const Node& node) -> std::optional<ResolvedStep> {
    auto program = resolve_program(inventory, node, testing::shipped_playbooks(), sources);
    EXPECT_TRUE(program) << program.error().to_string();
    for (const auto& step : program->steps)
      if (step.step->name == "rdma") return step;
    return std::nullopt;
  };
  auto& gpu01 = inventory.nodes[1];
  auto step = step_of(gpu01);
  ASSERT_TRUE(step);
  EXPECT_EQ(step->step->checks, (std::vector<std::string>{"ib_ports", "nvidia_peermem", "nccl_ib_hca"}));
  std::vector<std::string> what;
  for (const auto& r : step->resources)
    what.push_back(r.resource.kind == ResourceKind::package ? r.resource.package.name
                   : r.resource.kind == ResourceKind::file  ? r.resource.file.path
                                                            : r.resource.command.run);
  EXPECT_EQ(what, (std::vector<std::string>{"rdma-core", "ibverbs-utils", "infiniband-diags",
                                            "/etc/modules-load.d/nvidia-peermem.conf", "modprobe nvidia-peermem"}));
  // /proc/modules where the kernel has it, lsmod where it has not (the sandbox's kernel).
  const auto& unless = step->resources[4].resource.command.unless;
  EXPECT_NE(unless.find("grep -q '^nvidia_peermem ' /proc/modules"), std::string::npos) << unless;
  EXPECT_NE(unless.find("lsmod 2>/dev/null | grep -q '^nvidia_peermem '"), std::string::npos) << unless;
  EXPECT_NE(step->resources[3].content.find("\nnvidia-peermem\n"), std::string::npos);
  gpu01.ib->gpudirect_rdma = false;
  step = step_of(gpu01);
  ASSERT_TRUE(step);
  EXPECT_EQ(step->resources.size(), 3u);
  gpu01.ib_hcas.clear();
  EXPECT_FALSE(step_of(gpu01)) << "no HCAs declared: no RDMA stack";
  EXPECT_FALSE(step_of(inventory.nodes[0])) << "the head node";
}

}  // namespace
}  // namespace gpuctl
