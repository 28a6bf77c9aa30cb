// Verify's health facts and checks (issue #19): the kernel log's Xids, clock slowdown, GPU
// temperature and the NVSwitch fabric's registration. Parsers on real captures
// (tests/data/kernel-log/, tests/data/nvidia-smi/); checks on NodeFacts built from them.
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/verify/checks.hpp>
#include <gpuctl_build_paths.hpp>

#include "probe_capture.hpp"
#include "probe_shell.hpp"
#include "check_fixture.hpp"
#include "program_builder.hpp"
#include "template_test_inventory.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace gpuctl {
namespace {

using facts::parse_clock_events;
using facts::parse_fabric;
using facts::parse_kernel_xids;
using testing::read_test_data;

TEST(KernelXidParser, ReadsDmesgAndJournalFormsOfRealLogs) {
  const auto dmesg = parse_kernel_xids(read_test_data("kernel-log/dmesg-xids.txt"));
  ASSERT_TRUE(dmesg) << dmesg.error().message;
  ASSERT_EQ(dmesg->size(), 4u);  // the NVRM load line is no Xid
  EXPECT_EQ((*dmesg)[0].pci, "0000:44:00");
  EXPECT_EQ((*dmesg)[0].code, 79);
  EXPECT_EQ((*dmesg)[0].message, "GPU has fallen off the bus.");
  EXPECT_EQ((*dmesg)[1].code, 63);
  EXPECT_EQ((*dmesg)[1].message, "pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.");
  EXPECT_EQ((*dmesg)[2].pci, "0000:c6:00");
  EXPECT_EQ((*dmesg)[3].pci, "0000:03:00") << "the older form without PCI:";
  EXPECT_EQ((*dmesg)[3].code, 14);

  const auto journal = parse_kernel_xids(read_test_data("kernel-log/journalctl-xids.txt"));
  ASSERT_TRUE(journal) << journal.error().message;
  ASSERT_EQ(journal->size(), 2u);
  EXPECT_EQ((*journal)[1].code, 43);

  // Newer drivers: pid='<unknown>', name=<unknown>; dmesg --ctime timestamps; other NVRM lines.
  const auto gpud = parse_kernel_xids(read_test_data("kernel-log/dmesg-gpud.txt"));
  ASSERT_TRUE(gpud) << gpud.error().message;
  ASSERT_EQ(gpud->size(), 2u);
  EXPECT_EQ((*gpud)[0].code, 13);
  EXPECT_EQ((*gpud)[0].pci, "0000:cb:00");
  EXPECT_EQ((*gpud)[1].code, 109);
}

// The inventory keys the health checks read are closed grammars: hostile text is refused at its line.
TEST(HealthInventory, HostileValuesOfTheNewKeysAreRefusedAtTheirLine) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"gpu: {model: H100, count: 8, max_temperature_c: \"85; reboot\"}", "'gpu.max_temperature_c'"},
      {"gpu: {model: H100, count: 8, max_temperature_c: 500}", "'gpu.max_temperature_c'"},
      {"gpu: {model: H100, count: 8, dcgm_diag: {level: \"1 $(id)\"}}", "'gpu.dcgm_diag.level'"},
      {"ib: {link_layer: \"InfiniBand`id`\"}", "ib.link_layer"},
      {"ib: {rate: \"400; id\"}", "ib.rate"},
  };
  for (const auto& [value, what] : cases) {
    const auto text = "cluster:\n  name: lab\nhosts:\n  gpu01:\n    address: 10.0.0.1\n    " + value + "\n";
    const auto loaded = load_inventory_text(text, "c.yaml");
    ASSERT_FALSE(loaded.ok()) << value;
    EXPECT_NE(loaded.diagnostics[0].message.find(what), std::string::npos) << loaded.diagnostics[0].message;
    EXPECT_NE(loaded.diagnostics[0].to_string().find("c.yaml:6:"), std::string::npos) << loaded.diagnostics[0].to_string();
  }
}

