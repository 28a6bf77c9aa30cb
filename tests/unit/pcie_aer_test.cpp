// PCIe AER counts (issue #19): the pcie_aer probe under this host's shell on a fake sysfs, its
// parser on the kernel's formats (tests/data/pcie-aer/, with sources: the ABI document's own
// sample and files printed as drivers/pci/pcie/aer.c prints them), the pcie_aer check, and its
// place in gpu-node.yaml's driver step.
#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/json.hpp>
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/inventory/loader.hpp>
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

#include <cstdio>
#include <filesystem>
#include <fstream>

namespace gpuctl {
namespace {

using testing::ProgramFixture;
using testing::read_test_data;
using testing::StepSpec;

std::vector<GpuPcieAer> parse_ok(const std::string& text) {
  auto gpus = facts::parse_pcie_aer(text);
  EXPECT_TRUE(gpus) << (gpus ? "" : gpus.error().to_string());
  return gpus ? *gpus : std::vector<GpuPcieAer>{};
}

// The probe's form of one device's three files: "gpu <bus id>", then grep's "<path>:<line>".
std::string probe_form(const std::string& bus_id, const std::string& correctable, const std::string& fatal,
                       const std::string& nonfatal) {
  std::string out = "gpu " + bus_id + "\n";
  const std::pair<const char*, const std::string*> files[] = {
      {"aer_dev_correctable", &correctable}, {"aer_dev_fatal", &fatal}, {"aer_dev_nonfatal", &nonfatal}};
  for (const auto& [file, text] : files)
    for (const auto& line : util::split_lines(*text)) out += "/sys/bus/pci/devices/" + bus_id + "/" + file + ":" + line + "\n";
  return out;
}

// ---- parser -----------------------------------------------------------------------------

TEST(PcieAerParser, ReadsACleanEightGpuBoard) {
  const auto gpus = parse_ok(read_test_data("pcie-aer/probe-clean-8gpu.txt"));
  ASSERT_EQ(gpus.size(), 8u);
  EXPECT_EQ(gpus[0].bus_id, "0000:18:00.0");
  EXPECT_EQ(gpus[7].bus_id, "0000:db:00.0");
  for (const auto& gpu : gpus) {
    ASSERT_TRUE(gpu.correctable && gpu.fatal && gpu.nonfatal) << gpu.bus_id;
    EXPECT_EQ(gpu.correctable->errors.size(), 8u);
    EXPECT_EQ(gpu.correctable->errors.front().name, "RxErr");
    EXPECT_EQ(gpu.fatal->errors.size(), 18u);
    EXPECT_EQ(gpu.fatal->errors.back().name, "PoisonTLPBlocked");
    EXPECT_EQ(gpu.fatal->total + gpu.nonfatal->total + gpu.correctable->total, 0u);
    EXPECT_EQ(gpu.fatal->sum() + gpu.nonfatal->sum() + gpu.correctable->sum(), 0u);
  }
}

// The sample output of Documentation/ABI/testing/sysfs-bus-pci-devices-aer_stats, verbatim: the
// long error names of the first kernels (4.19), with spaces inside.
TEST(PcieAerParser, ReadsTheAbiDocumentsSample) {
  const auto gpus = parse_ok(probe_form("0000:00:1c.0", read_test_data("pcie-aer/abi-sample-aer_dev_correctable.txt"),
                                        read_test_data("pcie-aer/abi-sample-aer_dev_fatal.txt"),
                                        read_test_data("pcie-aer/abi-sample-aer_dev_nonfatal.txt")));
  ASSERT_EQ(gpus.size(), 1u);
  const auto& gpu = gpus[0];
  ASSERT_TRUE(gpu.correctable && gpu.fatal && gpu.nonfatal);
  EXPECT_EQ(gpu.correctable->errors[0].name, "Receiver Error");
  EXPECT_EQ(gpu.correctable->errors[0].count, 2u);
  EXPECT_EQ(gpu.correctable->errors[3].name, "RELAY_NUM Rollover");
  EXPECT_EQ(gpu.correctable->total, 2u);
  EXPECT_EQ(gpu.fatal->errors.size(), 17u);
  EXPECT_EQ(gpu.fatal->errors[2].name, "Surprise Down Error");
  EXPECT_EQ(gpu.nonfatal->total, 0u);
}

TEST(PcieAerParser, ReadsCountsUnnamedBitsAndTotalsAlone) {
  const auto gpus = parse_ok(read_test_data("pcie-aer/probe-faults-8gpu.txt"));
  ASSERT_EQ(gpus.size(), 8u);
  EXPECT_EQ(gpus[1].correctable->sum(), 5u);
  EXPECT_EQ(gpus[1].correctable->total, 4u) << "one message may carry several errors";
  EXPECT_EQ(gpus[2].fatal->total, 1u);
  EXPECT_EQ(gpus[2].fatal->errors[2].name, "SDES");
  EXPECT_EQ(gpus[2].fatal->errors[2].count, 1u);
  const auto& unnamed = gpus[4].nonfatal->errors[1];
  EXPECT_EQ(unnamed.name, "dev_nonfatal_errs_bit[3]");
  EXPECT_EQ(unnamed.count, 1u);
  EXPECT_EQ(gpus[5].fatal->sum(), 0u);
  EXPECT_EQ(gpus[5].fatal->total, 1u);
}

TEST(PcieAerParser, AbsentFilesAndDevicesAreNotZeros) {
  EXPECT_TRUE(parse_ok("no_nvidia_gpus\n").empty());
  EXPECT_TRUE(parse_ok("").empty());
  const auto gpus = parse_ok(
      "gpu 0000:00:06.0\nabsent 0000:00:06.0 aer_dev_correctable\nabsent 0000:00:06.0 aer_dev_fatal\n"
      "absent 0000:00:06.0 aer_dev_nonfatal\ngpu 0000:18:00.0\nno_device 0000:18:00.0\n");
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_TRUE(gpus[0].device_in_sysfs);
  EXPECT_FALSE(gpus[0].correctable || gpus[0].fatal || gpus[0].nonfatal);
  EXPECT_FALSE(gpus[1].device_in_sysfs);
}

TEST(PcieAerParser, RefusesWhatTheKernelDoesNotPrint) {
  const std::string gpu = "gpu 0000:18:00.0\n";
  const std::string path = "/sys/bus/pci/devices/0000:18:00.0/";
  const std::string rest = path + "aer_dev_fatal:TOTAL_ERR_FATAL 0\n" + path + "aer_dev_nonfatal:TOTAL_ERR_NONFATAL 0\n";
  EXPECT_TRUE(facts::parse_pcie_aer(gpu + path + "aer_dev_correctable:TOTAL_ERR_COR 0\n" + rest));
  for (const auto& bad : std::vector<std::string>{
           path + "aer_dev_correctable:RxErr 0\n",                               // no gpu line first
           gpu + path + "aer_dev_correctable:RxErr x\n" + rest,                  // not a count
           gpu + path + "aer_dev_correctable:RxErr -1\n" + rest,                 // not a count
           gpu + path + "aer_dev_correctable:RxErr\n" + rest,                    // no count
           gpu + path + "aer_dev_correctable:TOTAL_ERR_FATAL 0\n" + rest,        // another file's total
           gpu + path + "aer_dev_correctable:RxErr 0\n" + rest,                  // cut short: no TOTAL_ line
           gpu + path + "aer_dev_correctable:TOTAL_ERR_COR 0\n" + path + "aer_dev_correctable:RxErr 0\n" + rest,
           gpu + path + "aer_dev_other:X 0\n" + path + "aer_dev_correctable:TOTAL_ERR_COR 0\n" + rest,
           gpu + "absent 0000:18:00.0 aer_dev_correctable\n" + path + "aer_dev_correctable:TOTAL_ERR_COR 0\n" + rest,
           gpu + "absent 0000:19:00.0 aer_dev_correctable\n",                    // a GPU not announced
           gpu + "absent 0000:18:00.0 aer_dev_other\n",
           gpu + gpu,                                                            // twice
           gpu + "garbage\n"})
    EXPECT_FALSE(facts::parse_pcie_aer(bad)) << bad;
}

TEST(PcieAerParser, SysfsNamesNvidiaSmisBusIds) {
  EXPECT_EQ(sysfs_pci_bus_id("00000000:AB:00.0"), "0000:ab:00.0");
  EXPECT_EQ(sysfs_pci_bus_id("00000000:00:06.0"), "0000:00:06.0");  // the lent H100 (tests/data/pcie-aer/)
  EXPECT_EQ(sysfs_pci_bus_id("00000001:1A:00.1"), "0001:1a:00.1");
  EXPECT_EQ(sysfs_pci_bus_id("0000:18:00.0"), "0000:18:00.0");
  for (const char* bad : {"", "18:00.0", "0000:18:00", "00000000:1G:00.0", "zz:18:00.0", ":18:00.0", "0000:18:00.0 "})
    EXPECT_EQ(sysfs_pci_bus_id(bad), "") << bad;
}

TEST(PcieAerFacts, JsonKeepsEveryCountAndNullForAbsentFiles) {
  NodeFacts facts;
  facts.node = "gpu01";
  facts.pcie_aer = Fact<std::vector<GpuPcieAer>>::of(parse_ok(
      read_test_data("pcie-aer/probe-faults-8gpu.txt") + "gpu 0000:00:06.0\nabsent 0000:00:06.0 aer_dev_correctable\n"
      "absent 0000:00:06.0 aer_dev_fatal\nabsent 0000:00:06.0 aer_dev_nonfatal\n"));
  const auto j = nlohmann::json::parse(facts::facts_to_json(facts));
  ASSERT_EQ(j["pcie_aer"].size(), 9u);
  EXPECT_EQ(j["pcie_aer"][2]["bus_id"], "0000:3a:00.0");
  EXPECT_EQ(j["pcie_aer"][2]["fatal"]["errors"]["SDES"], 1);
  EXPECT_EQ(j["pcie_aer"][2]["fatal"]["total"], 1);
  EXPECT_EQ(j["pcie_aer"][4]["nonfatal"]["errors"]["dev_nonfatal_errs_bit[3]"], 1);
  EXPECT_TRUE(j["pcie_aer"][8]["correctable"].is_null());
  EXPECT_EQ(j["pcie_aer"][8]["device_in_sysfs"], true);
  const auto text = facts::render_facts_text(facts);
  EXPECT_NE(text.find("  PCIe AER 0000:3a:00.0: correctable 0, non-fatal 0, fatal 1\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("PCIe AER 0000:00:06.0"), std::string::npos) << "a GPU without the files has no line";
  facts.pcie_aer = Fact<std::vector<GpuPcieAer>>::absent("PCIe AER counters in sysfs: grep: x: Input/output error");
  EXPECT_EQ(nlohmann::json::parse(facts::facts_to_json(facts))["pcie_aer"]["absent"],
            "PCIe AER counters in sysfs: grep: x: Input/output error");
}

// ---- the probe under this host's shell --------------------------------------------------

std::string aer_probe_body() { return testing::probe_body("pcie_aer"); }

// The probe with /proc/driver/nvidia/gpus and /sys/bus/pci/devices under `root`; the paths in
// its output are put back, as the parser expects the real ones.
testing::ShellRun run_probe(const std::string& root) {
  auto run = testing::run_probe_body(aer_probe_body(), {{"/proc/driver/nvidia/gpus", root + "/gpus"},
                                                        {"/sys/bus/pci/devices", root + "/devices"}});
  for (auto at = run.out.find(root + "/devices"); at != std::string::npos; at = run.out.find(root + "/devices", at))
    run.out.replace(at, root.size() + 8, "/sys/bus/pci/devices");
  return run;
}

TEST(PcieAerProbe, OneGrepForEveryFileAndOnlyWhereTheCheckRuns) {
  const auto body = aer_probe_body();
  for (const auto* helper : {"$(", "`", "cat ", " | ", "ls "}) EXPECT_EQ(body.find(helper), std::string::npos) << helper;
  EXPECT_NE(body.find("grep -e '' -- \"$@\" /dev/null"), std::string::npos);
  EXPECT_EQ(body.find("grep -e"), body.rfind("grep -e")) << "one grep";
  facts::CollectOptions lean;
  lean.pcie_aer = false;
  EXPECT_EQ(std::ranges::count(facts::probe_names(lean), "pcie_aer"), 0);
  ProgramFixture driver({StepSpec{"driver", {}, RebootPolicy::never, "", {"pcie_link", "pcie_aer"}}});
  EXPECT_TRUE(node_probe_options(driver.program, ProbePurpose::verify).pcie_aer);
  EXPECT_FALSE(node_probe_options(driver.program, ProbePurpose::plan).pcie_aer);
  ProgramFixture other({StepSpec{"driver", {}, RebootPolicy::never, "", {"pcie_link"}}});
  EXPECT_FALSE(node_probe_options(other.program, ProbePurpose::verify).pcie_aer);
}

TEST(PcieAerProbe, RunsOnAFakeTree) {
  testing::TempDir root;
  const auto fs_root = root.path();
  const auto gpu = [&](const std::string& bus_id, bool device) {
    std::filesystem::create_directories(fs_root + "/gpus/" + bus_id);
    if (device) std::filesystem::create_directories(fs_root + "/devices/" + bus_id);
  };
  gpu("0000:18:00.0", true);  // AER statistics, one uncorrectable error
  gpu("0000:2a:00.0", true);  // no AER capability: no files
  gpu("0000:3a:00.0", false); // no PCI device (the sandbox's simulated GPUs)
  const auto dev = fs_root + "/devices/0000:18:00.0/";
  std::ofstream(dev + "aer_dev_correctable") << "RxErr 0\nTOTAL_ERR_COR 0\n";
  std::ofstream(dev + "aer_dev_fatal") << "SDES 0\nTOTAL_ERR_FATAL 0\n";
  std::ofstream(dev + "aer_dev_nonfatal") << "CmpltTO 1\nTOTAL_ERR_NONFATAL 1\n";
  auto run = run_probe(fs_root);
  EXPECT_EQ(run.rc, 0) << run.out;
  const auto gpus = parse_ok(run.out);
  ASSERT_EQ(gpus.size(), 3u) << run.out;
  ASSERT_TRUE(gpus[0].nonfatal);
  EXPECT_EQ(gpus[0].nonfatal->errors[0].name, "CmpltTO");
  EXPECT_FALSE(gpus[1].correctable || gpus[1].fatal || gpus[1].nonfatal);
  EXPECT_FALSE(gpus[2].device_in_sysfs);
  // A file that exists and cannot be read (here a directory: root reads any file) fails the
  // probe: grep's status, never a count of zero.
  std::filesystem::remove(dev + "aer_dev_fatal");
  std::filesystem::create_directories(dev + "aer_dev_fatal");
  run = run_probe(fs_root);
  EXPECT_EQ(run.rc, 2) << run.out;
  // Without the driver's list there is nothing to read.
  std::filesystem::remove_all(fs_root + "/gpus");
  run = run_probe(fs_root);
  EXPECT_EQ(run.rc, 0);
  EXPECT_EQ(run.out, "no_nvidia_gpus\n");
}

TEST(PcieAerProbe, FactIsAbsentWithTheReasonWhenAFileCannotBeRead) {
  std::map<std::string, facts::ProbeOutput> probes;
  probes["pcie_aer"] = {2, "gpu 0000:18:00.0\n",
                        "grep: /sys/bus/pci/devices/0000:18:00.0/aer_dev_fatal: Input/output error"};
  auto facts = facts::facts_from_probes("n", probes);
  ASSERT_FALSE(facts.pcie_aer.present());
  EXPECT_EQ(facts.pcie_aer.absent_reason,
            "PCIe AER counters in sysfs: grep: /sys/bus/pci/devices/0000:18:00.0/aer_dev_fatal: Input/output error");
  EXPECT_FALSE(facts::facts_from_probes("n", {}).pcie_aer.present());
}

// ---- the check --------------------------------------------------------------------------

class PcieAerCheck : public testing::SingleCheckTest {
 protected:
  PcieAerCheck() {
    auto gpus = facts::parse_gpu_query(read_test_data("nvidia-smi/synthetic-8gpu/query-gpu.csv"));
    EXPECT_TRUE(gpus);
    state.facts.gpus = Fact<std::vector<GpuInfo>>::of(*gpus);
    set_aer(read_test_data("pcie-aer/probe-clean-8gpu.txt"));
  }
  void set_aer(const std::string& text) { state.facts.pcie_aer = Fact<std::vector<GpuPcieAer>>::of(parse_ok(text)); }
};

TEST_F(PcieAerCheck, ACleanBoardPasses) {
  const auto r = run("pcie_aer");
  EXPECT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_EQ(r.observed, "8 GPUs without uncorrectable errors; correctable: none");
  EXPECT_EQ(r.expected, "no fatal or non-fatal uncorrectable PCIe error on any GPU");
}

TEST_F(PcieAerCheck, UncorrectableErrorsFailNamingTheGpuTheErrorsAndTheFix) {
  set_aer(read_test_data("pcie-aer/probe-faults-8gpu.txt"));
  const auto r = run("pcie_aer");
  ASSERT_EQ(r.status, CheckStatus::fail);
  for (const char* seen : {"GPU 2 (1653724067180) 00000000:3A:00.0: fatal SDES 1, CmpltTO 1 (TOTAL_ERR_FATAL 1)",
                           "GPU 3 (1653724067181) 00000000:5D:00.0: non-fatal UnsupReq 2 (TOTAL_ERR_NONFATAL 2)",
                           "GPU 4 (1653724067182) 00000000:9A:00.0: non-fatal dev_nonfatal_errs_bit[3] 1",
                           "GPU 5 (1653724067183) 00000000:AB:00.0: fatal TOTAL_ERR_FATAL 1",
                           "; correctable: GPU 1 (1653724067179) 00000000:2A:00.0: RxErr 3, BadTLP 2 (TOTAL_ERR_COR 4)"})
    EXPECT_NE(r.observed.find(seen), std::string::npos) << seen << "\n" << r.observed;
  EXPECT_EQ(r.observed.find("GPU 0 "), std::string::npos) << "a clean GPU is not listed";
  for (const char* fix : {"drain the node", "reseat the GPU", "RMA"})
    EXPECT_NE(r.detail.find(fix), std::string::npos) << fix << "\n" << r.detail;
}

// Correctable errors are corrected by the link's own retry: listed, never failed.
TEST_F(PcieAerCheck, CorrectableErrorsAloneAreListedAndPass) {
  auto text = read_test_data("pcie-aer/probe-clean-8gpu.txt");
  const std::string from = "0000:2a:00.0/aer_dev_correctable:RxErr 0\n";
  text.replace(text.find(from), from.size(), "0000:2a:00.0/aer_dev_correctable:RxErr 7\n");
  set_aer(text);
  const auto r = run("pcie_aer");
  EXPECT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_EQ(r.observed, "8 GPUs without uncorrectable errors; correctable: GPU 1 (1653724067179) 00000000:2A:00.0: RxErr 7 "
                        "(TOTAL_ERR_COR 0)");
}

TEST_F(PcieAerCheck, NoAerStatisticsIsSkippedNeverPassed) {
  std::string none;
  for (const auto& gpu : *state.facts.gpus.value) {
    const auto bus = sysfs_pci_bus_id(gpu.pci_bus_id);
    none += "gpu " + bus + "\n";
    for (const char* file : {"aer_dev_correctable", "aer_dev_fatal", "aer_dev_nonfatal"}) none += "absent " + bus + " " + file + "\n";
  }
  set_aer(none);
  auto r = run("pcie_aer");
  EXPECT_EQ(r.status, CheckStatus::skipped);
  EXPECT_NE(r.detail.find("no PCIe AER statistics in sysfs for the GPUs (GPU 0 (1653724067178) 00000000:18:00.0: no "
                          "aer_dev_* files;"),
            std::string::npos)
      << r.detail;
  EXPECT_NE(r.detail.find("a kernel before 4.19 or without CONFIG_PCIEAER"), std::string::npos);
  // The sandbox's simulated GPUs: the driver lists them, sysfs has no such device.
  std::string sandbox;
  for (const auto& gpu : *state.facts.gpus.value) {
    const auto bus = sysfs_pci_bus_id(gpu.pci_bus_id);
    sandbox += "gpu " + bus + "\nno_device " + bus + "\n";
  }
  set_aer(sandbox);
  r = run("pcie_aer");
  EXPECT_EQ(r.status, CheckStatus::skipped);
  EXPECT_NE(r.detail.find("no /sys/bus/pci/devices/0000:18:00.0"), std::string::npos) << r.detail;
  // Some GPUs with statistics: those are judged, the others named.
  auto mixed = read_test_data("pcie-aer/probe-clean-8gpu.txt");
  std::string kept;
  for (const auto& line : util::split_lines(mixed))
    if (line.find("0000:db:00.0/") == std::string::npos) kept += line + "\n";
  kept += "absent 0000:db:00.0 aer_dev_correctable\nabsent 0000:db:00.0 aer_dev_fatal\nabsent 0000:db:00.0 aer_dev_nonfatal\n";
  set_aer(kept);
  r = run("pcie_aer");
  EXPECT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_EQ(r.observed, "7 GPUs without uncorrectable errors; correctable: none");
  EXPECT_EQ(r.detail, "not judged, no AER statistics in sysfs: GPU 7 (1653724067185) 00000000:DB:00.0: no aer_dev_* files");
}

TEST_F(PcieAerCheck, UnknownCountsAreErrors) {
  state.facts.pcie_aer = Fact<std::vector<GpuPcieAer>>::absent("PCIe AER counters in sysfs: grep: ...: Input/output error");
  auto r = run("pcie_aer");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_EQ(r.detail, "PCIe AER counters unknown: PCIe AER counters in sysfs: grep: ...: Input/output error");
  // A GPU nvidia-smi lists and the driver does not.
  set_aer("no_nvidia_gpus\n");
  r = run("pcie_aer");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.observed.find("GPU 0 (1653724067178) 00000000:18:00.0: not among the GPUs the NVIDIA driver lists"),
            std::string::npos)
      << r.observed;
  // One file without the others is not the kernel's doing.
  auto text = read_test_data("pcie-aer/probe-clean-8gpu.txt");
  std::string kept;
  for (const auto& line : util::split_lines(text))
    if (line.find("0000:18:00.0/aer_dev_fatal") == std::string::npos) kept += line + "\n";
  set_aer(kept + "absent 0000:18:00.0 aer_dev_fatal\n");
  r = run("pcie_aer");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.observed.find("only some of aer_dev_correctable"), std::string::npos) << r.observed;
  // An uncorrectable error still fails, with the unknown GPUs said.
  set_aer(read_test_data("pcie-aer/probe-faults-8gpu.txt"));
  state.facts.gpus.value->push_back(state.facts.gpus.value->back());
  state.facts.gpus.value->back().index = 8;
  state.facts.gpus.value->back().pci_bus_id = "00000000:E1:00.0";
  r = run("pcie_aer");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("also unknown: GPU 8"), std::string::npos) << r.detail;
  state.facts.gpus = Fact<std::vector<GpuInfo>>::absent("nvidia-smi: command not found");
  EXPECT_EQ(run("pcie_aer").status, CheckStatus::error);
  state.facts.gpus = Fact<std::vector<GpuInfo>>::of({});
  EXPECT_EQ(run("pcie_aer").status, CheckStatus::error);
}

// ---- gpu-node.yaml ----------------------------------------------------------------------

TEST(DriverStep, ChecksPcieAerBesidePcieLink) {
  auto loaded = load_inventory(std::string(GPUCTL_SOURCE_DIR) + "/docs/examples/cluster.yaml");
  ASSERT_TRUE(loaded.ok());
  ProgramSources sources;
  sources.templates_dir = testing::k_shipped_templates_dir;
  sources.secrets = SecretMode::masked;
  auto program = resolve_program(*loaded.inventory, loaded.inventory->nodes[1], testing::shipped_playbooks(), sources);
  ASSERT_TRUE(program) << program.error().to_string();
  const auto step = std::ranges::find_if(program->steps, [](const ResolvedStep& s) { return s.step->name == "driver"; });
  ASSERT_NE(step, program->steps.end());
  const auto& checks = step->step->checks;
  const auto link = std::ranges::find(checks, "pcie_link");
  ASSERT_NE(link, checks.end());
  ASSERT_NE(link + 1, checks.end());
  EXPECT_EQ(*(link + 1), "pcie_aer");
  std::vector<std::string> names;
  for (const auto& info : known_checks()) names.push_back(info.name);
  EXPECT_EQ(std::ranges::count(names, "pcie_aer"), 1);
}

}  // namespace
}  // namespace gpuctl
