// Verification checks (verify/checks.hpp) over NodeFacts and NodeState built from values.
#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/containers.hpp>
#include <gpuctl/facts/fabricmanager_log.hpp>
#include <gpuctl/facts/slurmd_hardware.hpp>
#include <gpuctl/verify/checks.hpp>
#include <gpuctl/verify/container_run.hpp>
#include <gpuctl/verify/slurm_job.hpp>
#include <gpuctl_build_paths.hpp>

#include "dcgm_test_documents.hpp"
#include "exporter_pages.hpp"
#include "nvlink_test_state.hpp"
#include "program_builder.hpp"
#include "template_test_inventory.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace gpuctl {
namespace {

using testing::ProgramFixture;
using testing::StepSpec;

GpuInfo healthy_gpu(int index) {
  GpuInfo gpu;
  gpu.index = index;
  gpu.name = "NVIDIA H100 80GB HBM3";
  gpu.serial = "SN" + std::to_string(1000 + index);
  gpu.uuid = "GPU-0000000" + std::to_string(index);
  gpu.persistence_mode = true;
  gpu.ecc_enabled = true;
  gpu.ecc_volatile_uncorrected = 0;
  gpu.remapped_rows_pending = false;
  gpu.remapped_rows_failure = false;
  gpu.pcie_width_current = 16;
  gpu.pcie_width_max = 16;
  gpu.temperature_c = 40;
  return gpu;
}

// A container node's stack, healthy: the toolkit, containerd with the nvidia runtime, a CDI spec of
// these GPUs on driver 550.127.08, every device node linked from /dev/char, MIG off.
facts::ContainerStack healthy_container_stack(const std::vector<GpuInfo>& gpus) {
  std::string spec = "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ncontainerEdits:\n  mounts:\n"
                     "  - hostPath: /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.127.08\n"
                     "    containerPath: /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.127.08\ndevices:\n";
  std::string devices, links;
  for (const auto& gpu : gpus) {
    spec += "- name: " + gpu.uuid + "\n";
    const auto i = std::to_string(gpu.index);
    devices += "crw-rw-rw- 1 root root 195,   " + i + " Dec  7 16:06 /dev/nvidia" + i + "\n";
    links += "lrwxrwxrwx 1 root root 10 Dec  7 16:06 195:" + i + " -> ../nvidia" + i + "\n";
  }
  spec += "- name: all\n";
  std::string mig;
  for (std::size_t i = 0; i < gpus.size(); ++i) mig += "Disabled\n";
  auto stack = facts::parse_container_stack("@ctk\nNVIDIA Container Toolkit CLI version 1.17.8\n@spec /etc/cdi/nvidia.yaml\n" + spec +
                                            "@containerd\n  BinaryName = \"/usr/bin/nvidia-container-runtime\"\n@devices\n" + devices +
                                            "@char\n" + links +
                                            "@enroot\n3.5.0\n@pyxis\nrequired /usr/lib/x86_64-linux-gnu/slurm/spank_pyxis.so\n"
                                            "@srun\n      --container-image=[USER@][REGISTRY#]IMAGE[:TAG]|PATH\n@mig\n" + mig);
  EXPECT_TRUE(stack) << (stack ? "" : stack.error().message);
  return stack ? *stack : facts::ContainerStack{};
}

class Checks : public ::testing::Test {
 protected:
  Checks() : inventory(testing::example_inventory()), node(inventory.nodes[1]) {
    auto& facts = state.facts;
    facts.loaded_modules = Fact<std::vector<std::string>>::of({"nvidia", "nvidia_uvm", "nvidia_modeset"});
    facts.driver_version = Fact<std::string>::of("550.127.08");
    facts.cuda_version = Fact<std::string>::of("12.4.131");
    facts.nccl_version = Fact<std::string>::of("2.21.5");
    std::vector<GpuInfo> gpus;
    for (int i = 0; i < 8; ++i) gpus.push_back(healthy_gpu(i));
    facts.gpus = Fact<std::vector<GpuInfo>>::of(gpus);
    state.packages["nvidia-open"] = ObservedPackage{true, "550.127.08-1", true};
    state.packages["nvidia-fabricmanager-550"] = ObservedPackage{true, "550.127.08-1", true};
    for (const char* service : {"slurmd", "slurmctld", "prometheus", "nvidia-dcgm-exporter", "prometheus-node-exporter",
                                "nvidia-fabricmanager", "prometheus-alertmanager", "grafana-server"})
      state.services[service] = ObservedService{true, true, true};
    state.slurm_node = ObservedSlurmNode{true, 0, slurm_capture("scontrol-node-idle.txt")};
  }

  // A real capture of node01 (8x H100), renamed to the node under test.
  std::string slurm_capture(const std::string& name) {
    std::ifstream in(std::string(GPUCTL_TEST_DATA_DIR) + "/slurm/" + name, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    auto content = text.str();
    EXPECT_FALSE(content.empty()) << name;
    for (auto at = content.find("node01"); at != std::string::npos; at = content.find("node01", at))
      content.replace(at, 6, node.name);
    return content;
  }

  CheckResult run(const std::string& name) {
    const auto results = run_checks({name}, CheckInput{inventory, node, fixture.program, state, nccl_run ? &*nccl_run : nullptr});
    EXPECT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].name, name);
    return results[0];
  }