// The real H200 machine: its driver's NVRM lines, none an Xid; its clock reasons (all "Not
// Active") and its fabric (N/A: no NVSwitch), as nvidia-smi 580.159.04 printed them.
TEST(HealthParsers, RealH200Captures) {
  const auto xids = parse_kernel_xids(read_test_data("kernel-log/h200-dmesg-nvrm.txt"));
  ASSERT_TRUE(xids) << xids.error().message;
  EXPECT_TRUE(xids->empty());
  const auto clocks = parse_clock_events(read_test_data("nvidia-smi/h200-1gpu/device-2026-12-05/clock-events.csv"));
  ASSERT_TRUE(clocks) << clocks.error().message;
  ASSERT_EQ(clocks->size(), 1u);
  EXPECT_EQ((*clocks)[0].pci_bus_id, "00000000:00:06.0");
  EXPECT_EQ((*clocks)[0].hw_thermal_slowdown, false);
  EXPECT_EQ((*clocks)[0].sw_thermal_slowdown, false);
  const auto fabric = parse_fabric(read_test_data("nvidia-smi/h200-1gpu/nvidia-smi-q.txt"));
  ASSERT_TRUE(fabric) << fabric.error().message;
  ASSERT_EQ(fabric->size(), 1u);
  EXPECT_EQ((*fabric)[0].pci_bus_id, "00000000:00:06.0");
  EXPECT_EQ((*fabric)[0].state, "N/A");
  EXPECT_FALSE((*fabric)[0].state_reported);
  EXPECT_EQ((*fabric)[0].clique_id, "N/A");
  ASSERT_EQ((*fabric)[0].health.size(), 7u);  // Summary ... Partition Assigned (R580)
  EXPECT_EQ((*fabric)[0].health[0], (std::pair<std::string, std::string>{"Summary", "N/A"}));
  EXPECT_EQ((*fabric)[0].health[3].first, "Route Unhealthy");
}

TEST(KernelXidParser, ARefusedOrCutShortReadIsNeverAnEmptyLog) {
  const auto refused = parse_kernel_xids(read_test_data("kernel-log/dmesg-restricted.txt"));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "dmesg exited 1: dmesg: read kernel buffer failed: Operation not permitted");
  EXPECT_FALSE(parse_kernel_xids("")) << "no rc line: the probe was cut short";
  EXPECT_FALSE(parse_kernel_xids("NVRM: Xid (PCI:0000:44:00): seventy-nine, x\n@@dmesg-rc 0\n"));
  const auto none = parse_kernel_xids("@@dmesg-rc 0\n");
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(ClockEventParser, ReadsActiveNotActiveAndUnreportedValues) {
  const auto gpus = parse_clock_events(
      "00000000:18:00.0, Not Active, Not Active, Not Active, Not Active\n"
      "00000000:2A:00.0, Active, Active, Not Active, Not Active\n"
      "00000000:3A:00.0, [N/A], [Not Supported], Not Active, Not Active\n");
  ASSERT_TRUE(gpus) << gpus.error().message;
  ASSERT_EQ(gpus->size(), 3u);
  EXPECT_EQ((*gpus)[0].hw_slowdown, false);
  EXPECT_EQ((*gpus)[1].hw_thermal_slowdown, true);
  EXPECT_FALSE((*gpus)[2].hw_slowdown.has_value());
  EXPECT_FALSE(parse_clock_events("00000000:18:00.0, Maybe, Not Active, Not Active, Not Active\n"));
  EXPECT_FALSE(parse_clock_events("00000000:18:00.0, Not Active\n"));
  EXPECT_FALSE(parse_clock_events("\n"));
}

