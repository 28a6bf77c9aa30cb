// PCIe AER counts (issue #19): the pcie_aer probe under this host's shell on a fake sysfs, its
// parser on the kernel's formats (tests/data/pcie-aer/, with sources: the ABI document's own
// sample and files printed as drivers/pci/pcie/aer.c prints them), the pcie_aer check, and its
// place in gpu-node.yaml's driver step.
#include <gpuctl/verify/catalog.hpp>
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

// grep's "<path>:<line>" lines of one PCI function's three files, as the probe prints them.
std::string aer_lines(const std::string& bus_id, const std::string& correctable, const std::string& fatal,
                      const std::string& nonfatal) {
  std::string out;
  const std::pair<const char*, const std::string*> files[] = {
      {"aer_dev_correctable", &correctable}, {"aer_dev_fatal", &fatal}, {"aer_dev_nonfatal", &nonfatal}};
  for (const auto& [file, text] : files)
    for (const auto& line : util::split_lines(*text)) out += "/sys/bus/pci/devices/" + bus_id + "/" + file + ":" + line + "\n";
  return out;
}

// The probe's form of one GPU: "gpu <bus id>", then its files' lines.
std::string probe_form(const std::string& bus_id, const std::string& correctable, const std::string& fatal,
                       const std::string& nonfatal) {
  return "gpu " + bus_id + "\n" + aer_lines(bus_id, correctable, fatal, nonfatal);
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

// The port above a GPU ("port <GPU> <port>"): its files are read once, however many GPUs it is
// above, and it is kept beside each of them.
TEST(PcieAerParser, ReadsThePortAboveEachGpu) {
  const auto port_files = aer_lines("0000:17:01.0", "RxErr 0\nTOTAL_ERR_COR 0\n", "SDES 1\nTOTAL_ERR_FATAL 1\n",
                                    "CmpltTO 0\nTOTAL_ERR_NONFATAL 0\n");
  const auto gpu = probe_form("0000:18:00.0", "RxErr 0\nTOTAL_ERR_COR 0\n", "SDES 0\nTOTAL_ERR_FATAL 0\n",
                              "CmpltTO 0\nTOTAL_ERR_NONFATAL 0\n");
  const auto gpus = parse_ok(gpu + "port 0000:18:00.0 0000:17:01.0\n" + port_files +
                             "gpu 0000:19:00.0\nport 0000:19:00.0 0000:17:01.0\n"
                             "absent 0000:19:00.0 aer_dev_correctable\nabsent 0000:19:00.0 aer_dev_fatal\n"
                             "absent 0000:19:00.0 aer_dev_nonfatal\n"
                             "gpu 0000:2a:00.0\nport 0000:2a:00.0 0000:29:01.0\nabsent 0000:29:01.0 aer_dev_correctable\n"
                             "absent 0000:29:01.0 aer_dev_fatal\nabsent 0000:29:01.0 aer_dev_nonfatal\n" +
                             aer_lines("0000:2a:00.0", "TOTAL_ERR_COR 0\n", "TOTAL_ERR_FATAL 0\n", "TOTAL_ERR_NONFATAL 0\n") +
                             "gpu 0000:00:06.0\nno_device 0000:00:06.0\n");
  ASSERT_EQ(gpus.size(), 4u);
  ASSERT_TRUE(gpus[0].upstream_port && gpus[1].upstream_port && gpus[2].upstream_port);
  EXPECT_EQ(gpus[0].upstream_port->bus_id, "0000:17:01.0");
  ASSERT_TRUE(gpus[0].upstream_port->fatal);
  EXPECT_EQ(gpus[0].upstream_port->fatal->total, 1u);
  EXPECT_EQ(gpus[0].fatal->total, 0u) << "the GPU's own counters stay its own";
  EXPECT_EQ(gpus[1].upstream_port->bus_id, "0000:17:01.0");
  ASSERT_TRUE(gpus[1].upstream_port->fatal);
  EXPECT_EQ(gpus[1].upstream_port->fatal->errors[0].name, "SDES");
  EXPECT_FALSE(gpus[2].upstream_port->correctable || gpus[2].upstream_port->fatal || gpus[2].upstream_port->nonfatal);
  EXPECT_FALSE(gpus[3].upstream_port) << "a GPU on a host bridge has no port line";
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
           gpu + "garbage\n",
           "port 0000:18:00.0 0000:17:01.0\n" + gpu,                               // a port before its GPU
           gpu + "port 0000:19:00.0 0000:17:01.0\n",                              // of a GPU not announced
           gpu + "port 0000:18:00.0 0000:17:01.0\nport 0000:18:00.0 0000:16:01.0\n",  // two ports above one GPU
           gpu + "port 0000:18:00.0 0000:18:00.0\n",                              // a GPU above itself
           gpu + "port 0000:18:00.0\n",
           gpu + "port 0000:18:00.0 0000:17:01.0 x\n",
           gpu + "no_device 0000:17:01.0\n",                                       // no_device is said of GPUs
           // a port whose files are neither absent nor read: cut short
           gpu + path + "aer_dev_correctable:TOTAL_ERR_COR 0\n" + rest + "port 0000:18:00.0 0000:17:01.0\n"})
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
  EXPECT_TRUE(j["pcie_aer"][8]["upstream_port"].is_null());
  const auto text = facts::render_facts_text(facts);
  EXPECT_NE(text.find("  PCIe AER 0000:3a:00.0: correctable 0, non-fatal 0, fatal 1\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("PCIe AER 0000:00:06.0"), std::string::npos) << "a GPU without the files has no line";
  facts.pcie_aer = Fact<std::vector<GpuPcieAer>>::absent("PCIe AER counters in sysfs: grep: x: Input/output error");
  EXPECT_EQ(nlohmann::json::parse(facts::facts_to_json(facts))["pcie_aer"]["absent"],
            "PCIe AER counters in sysfs: grep: x: Input/output error");
}

TEST(PcieAerFacts, JsonAndTextShowThePortAboveAGpu) {
  NodeFacts facts;
  facts.node = "gpu01";
  facts.pcie_aer = Fact<std::vector<GpuPcieAer>>::of(parse_ok(read_test_data("pcie-aer/probe-ports-8gpu.txt")));
  const auto j = nlohmann::json::parse(facts::facts_to_json(facts));
  ASSERT_EQ(j["pcie_aer"].size(), 8u);
  EXPECT_EQ(j["pcie_aer"][6]["upstream_port"]["bus_id"], "0000:b9:00.0");
  EXPECT_EQ(j["pcie_aer"][6]["upstream_port"]["fatal"]["errors"]["DLP"], 1);
  EXPECT_EQ(j["pcie_aer"][6]["fatal"]["total"], 0);
  const auto text = facts::render_facts_text(facts);
  EXPECT_NE(text.find("  PCIe AER 0000:ba:00.0: correctable 0, non-fatal 0, fatal 0\n"
                      "  PCIe AER 0000:b9:00.0 (port above 0000:ba:00.0): correctable 0, non-fatal 0, fatal 1\n"),
            std::string::npos)
      << text;
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
  lean.optional_probes.emplace();
  EXPECT_EQ(std::ranges::count(facts::probe_names(lean), "pcie_aer"), 0);
  ProgramFixture driver({StepSpec{"driver", {}, RebootPolicy::never, "", {"pcie_link", "pcie_aer"}}});
  const auto verify_options = [](const NodeProgram& program) {
    return node_probe_options(program, check_needs(program.checks()).probe_extras());
  };
  EXPECT_TRUE(verify_options(driver.program).optional_probes->contains("pcie_aer"));
  EXPECT_FALSE(node_probe_options(driver.program).optional_probes->contains("pcie_aer"));
  ProgramFixture other({StepSpec{"driver", {}, RebootPolicy::never, "", {"pcie_link"}}});
  EXPECT_FALSE(verify_options(other.program).optional_probes->contains("pcie_aer"));
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

// sysfs's real shape: /sys/bus/pci/devices/<bus> is a link into /sys/devices, where a GPU's
// directory sits in its port's (or, on a host bridge's own bus, in "pci0000:00").
TEST(PcieAerProbe, ReadsThePortAboveEachGpuOnceFromTheDeviceTree) {
  testing::TempDir root;
  const auto fs_root = root.path();
  namespace fs = std::filesystem;
  const auto function = [&](const std::string& tree_path, bool aer) {
    const auto dir = fs_root + "/tree/" + tree_path;
    fs::create_directories(dir);
    const auto bus_id = tree_path.substr(tree_path.rfind('/') + 1);
    fs::create_directories(fs_root + "/devices");
    fs::create_directory_symlink(dir, fs_root + "/devices/" + bus_id);
    if (!aer) return dir;
    std::ofstream(dir + "/aer_dev_correctable") << "RxErr 0\nTOTAL_ERR_COR 0\n";
    std::ofstream(dir + "/aer_dev_fatal") << "DLP 0\nTOTAL_ERR_FATAL 0\n";
    std::ofstream(dir + "/aer_dev_nonfatal") << "CmpltTO 0\nTOTAL_ERR_NONFATAL 0\n";
    return dir;
  };
  function("pci0000:15/0000:15:01.0", true);
  const auto port = function("pci0000:15/0000:15:01.0/0000:16:00.0", true);  // a switch port above two GPUs
  function("pci0000:15/0000:15:01.0/0000:16:00.0/0000:18:00.0", true);
  function("pci0000:15/0000:15:01.0/0000:16:00.0/0000:19:00.0", true);
  function("pci0000:00/0000:00:06.0", false);                       // on the host bridge's bus: no port
  function("pci0000:20/0000:20:01.0", false);                       // a root port without AER statistics
  function("pci0000:20/0000:20:01.0/0000:21:00.0", true);
  for (const char* gpu : {"0000:18:00.0", "0000:19:00.0", "0000:00:06.0", "0000:21:00.0"})
    fs::create_directories(fs_root + "/gpus/" + gpu);
  std::ofstream(port + "/aer_dev_fatal") << "DLP 2\nTOTAL_ERR_FATAL 2\n";

  auto run = run_probe(fs_root);
  EXPECT_EQ(run.rc, 0) << run.out;
  const auto gpus = parse_ok(run.out);
  ASSERT_EQ(gpus.size(), 4u) << run.out;
  EXPECT_EQ(gpus[0].bus_id, "0000:00:06.0");
  EXPECT_FALSE(gpus[0].upstream_port) << run.out;
  ASSERT_TRUE(gpus[1].upstream_port) << run.out;
  EXPECT_EQ(gpus[1].upstream_port->bus_id, "0000:16:00.0");
  ASSERT_TRUE(gpus[1].upstream_port->fatal);
  EXPECT_EQ(gpus[1].upstream_port->fatal->total, 2u);
  EXPECT_EQ(gpus[1].fatal->total, 0u);
  ASSERT_TRUE(gpus[2].upstream_port);
  EXPECT_EQ(gpus[2].upstream_port->bus_id, "0000:16:00.0");
  std::size_t port_reads = 0;
  for (auto at = run.out.find("/0000:16:00.0/aer_dev_fatal:TOTAL"); at != std::string::npos;
       at = run.out.find("/0000:16:00.0/aer_dev_fatal:TOTAL", at + 1))
    ++port_reads;
  EXPECT_EQ(port_reads, 1u) << "a port above two GPUs is read once\n" << run.out;
  ASSERT_TRUE(gpus[3].upstream_port);
  EXPECT_EQ(gpus[3].upstream_port->bus_id, "0000:20:01.0");
  EXPECT_FALSE(gpus[3].upstream_port->correctable || gpus[3].upstream_port->fatal || gpus[3].upstream_port->nonfatal);

  // The probe runs in the facts batch beside others: it leaves the shell where it found it.
  const testing::TempDir work;
  const auto where = testing::run_probe_body(
      aer_probe_body() + "\nr=$?; printf 'cwd %s\\n' \"$PWD\"; return $r",
      {{"/proc/driver/nvidia/gpus", fs_root + "/gpus"}, {"/sys/bus/pci/devices", fs_root + "/devices"}}, work.path());
  EXPECT_EQ(where.rc, 0);
  EXPECT_NE(where.out.find("\ncwd " + work.path() + "\n"), std::string::npos) << where.out;
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
  EXPECT_EQ(r.expected, "no fatal or non-fatal uncorrectable PCIe error on any GPU's link");
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

// The port at the other end of a GPU's link: its uncorrectable errors fail the check on that GPU,
// its correctable ones are listed, and the pass says how many ports were read.
TEST_F(PcieAerCheck, ThePortAboveAGpuIsJudgedAsItsLink) {
  set_aer(read_test_data("pcie-aer/probe-ports-8gpu.txt"));
  auto r = run("pcie_aer");
  ASSERT_EQ(r.status, CheckStatus::fail) << r.observed;
  EXPECT_EQ(r.observed,
            "GPU 6 (1653724067184) 00000000:BA:00.0, port above it 0000:b9:00.0: fatal DLP 1 (TOTAL_ERR_FATAL 1); "
            "correctable: GPU 7 (1653724067185) 00000000:DB:00.0, port above it 0000:da:00.0: BadTLP 5 "
            "(TOTAL_ERR_COR 5)");
  EXPECT_NE(r.detail.find("or by the port at the other end of its link"), std::string::npos) << r.detail;
  // Without the port's fatal error: a pass that counts the ports.
  auto text = read_test_data("pcie-aer/probe-ports-8gpu.txt");
  for (const auto& [from, to] : {std::pair{"0000:b9:00.0/aer_dev_fatal:DLP 1", "0000:b9:00.0/aer_dev_fatal:DLP 0"},
                                 std::pair{"0000:b9:00.0/aer_dev_fatal:TOTAL_ERR_FATAL 1",
                                           "0000:b9:00.0/aer_dev_fatal:TOTAL_ERR_FATAL 0"}})
    text.replace(text.find(from), std::string_view(from).size(), to);
  set_aer(text);
  r = run("pcie_aer");
  EXPECT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_EQ(r.observed, "8 GPUs and 8 ports above them without uncorrectable errors; correctable: GPU 7 "
                        "(1653724067185) 00000000:DB:00.0, port above it 0000:da:00.0: BadTLP 5 (TOTAL_ERR_COR 5)");
}

// A port's counters judge a GPU whose own function keeps none; a port above two GPUs is said once;
// a port without statistics is named, never read as zero.
TEST_F(PcieAerCheck, PortsWithAndWithoutStatistics) {
  const auto files = [](const std::string& bus, const std::string& fatal_total) {
    return aer_lines(bus, "TOTAL_ERR_COR 0\n", "TOTAL_ERR_FATAL " + fatal_total + "\n", "TOTAL_ERR_NONFATAL 0\n");
  };
  const auto absent = [](const std::string& bus) {
    return "absent " + bus + " aer_dev_correctable\nabsent " + bus + " aer_dev_fatal\nabsent " + bus + " aer_dev_nonfatal\n";
  };
  state.facts.gpus.value->resize(3);
  // GPU 0: no statistics of its own, its port has them. GPUs 1 and 2: one port above both, with
  // a fatal error said once.
  set_aer("gpu 0000:18:00.0\n" + absent("0000:18:00.0") + "port 0000:18:00.0 0000:17:00.0\n" +
          files("0000:17:00.0", "0") + "gpu 0000:2a:00.0\nport 0000:2a:00.0 0000:29:00.0\n" + files("0000:2a:00.0", "0") +
          files("0000:29:00.0", "3") + "gpu 0000:3a:00.0\nport 0000:3a:00.0 0000:29:00.0\n" + files("0000:3a:00.0", "0"));
  auto r = run("pcie_aer");
  ASSERT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "GPU 1 (1653724067179) 00000000:2A:00.0, port above it 0000:29:00.0: fatal TOTAL_ERR_FATAL 3; "
                        "correctable: none");
  // The same, the shared port clean: two GPUs judged by their own counters (GPU 0 has none: its
  // port's do not hold what the GPU itself signals), two ports.
  set_aer("gpu 0000:18:00.0\n" + absent("0000:18:00.0") + "port 0000:18:00.0 0000:17:00.0\n" +
          files("0000:17:00.0", "0") + "gpu 0000:2a:00.0\nport 0000:2a:00.0 0000:29:00.0\n" + files("0000:2a:00.0", "0") +
          files("0000:29:00.0", "0") + "gpu 0000:3a:00.0\nport 0000:3a:00.0 0000:29:00.0\n" + files("0000:3a:00.0", "0"));
  r = run("pcie_aer");
  EXPECT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_EQ(r.observed, "2 GPUs and 2 ports above them without uncorrectable errors; correctable: none");
  EXPECT_EQ(r.detail, "not judged, no AER statistics in sysfs: GPU 0 (1653724067178) 00000000:18:00.0: no aer_dev_* files");
  // One GPU without statistics of its own, its port with them: the port is judged, the GPU named.
  state.facts.gpus.value->resize(1);
  set_aer("gpu 0000:18:00.0\n" + absent("0000:18:00.0") + "port 0000:18:00.0 0000:17:00.0\n" + files("0000:17:00.0", "0"));
  r = run("pcie_aer");
  EXPECT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_EQ(r.observed, "1 port above it without uncorrectable errors; correctable: none");
  EXPECT_EQ(r.detail, "not judged, no AER statistics in sysfs: GPU 0 (1653724067178) 00000000:18:00.0: no aer_dev_* files");
  // Neither the GPU nor its port keeps statistics: skipped, both named.
  state.facts.gpus.value->resize(1);
  set_aer("gpu 0000:18:00.0\n" + absent("0000:18:00.0") + "port 0000:18:00.0 0000:17:00.0\n" + absent("0000:17:00.0"));
  r = run("pcie_aer");
  EXPECT_EQ(r.status, CheckStatus::skipped);
  EXPECT_NE(r.detail.find("GPU 0 (1653724067178) 00000000:18:00.0, port above it 0000:17:00.0: no aer_dev_* files"),
            std::string::npos)
      << r.detail;
  // A port with only some of the files: unknown, never a pass.
  set_aer("gpu 0000:18:00.0\n" + files("0000:18:00.0", "0") + "port 0000:18:00.0 0000:17:00.0\n" +
          "absent 0000:17:00.0 aer_dev_fatal\n/sys/bus/pci/devices/0000:17:00.0/aer_dev_correctable:TOTAL_ERR_COR 0\n"
          "/sys/bus/pci/devices/0000:17:00.0/aer_dev_nonfatal:TOTAL_ERR_NONFATAL 0\n");
  r = run("pcie_aer");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.observed.find("port above it 0000:17:00.0: only some of"), std::string::npos) << r.observed;
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