  std::vector<GpuInfo>& gpus() { return *state.facts.gpus.value; }

  Inventory inventory;
  Node& node;
  NodeState state;
  std::optional<ObservedNcclRun> nccl_run;  // verify's all-reduce, handed to the checks beside the state
  ProgramFixture fixture{std::vector<StepSpec>{StepSpec{"nccl", {testing::resolved_file("/etc/nccl.conf", "NCCL_DEBUG=WARN\n")}}}};
};

TEST_F(Checks, EveryKnownCheckPassesOnAHealthyNode) {
  state.files["/etc/nccl.conf"] = ObservedFile{true, "", util::sha256_hex("NCCL_DEBUG=WARN\n"), 0644, "root", "root"};
  state.packages["libnccl2"] = ObservedPackage{true, "2.21.5-1+cuda12.4", true};
  std::vector<std::string> names;
  for (const auto& info : known_checks()) names.push_back(info.name);
  EXPECT_EQ(names.size(), 43u);
  // The checks that are skipped unless declared: declared, on a healthy 8-GPU board.
  node.gpu.max_temperature_c = 85;
  std::vector<GpuClockEvents> clocks;
  std::vector<GpuFabric> fabric;
  for (const auto& gpu : *state.facts.gpus.value) {
    const auto bus = "00000000:" + std::to_string(10 + gpu.index) + ":00.0";
    clocks.push_back({bus, false, false, false, false});
    fabric.push_back({bus, "Completed", "Success", true});
  }
  state.facts.clock_events = Fact<std::vector<GpuClockEvents>>::of(clocks);
  state.facts.fabric = Fact<std::vector<GpuFabric>>::of(fabric);
  state.facts.xid_events = Fact<std::vector<XidEvent>>::of({});
  node.gpu.nvlink = NvlinkSpec{"NV18", 18, 25.0};
  node.gpu.nccl_allreduce = NcclAllreduceSpec{};
  node.gpu.nccl_allreduce->min_busbw_gbs = 380;
  testing::set_nvlink_facts(state.facts);
  nccl_run = testing::program_run(8, 409.1, 0);
  // The node's eight NDR ports (the in-code example declares them, GPUDirect RDMA and NCCL_IB_HCA).
  auto ports = facts::parse_infiniband_ports(testing::read_test_data("infiniband/probe-hgx-ndr.txt"));
  ASSERT_TRUE(ports);
  state.facts.infiniband = Fact<std::vector<InfinibandPort>>::of(*ports);
  state.facts.loaded_modules.value->push_back("nvidia_peermem");
  node.gpu.dcgm_diag = DcgmDiagSpec{};
  // The example's NCCL_SOCKET_IFNAME is =bond0; the GPUs' AER counters all 0 (tests/data/pcie-aer/).
  state.facts.net_interfaces = Fact<std::vector<NetInterface>>::of(
      {{"bond0", "up", std::vector<std::string>{"10.1.0.7/16"}}, {"lo", "unknown", std::vector<std::string>{"127.0.0.1/8"}}});
  auto aer = facts::parse_pcie_aer(testing::read_test_data("pcie-aer/probe-clean-8gpu.txt"));
  ASSERT_TRUE(aer);
  for (std::size_t i = 0; i < aer->size(); ++i) gpus()[i].pci_bus_id = "0000" + (*aer)[i].bus_id;
  state.facts.pcie_aer = Fact<std::vector<GpuPcieAer>>::of(*aer);
  // slurmd -C finds the CPUs the capture's slurmctld has (CPUTot=1, one core) and more memory.
  state.facts.declared.set(facts::k_slurmd_hardware, Fact<facts::SlurmHardware>::of({1, 1, 1, 1, 1, 24105}));
  const ObservedDcgmDiag dcgm_run{1, "dcgmi diag -r 1 -j", 0, testing::dcgm4_document_around_test("Hardware"), {}};
  // A container node handed to Kubernetes, with its test image run through CDI.
  inventory.cluster.containers.toolkit_version = "1.17.8";
  inventory.cluster.packages = resolve_packages(inventory.cluster.profile, {"550", "550.127.08", "12.4", true, "1.17.8"}).value();
  node.containers = ContainerSpec{"containerd", false, "localhost/gpu-test:1", "none"};
  for (const char* name : {"nvidia-container-toolkit-base", "libnvidia-container1", "libnvidia-container-tools", "nvidia-container-toolkit"})
    state.packages[name] = ObservedPackage{true, "1.17.8-1", true};
  // ...and in Slurm jobs, through enroot and pyxis from the site's repository.
  inventory.cluster.containers.slurm_repository_url = "https://repo.example/slurm-containers";
  state.packages["enroot"] = ObservedPackage{true, "3.5.0-1", false};
  state.packages["nvslurm-plugin-pyxis"] = ObservedPackage{true, "0.21.0-1", false};
  state.services["containerd"] = ObservedService{true, true, true};
  state.facts.declared.set(facts::k_container_stack, Fact<facts::ContainerStack>::of(healthy_container_stack(gpus())));
  ObservedContainerRun container_run{"ctr run ...", 0, "", "", ""};
  for (const auto& gpu : gpus())
    container_run.out += "GPU " + std::to_string(gpu.index) + ": NVIDIA H100 80GB HBM3 (UUID: " + gpu.uuid + ")\n";
  // verify --slurm-job's job, given every GPU of the node (no device isolation in this program).
  const ObservedSlurmJob job{"srun", 0, "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7\nnvidia-smi rc=0\n", "", ""};
  // Both exporters' pages with every field the alert rules read, for every GPU.
  const auto scrapes = testing::scrapes_of(inventory, node, testing::full_dcgm_page(gpus()), testing::node_exporter_page());
  const auto results = run_checks(
      names, CheckInput{inventory, node, fixture.program, state, nccl_run ? &*nccl_run : nullptr, &dcgm_run, &job, &scrapes,
                        &container_run});
  ASSERT_EQ(results.size(), names.size());
  for (const auto& r : results) EXPECT_EQ(r.status, CheckStatus::pass) << r.name << ": " << r.detail << r.observed;
}