// The batch's fabric probe over the real H200 `nvidia-smi -q`: it keeps the GPU lines and the
// Fabric section only (the citation shows them), and nvidia-smi's exit status.
TEST(FabricParser, TheProbeKeepsTheFabricSectionsOfTheRealOutput) {
  const auto capture = std::string(GPUCTL_TEST_DATA_DIR) + "/nvidia-smi/h200-1gpu/nvidia-smi-q.txt";
  const auto run = testing::run_probe_body(testing::probe_body("fabric"),
                                           {{"[ \"$gpus_rc\" = 0 ]", "true"},
                                            {"command -v nvidia-smi", "command -v cat"},
                                            {"$T nvidia-smi -q", "cat " + capture}});
  EXPECT_EQ(run.rc, 0) << run.out;
  EXPECT_EQ(run.out.find("Product Name"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("@@smi-rc 0"), std::string::npos) << run.out;
  const auto fabric = parse_fabric(run.out.substr(0, run.out.rfind("rc=")));
  ASSERT_TRUE(fabric) << fabric.error().message << "\n" << run.out;
  ASSERT_EQ(fabric->size(), 1u);
  EXPECT_EQ((*fabric)[0].health.size(), 7u);
  const auto failed = parse_fabric("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n@@smi-rc 9\n");
  ASSERT_FALSE(failed);
  EXPECT_EQ(failed.error().message, "nvidia-smi -q exited 9: NVIDIA-SMI has failed because it couldn't communicate with the "
                                    "NVIDIA driver.");
}

// The excerpts have no GPU line of their own (tests/data/nvidia-smi/fabric/README.md).
std::string fabric_capture(const std::string& name, const std::string& bus = "00000000:18:00.0") {
  return "GPU " + bus + "\n" + read_test_data("nvidia-smi/fabric/" + name);
}

TEST(FabricParser, ReadsStateCliqueAndHealthOfRealSections) {
  const auto unhealthy = parse_fabric(fabric_capture("dra-driver-626-gb200-unhealthy.txt"));
  ASSERT_TRUE(unhealthy) << unhealthy.error().message;
  ASSERT_EQ(unhealthy->size(), 1u);
  const auto& gpu = (*unhealthy)[0];
  EXPECT_EQ(gpu.pci_bus_id, "00000000:18:00.0");
  EXPECT_EQ(gpu.state, "Completed");
  EXPECT_TRUE(gpu.state_reported);
  EXPECT_EQ(gpu.status, "Success");
  EXPECT_EQ(gpu.clique_id, "2");
  EXPECT_EQ(gpu.cluster_uuid, "dc6e40c4-d722-4357-9ba6-5291dd461278");
  ASSERT_EQ(gpu.health.size(), 2u);
  EXPECT_EQ(gpu.health[0], (std::pair<std::string, std::string>{"Summary", "Unhealthy"}));
  EXPECT_EQ(gpu.health[1], (std::pair<std::string, std::string>{"Bandwidth", "Full"}));

  const auto r550 = parse_fabric(fabric_capture("r550-fabric-section.txt"));
  ASSERT_TRUE(r550) << r550.error().message;
  EXPECT_FALSE((*r550)[0].state_reported);
  ASSERT_EQ((*r550)[0].health.size(), 4u) << "R550 prints no Summary";
  EXPECT_EQ((*r550)[0].health[0].first, "Bandwidth");

  // A driver before the fabric fields prints no Fabric section: no state, never "Completed".
  const auto none = parse_fabric("GPU 00000000:18:00.0\n    Product Name : NVIDIA A100-SXM4-80GB\n");
  ASSERT_TRUE(none);
  EXPECT_FALSE((*none)[0].state_reported);
  EXPECT_FALSE(parse_fabric("    Fabric\n        State : Completed\n")) << "no GPU section";
  EXPECT_FALSE(parse_fabric("GPU 00000000:18:00.0\n    Fabric\n        State Completed\n"));
}

class HealthChecks : public testing::SingleCheckTest {
 protected:
  HealthChecks() {
    std::vector<GpuInfo> gpus;
    std::vector<GpuClockEvents> clocks;
    std::vector<GpuFabric> fabric;
    for (int i = 0; i < 8; ++i) {
      GpuInfo gpu;
      gpu.index = i;
      gpu.temperature_c = 30 + i;
      gpus.push_back(gpu);
      const auto bus = fmt::format("00000000:{:02X}:00.0", 0x18 + i);
      clocks.push_back({bus, false, false, false, false});
      fabric.push_back({bus, "Completed", "Success", true});
    }
    state.facts.gpus = Fact<std::vector<GpuInfo>>::of(gpus);
    state.facts.clock_events = Fact<std::vector<GpuClockEvents>>::of(clocks);
    state.facts.fabric = Fact<std::vector<GpuFabric>>::of(fabric);
    state.facts.xid_events = Fact<std::vector<XidEvent>>::of({});
    node.gpu.count = 8;
    node.gpu.model = "H100";
    node.gpu.max_temperature_c = 85;
  }

};

TEST_F(HealthChecks, HealthyNodePassesEveryHealthCheck) {
  for (const auto* name : {"xid_events", "clock_slowdown", "gpu_temperature", "fabric_state"})
    EXPECT_EQ(run(name).status, CheckStatus::pass) << name << ": " << run(name).detail;
  EXPECT_EQ(run("xid_events").observed, "none since boot");
  EXPECT_EQ(run("gpu_temperature").observed, "hottest 37 C");
}

TEST_F(HealthChecks, XidsFailWithTheCataloguedActionAndApplicationXidsPass) {
  const auto xids = parse_kernel_xids(read_test_data("kernel-log/dmesg-xids.txt"));
  ASSERT_TRUE(xids);
  state.facts.xid_events = Fact<std::vector<XidEvent>>::of(*xids);
  const auto result = run("xid_events");
  EXPECT_EQ(result.status, CheckStatus::fail);
  EXPECT_NE(result.observed.find("Xid 79 on 0000:44:00 (GPU has fallen off the bus)"), std::string::npos) << result.observed;
  EXPECT_NE(result.observed.find("Xid 14 on 0000:03:00 (not in gpuctl's health policy)"), std::string::npos) << result.observed;
  EXPECT_NE(result.detail.find("Xid 79: gpuctl remediate NODE (drain and reboot: a reset cannot reach the GPU)"), std::string::npos) << result.detail;
  // Xid 63 is the catalogue's IGNORE (row_remap judges the remap): listed, no action of its own.
  EXPECT_NE(result.observed.find("also Xid 63 on 0000:10:1c (row remapping event"), std::string::npos) << result.observed;
  EXPECT_EQ(result.detail.find("Xid 63:"), std::string::npos) << result.detail;

  // A storm of one Xid is one line; application-side Xids alone pass, listed.
  state.facts.xid_events = Fact<std::vector<XidEvent>>::of({{"0000:18:00", 94, "x"}, {"0000:18:00", 94, "y"}, {"0000:2a:00", 13, "z"}});
  const auto benign = run("xid_events");
  EXPECT_EQ(benign.status, CheckStatus::pass);
  EXPECT_NE(benign.observed.find("Xid 94 on 0000:18:00 x2 (contained ECC error"), std::string::npos) << benign.observed;

  state.facts.xid_events = Fact<std::vector<XidEvent>>::absent("dmesg exited 1: dmesg: read kernel buffer failed: Operation not permitted");
  EXPECT_EQ(run("xid_events").status, CheckStatus::error) << "an unreadable log is never 'no Xid'";
}

// Xid 109 (context switch timeout) is RESET_GPU in NVIDIA's catalogue, not the application's:
// gpud's real dmesg with an Xid 13 (application) and an Xid 109 fails, the 109 asking for a reset.
TEST_F(HealthChecks, Xid109AsksForAGpuReset) {
  const auto xids = parse_kernel_xids(read_test_data("kernel-log/dmesg-gpud.txt"));
  ASSERT_TRUE(xids) << xids.error().message;
  state.facts.xid_events = Fact<std::vector<XidEvent>>::of(*xids);
  const auto result = run("xid_events");
  EXPECT_EQ(result.status, CheckStatus::fail);
  EXPECT_NE(result.observed.find("Xid 109 on 0000:cb:00 (context switch timeout)"), std::string::npos) << result.observed;
  EXPECT_NE(result.observed.find("also Xid 13 on 0000:cb:00"), std::string::npos) << result.observed;
  EXPECT_NE(result.detail.find("Xid 109: gpuctl remediate NODE (drain, reset the GPU with nvidia-smi -r"), std::string::npos)
      << result.detail;
}

// Issue #34: NVSwitch SXids are read with their severity (real dmesg: leptonai/gpud's quote of an
// HGX node, fatal 20034; NVIDIA/nvtrust #124, non-fatal 22013). A fatal SXid alone fails.
TEST(KernelXidParser, ReadsNvswitchSxidsWithTheirSeverity) {
  const auto fatal = parse_kernel_xids(read_test_data("kernel-log/dmesg-sxid-fatal.txt"));
  ASSERT_TRUE(fatal) << fatal.error().message;
  ASSERT_EQ(fatal->size(), 5u) << "the Xid 79 and the four Fatal lines; Severity/Data lines belong to them";
  EXPECT_FALSE((*fatal)[0].nvswitch);
  EXPECT_TRUE((*fatal)[1].nvswitch);
  EXPECT_EQ((*fatal)[1].pci, "0000:06:00.0");
  EXPECT_EQ((*fatal)[1].code, 20034);
  EXPECT_EQ((*fatal)[1].fatal, true);
  EXPECT_EQ((*fatal)[1].message, "Link 48 LTSSM Fault Up");
  const auto nonfatal = parse_kernel_xids(read_test_data("kernel-log/dmesg-sxid-nonfatal.txt"));
  ASSERT_TRUE(nonfatal) << nonfatal.error().message;
  ASSERT_EQ(nonfatal->size(), 2u);
  EXPECT_EQ((*nonfatal)[0].fatal, false);
  EXPECT_EQ((*nonfatal)[0].code, 22013);
  EXPECT_FALSE(parse_kernel_xids("nvidia-nvswitch0: SXid (PCI:0000:05:00.0): garbled, Fatal\n@@dmesg-rc 0\n"));
}

TEST_F(HealthChecks, AFatalSxidAloneFailsANonFatalOneIsListed) {
  auto events = *parse_kernel_xids(read_test_data("kernel-log/dmesg-sxid-fatal.txt"));
  events.erase(events.begin());  // the SXids alone, without the GPU's Xid 79
  state.facts.xid_events = Fact<std::vector<XidEvent>>::of(events);
  const auto r = run("xid_events");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.observed.find("SXid 20034 on NVSwitch 0000:05:00.0 x2 (fatal: Link 63 LTSSM Fault Up)"), std::string::npos)
      << r.observed;
  EXPECT_NE(r.detail.find("reset the GPUs and NVSwitches"), std::string::npos) << r.detail;

  state.facts.xid_events = Fact<std::vector<XidEvent>>::of(*parse_kernel_xids(read_test_data("kernel-log/dmesg-sxid-nonfatal.txt")));
  const auto listed = run("xid_events");
  EXPECT_EQ(listed.status, CheckStatus::pass) << listed.detail;
  EXPECT_NE(listed.observed.find("SXid 22013 on NVSwitch 0000:04:00.0 x2 (non-fatal: Link 44 Minion Link DLREQ interrupt)"),
            std::string::npos)
      << listed.observed;
}