// The catalog's promise: every check that does not pass cites the node command it read and
// what that printed. A node where every probe of the batch failed, every service is stopped,
// scontrol cannot reach the controller, and the all-reduce and DCGM's diagnostic could not run.
TEST_F(Checks, EveryKnownCheckFailsOrErrorsOnABrokenNodeAndCitesItsSource) {
  std::map<std::string, facts::ProbeOutput> probes;
  for (const auto& probe : facts::probe_names()) probes[probe] = {1, "", probe + ": Input/output error"};
  state.facts = facts::facts_from_probes(node.name, probes);
  for (auto& [name, service] : state.services) service.running = false;
  state.slurm_node = ObservedSlurmNode{true, 1, "slurm_load_node: Unable to contact slurm controller (connect failure)\n"};
  state.files["/etc/nccl.conf"] = ObservedFile{};
  node.gpu.max_temperature_c = 85;
  node.gpu.nvlink = NvlinkSpec{"NV18", 18, 25.0};
  node.gpu.nccl_allreduce = NcclAllreduceSpec{};
  node.gpu.dcgm_diag = DcgmDiagSpec{};
  const ObservedNcclRun nccl{"", "", -1, "", "no cc on the node: install gcc and libnccl-dev"};
  const ObservedDcgmDiag dcgm{1, "dcgmi diag -r 1 -j", 1, "Error: unable to establish a connection to the specified host", {}, {}};
  std::vector<std::string> names;
  for (const auto& info : known_checks()) names.push_back(info.name);
  const ObservedSlurmJob job{"srun", 1, "", "srun: error: Unable to contact slurm controller (connect failure)\n", ""};
  auto scrapes = testing::scrapes_of(inventory, node, "", "");
  for (auto& scrape : scrapes.scrapes) scrape.exit_code = 7;  // nothing listens
  node.containers = ContainerSpec{"podman", false, "localhost/gpu-test:1", "none"};
  inventory.cluster.containers.slurm_repository_url = "https://repo.example/slurm-containers";  // pyxis not installed
  const ObservedContainerRun container_run{"podman run ...", 125, "", "Error: localhost/gpu-test:1: image not known\n", ""};
  const auto results =
      run_checks(names, CheckInput{inventory, node, fixture.program, state, &nccl, &dcgm, &job, &scrapes, &container_run});
  ASSERT_EQ(results.size(), names.size());
  for (const auto& r : results) {
    EXPECT_TRUE(r.status == CheckStatus::fail || r.status == CheckStatus::error)
        << r.name << " is " << to_string(r.status) << ": " << r.detail;
    EXPECT_FALSE(r.command.empty()) << r.name << " cites no command";
    EXPECT_FALSE(r.output.empty()) << r.name << " cites no output";
  }
}

TEST_F(Checks, UnknownCheckIsAnErrorNamingIt) {
  const auto r = run("gpu_cout");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.detail.find("unknown check 'gpu_cout'"), std::string::npos);
}

TEST_F(Checks, ResultsKeepTheOrderAsked) {
  const auto results = run_checks({"gpu_count", "nvidia_loaded", "nope"}, CheckInput{inventory, node, fixture.program, state, nccl_run ? &*nccl_run : nullptr});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].name, "gpu_count");
  EXPECT_EQ(results[1].name, "nvidia_loaded");
  EXPECT_EQ(results[2].name, "nope");
}

// Absent facts: the check cannot run, so it is an error with the reason, never a pass.
struct AbsentCase {
  const char* check;
  void (*remove)(NodeFacts&);
};

class ChecksWithAbsentFact : public Checks, public ::testing::WithParamInterface<AbsentCase> {};

TEST_P(ChecksWithAbsentFact, IsAnErrorWithTheReason) {
  GetParam().remove(state.facts);
  const auto r = run(GetParam().check);
  EXPECT_EQ(r.status, CheckStatus::error) << GetParam().check;
  EXPECT_NE(r.detail.find("nvidia-smi: command not found"), std::string::npos) << r.detail;
}

void no_modules(NodeFacts& f) { f.loaded_modules = Fact<std::vector<std::string>>::absent("nvidia-smi: command not found"); }
void no_driver(NodeFacts& f) { f.driver_version = Fact<std::string>::absent("nvidia-smi: command not found"); }
void no_gpus(NodeFacts& f) { f.gpus = Fact<std::vector<GpuInfo>>::absent("nvidia-smi: command not found"); }
void no_cuda(NodeFacts& f) { f.cuda_version = Fact<std::string>::absent("nvidia-smi: command not found"); }

INSTANTIATE_TEST_SUITE_P(Table, ChecksWithAbsentFact,
                         ::testing::Values(AbsentCase{"nouveau_not_loaded", no_modules}, AbsentCase{"nvidia_loaded", no_modules},
                                           AbsentCase{"driver_version", no_driver}, AbsentCase{"gpu_count", no_gpus},
                                           AbsentCase{"gpu_model", no_gpus}, AbsentCase{"ecc_errors", no_gpus},
                                           AbsentCase{"row_remap", no_gpus}, AbsentCase{"pcie_link", no_gpus},
                                           AbsentCase{"persistence_mode", no_gpus}, AbsentCase{"cuda_version", no_cuda}));

TEST_F(Checks, AbsentFactWithoutReasonSaysNotGathered) {
  state.facts.gpus = {};
  const auto r = run("gpu_count");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_EQ(r.detail, "GPUs unknown: not gathered");
}

TEST_F(Checks, EmptyGpuListIsAnErrorForPerGpuChecks) {
  gpus().clear();
  EXPECT_EQ(run("ecc_errors").status, CheckStatus::error);
  EXPECT_EQ(run("gpu_count").status, CheckStatus::fail);
}

TEST_F(Checks, NouveauLoadedFails) {
  state.facts.loaded_modules.value->push_back("nouveau");
  const auto r = run("nouveau_not_loaded");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "nouveau loaded");
  EXPECT_EQ(run("nvidia_loaded").status, CheckStatus::pass);
}

TEST_F(Checks, NvidiaNotLoadedFails) {
  state.facts.loaded_modules = Fact<std::vector<std::string>>::of({"ext4"});
  EXPECT_EQ(run("nvidia_loaded").status, CheckStatus::fail);
  EXPECT_EQ(run("nouveau_not_loaded").status, CheckStatus::pass);
}

TEST_F(Checks, EccErrorsFailureNamesGpuIndexSerialAndCount) {
  gpus()[3].ecc_volatile_uncorrected = 2;
  const auto r = run("ecc_errors");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "GPU 3 (SN1003): 2 uncorrectable volatile ECC errors");
  EXPECT_EQ(r.expected, "ECC on, 0 uncorrectable volatile errors");
}

TEST_F(Checks, EccErrorsFailsForEveryBadGpuAndForEccOff) {
  gpus()[1].ecc_enabled = false;
  gpus()[6].ecc_volatile_uncorrected = 1;
  const auto r = run("ecc_errors");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "GPU 1 (SN1001): ECC disabled; GPU 6 (SN1006): 1 uncorrectable volatile ECC errors");
}

TEST_F(Checks, EccCountNotReportedIsAnErrorNotAPass) {
  gpus()[2].ecc_volatile_uncorrected.reset();
  const auto r = run("ecc_errors");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_EQ(r.observed, "GPU 2 (SN1002): ecc.errors.uncorrected.volatile.total not reported");
}

TEST_F(Checks, EccModeUnknownIsAnErrorQuotingNvidiaSmiEvenWithZeroErrors) {
  gpus()[4].ecc_enabled.reset();
  gpus()[4].unreported["ecc.mode.current"] = "[Unknown Error]";
  const auto r = run("ecc_errors");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_EQ(r.observed, "GPU 4 (SN1004): ecc.mode.current = [Unknown Error]");
  EXPECT_EQ(r.expected, "ECC on, 0 uncorrectable volatile errors");
}

TEST_F(Checks, AFailureWinsOverAnUnknownValueWhichTheDetailNames) {
  gpus()[1].ecc_volatile_uncorrected = 3;
  gpus()[2].ecc_enabled.reset();
  gpus()[2].unreported["ecc.mode.current"] = "[GPU is lost]";
  const auto r = run("ecc_errors");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "GPU 1 (SN1001): 3 uncorrectable volatile ECC errors");
  EXPECT_EQ(r.detail, "also unknown: GPU 2 (SN1002): ecc.mode.current = [GPU is lost]");
}

TEST_F(Checks, GpuCountMismatchFails) {
  gpus().pop_back();
  const auto r = run("gpu_count");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "7");
  EXPECT_EQ(r.expected, "8");
}

TEST_F(Checks, GpuModelIsMatchedCaseInsensitivelyAndNamesTheOddGpu) {
  gpus()[5].name = "NVIDIA A100-SXM4-80GB";
  const auto r = run("gpu_model");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "GPU 5 (SN1005): NVIDIA A100-SXM4-80GB");
  EXPECT_NE(r.detail.find("gpu.model 'H100'"), std::string::npos) << r.detail;
  node.gpu.model = "h100";
  gpus()[5].name = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(run("gpu_model").status, CheckStatus::pass);
}