// HGX A100 (and HGX-2's V100): the driver reports no fabric registration before Hopper, so the
// N/A of every GPU is skipped, not an error; on a Hopper board the same N/A stays an error.
TEST_F(HealthChecks, FabricStateIsSkippedOnPreHopperBoardsAndUnknownOnHopper) {
  auto gpus = *state.facts.gpus.value;
  auto fabric = *state.facts.fabric.value;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    gpus[i].name = "NVIDIA A100-SXM4-80GB";
    gpus[i].pci_bus_id = fabric[i].pci_bus_id;
    fabric[i] = {fabric[i].pci_bus_id, "N/A", "N/A", false};
  }
  state.facts.gpus = Fact<std::vector<GpuInfo>>::of(gpus);
  state.facts.fabric = Fact<std::vector<GpuFabric>>::of(fabric);
  node.gpu.model = "A100";
  const auto a100 = run("fabric_state");
  EXPECT_EQ(a100.status, CheckStatus::skipped) << a100.detail;
  EXPECT_NE(a100.detail.find("NVIDIA A100-SXM4-80GB reports no fabric registration"), std::string::npos) << a100.detail;
  EXPECT_NE(a100.detail.find("fabricmanager_active"), std::string::npos);

  for (auto& gpu : gpus) gpu.name = "NVIDIA H100 80GB HBM3";
  state.facts.gpus = Fact<std::vector<GpuInfo>>::of(gpus);
  node.gpu.model = "H100";
  EXPECT_EQ(run("fabric_state").status, CheckStatus::error) << "a Hopper board's N/A is not read as healthy";

  // The names unknown (the GPU query failed): never skipped as if they were older GPUs.
  state.facts.gpus = Fact<std::vector<GpuInfo>>::absent("nvidia-smi failed");
  EXPECT_EQ(run("fabric_state").status, CheckStatus::error);
}