TEST_F(Checks, GpuModelIsNotASubstringMatch) {
  node.gpu.model = "H10";
  EXPECT_EQ(run("gpu_model").status, CheckStatus::fail);
  node.gpu.model = "H100-80GB-HBM3";
  EXPECT_EQ(run("gpu_model").status, CheckStatus::pass);
}

TEST_F(Checks, GpuNameNotReportedIsAnError) {
  gpus()[3].name.clear();
  gpus()[3].unreported["name"] = "[Unknown Error]";
  const auto r = run("gpu_model");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_EQ(r.observed, "GPU 3 (SN1003): name = [Unknown Error]");
}

TEST_F(Checks, DriverLoadedDifferentFromInventoryFails) {
  state.facts.driver_version = Fact<std::string>::of("550.90.07");
  const auto r = run("driver_version");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "loaded 550.90.07, package 550.127.08-1");
  EXPECT_EQ(r.expected, "550.127.08");
}

TEST_F(Checks, DriverPackageDifferentFromLoadedModuleFailsAskingForAReboot) {
  state.packages["nvidia-open"].version = "550.144.03-1";
  const auto r = run("driver_version");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "loaded 550.127.08, package 550.144.03-1");
  EXPECT_NE(r.detail.find("reboot"), std::string::npos);
}

TEST_F(Checks, DriverPassesWithEpochAndRevisionAndWhenNoPackageIsKnown) {
  state.packages["nvidia-open"].version = "1:550.127.08-0ubuntu1";
  EXPECT_EQ(run("driver_version").status, CheckStatus::pass);
  state.packages.clear();
  const auto r = run("driver_version");
  EXPECT_EQ(r.status, CheckStatus::pass);
  EXPECT_EQ(r.observed, "loaded 550.127.08, package not installed");
}

TEST_F(Checks, RowRemapFailuresAndPendingStatesFail) {
  gpus()[0].remapped_rows_failure = true;
  EXPECT_NE(run("row_remap").observed.find("GPU 0 (SN1000): row remapping failed"), std::string::npos);
  gpus()[0].remapped_rows_failure = false;
  gpus()[0].remapped_rows_pending = true;
  EXPECT_EQ(run("row_remap").status, CheckStatus::fail);
  gpus()[0].remapped_rows_pending = false;
  gpus()[0].retired_pages_pending = true;
  EXPECT_EQ(run("row_remap").status, CheckStatus::fail);
}

TEST_F(Checks, RowRemapUnknownFailureIsAnErrorEvenWhenPendingIsKnown) {
  gpus()[6].remapped_rows_failure.reset();
  gpus()[6].unreported["remapped_rows.failure"] = "[Unknown Error]";
  auto r = run("row_remap");
  EXPECT_EQ(r.status, CheckStatus::error);
  // Neither mechanism is known in full, so the retired pages are missed too.
  EXPECT_EQ(r.observed, "GPU 6 (SN1006): remapped_rows.failure = [Unknown Error], retired_pages.pending not reported");
  gpus()[6].retired_pages_pending = false;  // retired pages known does not excuse a read error
  EXPECT_EQ(run("row_remap").status, CheckStatus::error);
  gpus()[6].unreported["remapped_rows.failure"] = "[N/A]";  // but does excuse "not applicable"
  EXPECT_EQ(run("row_remap").status, CheckStatus::pass);
}

TEST_F(Checks, RowRemapWithNeitherFieldReportedIsAnError) {
  gpus()[4].remapped_rows_pending.reset();
  gpus()[4].retired_pages_pending.reset();
  EXPECT_EQ(run("row_remap").status, CheckStatus::error);
  gpus()[4].retired_pages_pending = false;  // pre-Ampere GPUs report retired pages instead
  EXPECT_EQ(run("row_remap").status, CheckStatus::pass);
}

TEST_F(Checks, NarrowPcieLinkFailsAndUnknownWidthIsAnError) {
  gpus()[7].pcie_width_current = 8;
  EXPECT_EQ(run("pcie_link").observed, "GPU 7 (SN1007): x8 of x16");
  gpus()[7].pcie_width_current.reset();
  gpus()[7].unreported["pcie.link.width.current"] = "[GPU requires reset]";
  const auto r = run("pcie_link");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_EQ(r.observed, "GPU 7 (SN1007): pcie.link.width.current = [GPU requires reset]");
}

TEST_F(Checks, PersistenceModeOffFails) {
  gpus()[2].persistence_mode = false;
  EXPECT_EQ(run("persistence_mode").status, CheckStatus::fail);
  gpus()[2].persistence_mode = true;
  gpus()[5].persistence_mode.reset();
  gpus()[5].unreported["persistence_mode"] = "[Insufficient Permissions]";
  const auto r = run("persistence_mode");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_EQ(r.observed, "GPU 5 (SN1005): persistence_mode = [Insufficient Permissions]");
}

TEST_F(Checks, CudaVersionMustStartWithTheInventoryVersion) {
  state.facts.cuda_version = Fact<std::string>::of("12.2.140");
  const auto r = run("cuda_version");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "12.2.140");
  EXPECT_EQ(r.expected, "12.4");
  state.facts.cuda_version = Fact<std::string>::of("12.40.1");  // whole components: 12.4 is not 12.40
  EXPECT_EQ(run("cuda_version").status, CheckStatus::fail);
  state.facts.cuda_version = Fact<std::string>::of("12.4");
  EXPECT_EQ(run("cuda_version").status, CheckStatus::pass);
}

TEST_F(Checks, NcclAbsentFails) {
  state.facts.nccl_version = Fact<std::string>::absent("libnccl2 not installed");
  const auto r = run("nccl_present");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.detail, "libnccl2 not installed");
}

// The example inventory's profile (debian12-cuda-repository) pins libnccl2 2.21.5-1+cuda12.4
// for its CUDA 12.4, as NVIDIA's repository names its builds.
TEST_F(Checks, NcclPresentWantsTheProfilesBuildForTheInventorysCudaHeld) {
  ASSERT_EQ(inventory.cluster.packages.version("nccl"), "2.21.5-1+cuda12.4");
  state.packages["libnccl2"] = ObservedPackage{true, "2.21.5-1+cuda12.4", true};
  const auto held = run("nccl_present");
  EXPECT_EQ(held.status, CheckStatus::pass) << held.detail;
  EXPECT_EQ(held.observed, "libnccl2 2.21.5-1+cuda12.4, held");
  EXPECT_EQ(held.expected, "libnccl2 2.21.5-1+cuda12.4 (built for the inventory's CUDA 12.4), held");
  // What apt takes unpinned: the newest build, here for a CUDA the driver may not support.
  state.packages["libnccl2"] = ObservedPackage{true, "2.26.2-1+cuda12.8", true};
  const auto other = run("nccl_present");
  ASSERT_EQ(other.status, CheckStatus::fail);
  EXPECT_NE(other.detail.find("another build than the profile's for CUDA 12.4: gpuctl apply installs libnccl2=2.21.5-1+cuda12.4"),
            std::string::npos)
      << other.detail;
  state.packages["libnccl2"] = ObservedPackage{true, "2.21.5-1+cuda12.4", false};
  EXPECT_EQ(run("nccl_present").status, CheckStatus::fail) << "not held";
  state.packages["libnccl2"] = ObservedPackage{false, "", false};
  EXPECT_NE(run("nccl_present").detail.find("a libnccl.so that no libnccl2 package installed"), std::string::npos);
  // No `cuda:` in the inventory: no build to pin, any NCCL passes.
  inventory.cluster.packages.versions["nccl"] = "";
  EXPECT_EQ(run("nccl_present").status, CheckStatus::pass);
}

TEST_F(Checks, NcclConfComparesTheDigestWithTheProgram) {
  EXPECT_EQ(run("nccl_conf").status, CheckStatus::error);  // not read
  state.files["/etc/nccl.conf"] = ObservedFile{};
  EXPECT_EQ(run("nccl_conf").observed, "missing");
  state.files["/etc/nccl.conf"] = ObservedFile{true, "", util::sha256_hex("NCCL_DEBUG=INFO\n"), 0644, "root", "root"};
  EXPECT_EQ(run("nccl_conf").status, CheckStatus::fail);
}

TEST_F(Checks, ServiceChecksFailWhenStoppedAndErrWhenUnknown) {
  state.services["slurmd"].running = false;
  const auto r = run("slurmd_active");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "slurmd not running");
  state.services.erase("slurmctld");
  EXPECT_EQ(run("slurmctld_active").status, CheckStatus::error);
  state.services["prometheus"].known = false;
  EXPECT_EQ(run("prometheus_active").status, CheckStatus::error);
}

// HGX boards (issue #19): the fabric manager runs, at exactly the loaded driver's version.
TEST_F(Checks, FabricManagerRunsAtTheLoadedDriversVersionOnNvswitchBoards) {
  EXPECT_EQ(run("fabricmanager_active").status, CheckStatus::pass);
  const auto ok = run("fabricmanager_version");
  EXPECT_EQ(ok.status, CheckStatus::pass);
  EXPECT_EQ(ok.observed, "nvidia-fabricmanager-550 550.127.08-1, driver 550.127.08");

  // systemd's "activating" counts as running for the plan; for verify it is no fabric yet.
  state.services["nvidia-fabricmanager"].active_state = "activating";
  const auto starting = run("fabricmanager_active");
  EXPECT_EQ(starting.status, CheckStatus::fail);
  EXPECT_NE(starting.observed.find("activating"), std::string::npos) << starting.observed;
  state.services["nvidia-fabricmanager"].active_state = "active";
  EXPECT_EQ(run("fabricmanager_active").status, CheckStatus::pass);
  state.services["nvidia-fabricmanager"].running = false;
  EXPECT_EQ(run("fabricmanager_active").status, CheckStatus::fail);

  // The classic failure: the driver moved, the fabric manager did not.
  state.packages["nvidia-fabricmanager-550"].version = "550.90.07-1";
  const auto mismatch = run("fabricmanager_version");
  EXPECT_EQ(mismatch.status, CheckStatus::fail);
  EXPECT_EQ(mismatch.expected, "550.127.08");
  EXPECT_NE(mismatch.detail.find("error 802"), std::string::npos) << mismatch.detail;
  state.packages.erase("nvidia-fabricmanager-550");
  EXPECT_EQ(run("fabricmanager_version").status, CheckStatus::fail);
  state.facts.driver_version = Fact<std::string>::absent("no NVIDIA kernel module is loaded");
  EXPECT_EQ(run("fabricmanager_version").status, CheckStatus::error) << "unknown is never a pass";
}