TEST_F(HealthChecks, ThermalSlowdownNamesItsCauseAndUnknownReasonsAreErrors) {
  auto clocks = *state.facts.clock_events.value;
  clocks[2].hw_slowdown = true;
  clocks[2].hw_thermal_slowdown = true;
  state.facts.clock_events = Fact<std::vector<GpuClockEvents>>::of(clocks);
  const auto slowed = run("clock_slowdown");
  EXPECT_EQ(slowed.status, CheckStatus::fail);
  EXPECT_EQ(slowed.observed, "GPU 00000000:1A:00.0: HW thermal slowdown");
  EXPECT_NE(slowed.detail.find("airflow"), std::string::npos);

  clocks[2] = {clocks[2].pci_bus_id, std::nullopt, false, false, false};
  state.facts.clock_events = Fact<std::vector<GpuClockEvents>>::of(clocks);
  EXPECT_EQ(run("clock_slowdown").status, CheckStatus::error);
  state.facts.clock_events = Fact<std::vector<GpuClockEvents>>::absent("nvidia-smi: not found");
  EXPECT_EQ(run("clock_slowdown").status, CheckStatus::error);
}

TEST_F(HealthChecks, TemperatureAboveTheDeclaredLimitFailsAndNoLimitSkips) {
  auto gpus = *state.facts.gpus.value;
  gpus[5].temperature_c = 94;
  state.facts.gpus = Fact<std::vector<GpuInfo>>::of(gpus);
  const auto hot = run("gpu_temperature");
  EXPECT_EQ(hot.status, CheckStatus::fail);
  EXPECT_EQ(hot.observed, "GPU 5 at 94 C");
  EXPECT_EQ(hot.expected, "<= 85 C");
  gpus[5].temperature_c.reset();
  gpus[4].temperature_c = 50;
  state.facts.gpus = Fact<std::vector<GpuInfo>>::of(gpus);
  EXPECT_EQ(run("gpu_temperature").status, CheckStatus::error) << "a temperature not reported is no pass";
  node.gpu.max_temperature_c.reset();
  EXPECT_EQ(run("gpu_temperature").status, CheckStatus::skipped);
}