// Issue #34: failed, never enabled and not installed are told apart, each with its fix. The
// words are systemd's: the not-found block of tests/data/systemd/show-ssh-munge-nope-journald.txt,
// and "Active: failed (Result: exit-code)" of the dead fabric manager in NVIDIA/NVSentinel #883.
TEST_F(Checks, FabricManagerDownSaysFailedNeverEnabledOrNotInstalled) {
  auto& fm = state.services["nvidia-fabricmanager"];
  fm = ObservedService{true, true, false, "loaded", "enabled", "failed", "exit-code"};
  auto r = run("fabricmanager_active");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "nvidia-fabricmanager failed (ActiveState=failed, Result=exit-code)");
  EXPECT_NE(r.detail.find("it started and failed: read why in journalctl -u nvidia-fabricmanager"), std::string::npos)
      << r.detail;
  EXPECT_NE(r.output.find("Result=exit-code"), std::string::npos) << r.output;

  fm = ObservedService{true, false, false, "loaded", "disabled", "inactive", "success"};
  r = run("fabricmanager_active");
  EXPECT_EQ(r.observed, "nvidia-fabricmanager inactive, never enabled (UnitFileState=disabled)");
  EXPECT_NE(r.detail.find("never enabled: systemctl enable --now nvidia-fabricmanager"), std::string::npos) << r.detail;

  fm = ObservedService{true, false, false, "not-found", "", "inactive", ""};
  r = run("fabricmanager_active");
  EXPECT_EQ(r.observed, "nvidia-fabricmanager not installed (LoadState=not-found: no such unit)");
  EXPECT_NE(r.detail.find("not installed: install nvidia-fabricmanager-550"), std::string::npos) << r.detail;

  fm = ObservedService{true, true, false, "loaded", "enabled", "inactive", "success"};
  EXPECT_NE(run("fabricmanager_active").detail.find("enabled but not running: systemctl start"), std::string::npos);

  // Where the fabric manager ran, its own log says why (tests/data/fabricmanager/).
  const auto log = facts::parse_fabricmanager_log(testing::read_test_data("fabricmanager/probe-errors.txt"));
  ASSERT_TRUE(log) << log.error().message;
  EXPECT_TRUE(log->exists);
  ASSERT_EQ(log->errors.size(), 2u);
  state.facts.declared.set(facts::k_fabricmanager_log, Fact<facts::FabricManagerLog>::of(*log));
  fm = ObservedService{true, true, false, "loaded", "enabled", "failed", "exit-code"};
  r = run("fabricmanager_active");
  EXPECT_NE(r.detail.find("the fabric manager's log (/var/log/fabricmanager.log) says: [Jul 23 2024 07:53:55] [ERROR] "
                          "[tid 841] detected NVSwitch fatal error 20034"),
            std::string::npos)
      << r.detail;
  EXPECT_FALSE(facts::parse_fabricmanager_log("@@fmlog /var/log/fabricmanager.log\n@@fmlog-unreadable\n"));
  const auto none = facts::parse_fabricmanager_log("@@fmlog /var/log/fabricmanager.log\n@@fmlog-absent\n");
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->exists);
}

TEST_F(Checks, FabricManagerChecksSkipWithoutNvswitch) {
  node.gpu.nvswitch = false;  // an 8-card PCIe server declares it
  state.services.erase("nvidia-fabricmanager");
  EXPECT_EQ(run("fabricmanager_active").status, CheckStatus::skipped);
  EXPECT_EQ(run("fabricmanager_version").status, CheckStatus::skipped);
}

TEST(Nvswitch, ImpliedByEightGpusOfAnHgxModelUnlessDeclared) {
  EXPECT_TRUE(has_nvswitch(GpuSpec{"H100", 8, std::nullopt}));
  EXPECT_TRUE(has_nvswitch(GpuSpec{"B200", 8, std::nullopt}));
  EXPECT_FALSE(has_nvswitch(GpuSpec{"H200", 1, std::nullopt}));  // the real H200 test machine
  EXPECT_FALSE(has_nvswitch(GpuSpec{"L40S", 8, std::nullopt}));
  GpuSpec pcie{"H100", 8, std::nullopt};
  pcie.nvswitch = false;
  EXPECT_FALSE(has_nvswitch(pcie));
  GpuSpec declared{"H100", 4, std::nullopt};
  declared.nvswitch = true;
  EXPECT_TRUE(has_nvswitch(declared));
}