TEST_F(HealthChecks, FabricNotCompletedFailsAndNoFabricOnAnNvswitchBoardIsAnError) {
  auto fabric = *state.facts.fabric.value;
  fabric[0].state = "Not Started";
  fabric[0].status = "N/A";
  fabric[3].status = "Insufficient Resources";
  state.facts.fabric = Fact<std::vector<GpuFabric>>::of(fabric);
  const auto bad = run("fabric_state");
  EXPECT_EQ(bad.status, CheckStatus::fail);
  EXPECT_EQ(bad.observed, "GPU 00000000:18:00.0: Not Started; GPU 00000000:1B:00.0: Completed, Insufficient Resources");
  EXPECT_NE(bad.detail.find("fabric manager is not running"), std::string::npos);

  for (auto& gpu : fabric) gpu = {gpu.pci_bus_id, "N/A", "N/A"};
  state.facts.fabric = Fact<std::vector<GpuFabric>>::of(fabric);
  EXPECT_EQ(run("fabric_state").status, CheckStatus::error);
  node.gpu.count = 1;  // the real H200 VM: no NVSwitch, so no fabric to register with
  EXPECT_EQ(run("fabric_state").status, CheckStatus::skipped);
}

// Issue #34: a GPU registered (Completed, Success) whose fabric health Summary is Unhealthy
// (the real GB200 excerpt of kubernetes-sigs/dra-driver-nvidia-gpu #626) fails; before, the CSV
// query had no health field and it passed.
TEST_F(HealthChecks, ACompletedRegistrationWithAnUnhealthyFabricFails) {
  auto fabric = *state.facts.fabric.value;
  const auto parsed = parse_fabric(fabric_capture("dra-driver-626-gb200-unhealthy.txt", fabric[3].pci_bus_id));
  ASSERT_TRUE(parsed) << parsed.error().message;
  fabric[3] = (*parsed)[0];
  state.facts.fabric = Fact<std::vector<GpuFabric>>::of(fabric);
  const auto r = run("fabric_state");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "GPU 00000000:1B:00.0: Completed, Success, but Summary Unhealthy");
  EXPECT_NE(r.detail.find("reports it unhealthy"), std::string::npos) << r.detail;

  fabric[3].health = {{"Summary", "Limited Capacity"}, {"Bandwidth", "Degraded"}};
  state.facts.fabric = Fact<std::vector<GpuFabric>>::of(fabric);
  EXPECT_EQ(run("fabric_state").observed,
            "GPU 00000000:1B:00.0: Completed, Success, but Summary Limited Capacity, Bandwidth Degraded");

  // R550 prints no Summary: the conditions are read one by one.
  fabric[3].health = {{"Bandwidth", "Full"}, {"Route Recovery in progress", "False"}, {"Route Unhealthy", "True"},
                      {"Access Timeout Recovery", "False"}};
  state.facts.fabric = Fact<std::vector<GpuFabric>>::of(fabric);
  EXPECT_EQ(run("fabric_state").status, CheckStatus::fail);

  // Unknown or unreadable health is never a pass.
  fabric[3].health = {{"Summary", "[Unknown Error]"}};
  state.facts.fabric = Fact<std::vector<GpuFabric>>::of(fabric);
  const auto unknown = run("fabric_state");
  EXPECT_EQ(unknown.status, CheckStatus::error);
  EXPECT_NE(unknown.detail.find("GPU 00000000:1B:00.0: fabric health Summary [Unknown Error]"), std::string::npos)
      << unknown.detail;

  // Healthy on every GPU: the pass says so; N/A health (a driver that reports none) passes on
  // the registration, and the detail says health was not judged.
  for (auto& gpu : fabric) gpu.health = {{"Summary", "Healthy"}, {"Bandwidth", "Full"}, {"Partition Assigned", "N/A"}};
  state.facts.fabric = Fact<std::vector<GpuFabric>>::of(fabric);
  const auto healthy = run("fabric_state");
  EXPECT_EQ(healthy.status, CheckStatus::pass) << healthy.detail;
  EXPECT_EQ(healthy.observed, "Completed, Success on 8 GPUs, fabric healthy");
  for (auto& gpu : fabric) gpu.health = {{"Summary", "N/A"}, {"Bandwidth", "N/A"}};
  state.facts.fabric = Fact<std::vector<GpuFabric>>::of(fabric);
  const auto silent = run("fabric_state");
  EXPECT_EQ(silent.status, CheckStatus::pass);
  EXPECT_NE(silent.detail.find("8 of 8 GPUs report no fabric health"), std::string::npos) << silent.detail;
}

}  // namespace
}  // namespace gpuctl