// Every 8-GPU HGX model is an NVSwitch board (the fabric manager's user guide, "NVSwitch-Based
// Systems"), named as the inventory or nvidia-smi writes it; H20 among them (issue #34: an
// 8x H20 board skipped a dead fabric manager). GB200 trays are not: their switches are elsewhere.
TEST(Nvswitch, EveryHgxModelImpliesIt) {
  for (const char* model : {"A100", "A800", "H100", "H800", "H200", "H20", "B100", "B200", "B300", "NVIDIA H20",
                            "H100-SXM5-80GB", "h20", "NVIDIA A100-SXM4-80GB"})
    EXPECT_TRUE(has_nvswitch(GpuSpec{model, 8, std::nullopt})) << model;
  for (const char* model : {"NVIDIA H100 PCIe", "H100-NVL", "NVIDIA A100-PCIE-40GB", "GB200", "GH200", "L40S", "H2", "H2000"})
    EXPECT_FALSE(has_nvswitch(GpuSpec{model, 8, std::nullopt})) << model;
}

TEST_F(Checks, AnEightGpuH20BoardChecksItsFabricManager) {
  node.gpu.model = "H20";
  node.gpu.count = 8;
  node.gpu.nvswitch.reset();
  state.services["nvidia-fabricmanager"].running = false;
  EXPECT_EQ(run("fabricmanager_active").status, CheckStatus::fail) << "a dead fabric manager is not skipped on HGX H20";
}

TEST_F(Checks, ExportersCheckFollowsTheInventory) {
  // The profile's service name: NVIDIA's package ships nvidia-dcgm-exporter.service.
  state.services["nvidia-dcgm-exporter"].running = false;
  const auto stopped = run("exporters_active");
  EXPECT_EQ(stopped.status, CheckStatus::fail);
  EXPECT_NE(stopped.observed.find("nvidia-dcgm-exporter"), std::string::npos) << stopped.observed;
  inventory.cluster.monitoring.dcgm_exporter = false;
  EXPECT_EQ(run("exporters_active").status, CheckStatus::pass);
  inventory.cluster.monitoring.node_exporter = false;
  EXPECT_EQ(run("exporters_active").status, CheckStatus::skipped);
}

TEST_F(Checks, SlurmdRegisteredPassesForAnIdleNodeWithItsGpus) {
  const auto r = run("slurmd_registered");
  EXPECT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_EQ(r.observed, "State=IDLE Gres=gpu:h100:8");
  EXPECT_EQ(r.expected, "registered, takes jobs, Gres=gpu:h100:8");
}

TEST_F(Checks, SlurmdRegisteredFailsForADrainedOrDownNodeWithTheReason) {
  state.slurm_node->output = slurm_capture("scontrol-node-drained.txt");
  auto r = run("slurmd_registered");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.detail, "drained (State=IDLE+DRAIN): gpuctl test: maintenance");
  state.slurm_node->output = slurm_capture("scontrol-node-down.txt");
  r = run("slurmd_registered");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "State=DOWN Gres=gpu:h100:8");
}

TEST_F(Checks, SlurmdRegisteredFailsWhenTheGresDiffersFromTheInventory) {
  node.gpu.count = 4;
  auto r = run("slurmd_registered");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.expected, "registered, takes jobs, Gres=gpu:h100:4");
  node.gpu.count = 8;
  node.gpu.model = "H200";
  EXPECT_EQ(run("slurmd_registered").status, CheckStatus::fail);
}

TEST_F(Checks, SlurmdRegisteredFailsForANodeSlurmDoesNotKnow) {
  state.slurm_node = ObservedSlurmNode{true, 1, slurm_capture("scontrol-node-not-found.txt")};
  // The capture names node07; Slurm prints the name asked for.
  state.slurm_node->output = "Node " + node.name + " not found\n";
  const auto r = run("slurmd_registered");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "not in Slurm");
}

TEST_F(Checks, SlurmdRegisteredIsAnErrorWhenSlurmCannotBeAsked) {
  state.slurm_node = ObservedSlurmNode{true, 1, slurm_capture("scontrol-no-controller.txt")};
  auto r = run("slurmd_registered");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.detail.find("Unable to contact slurm controller"), std::string::npos) << r.detail;
  state.slurm_node = ObservedSlurmNode{false, 0, {}};
  r = run("slurmd_registered");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_EQ(r.detail, "scontrol not found on the node (package slurm-client)");
  state.slurm_node.reset();
  EXPECT_EQ(run("slurmd_registered").status, CheckStatus::error);
  state.slurm_node = ObservedSlurmNode{true, 0, "garbage\n"};
  EXPECT_EQ(run("slurmd_registered").status, CheckStatus::error);
}

TEST_F(Checks, SlurmdRegisteredIsAnErrorWhenScontrolAnswersForAnotherNode) {
  state.slurm_node->output = "NodeName=other State=IDLE Gres=gpu:h100:8\n";
  EXPECT_EQ(run("slurmd_registered").status, CheckStatus::error);
}

}  // namespace
}  // namespace gpuctl
