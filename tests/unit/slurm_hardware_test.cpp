// slurm.conf's hardware values and gres.conf's GPU cores (plan/slurm_hardware.hpp): the probe's
// parser on real captures (tests/data/hardware/: the device's H100 under Ubuntu 24.04, the
// Debian 12 build host with Slurm 22.05.8's slurmd), the derating rule, pins, and what the
// shipped templates render from them.
#include <gpuctl/facts/node_hardware.hpp>
#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/plan/slurm_hardware.hpp>
#include <gpuctl/template/renderer.hpp>

#include "probe_capture.hpp"
#include "template_test_inventory.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

namespace gpuctl {
namespace {

std::string hardware_data(const std::string& name) { return testing::read_test_data("hardware/" + name); }

// A two-socket node of 56 cores a socket with two threads a core, numbered as Linux numbers
// Intel's (CPU n and n+112 are one core's threads), with eight GPUs, four on each socket: the
// probe's output for the layout of a typical HGX H100 host (constructed, not captured).
std::string hgx_probe_output(bool with_slurmd) {
  std::string out = with_slurmd ? "@@ slurmd rc=0\nNodeName=gpu01 CPUs=224 Boards=1 SocketsPerBoard=2 CoresPerSocket=56 "
                                  "ThreadsPerCore=2 RealMemory=2063713\nUpTime=12-01:02:03\n"
                                : "@@ slurmd rc=127\nslurmd: command not found\n";
  out += "@@ lscpu rc=0\n# CPU,Core,Socket\n";
  for (int cpu = 0; cpu < 224; ++cpu) out += fmt::format("{},{},{}\n", cpu, cpu % 112, (cpu % 112) / 56);
  out += "@@ meminfo rc=0\nMemTotal:       2113242112 kB\n@@ gpus rc=0\n";
  const char* buses[] = {"18", "2a", "3a", "5d", "9a", "ab", "ba", "db"};
  for (int i = 0; i < 8; ++i)
    out += fmt::format("0000:{}:00.0 {}\n", buses[i], i < 4 ? "0-55,112-167" : "56-111,168-223");
  return out;
}

Inventory one_node_inventory() {
  auto inventory = testing::example_inventory();
  return inventory;
}

const Node& node_named(const Inventory& inventory, const std::string& name) {
  return *std::ranges::find(inventory.nodes, name, &Node::name);
}

std::map<std::string, std::pair<std::int64_t, std::string>> by_key(const SlurmNodeHardware& hardware) {
  std::map<std::string, std::pair<std::int64_t, std::string>> out;
  for (const auto& value : hardware.values) out[value.key] = {value.value, value.source};
  return out;
}

TEST(NodeHardware, ReadsTheDeviceH100WithoutSlurmdFromLscpuAndMeminfo) {
  const auto hardware = facts::parse_node_hardware(hardware_data("node-hardware-h100-ubuntu2404.txt"));
  ASSERT_TRUE(hardware) << hardware.error().message;
  EXPECT_EQ(hardware->source, "lscpu -p, /proc/meminfo");
  EXPECT_EQ(hardware->slurm.cpus, 16);
  EXPECT_EQ(hardware->slurm.boards, 1);
  EXPECT_EQ(hardware->slurm.sockets_per_board, 1);
  EXPECT_EQ(hardware->slurm.cores_per_socket, 16);
  EXPECT_EQ(hardware->slurm.threads_per_core, 1);
  EXPECT_EQ(hardware->slurm.real_memory_mib, 131961972 / 1024);
  ASSERT_EQ(hardware->gpus.size(), 1u);
  // The PCI address nvidia-smi gives GPU 0 (gpus-h100-ubuntu2404.csv) and the CPUs its topo -m
  // shows as CPU Affinity (topo-m-h100-ubuntu2404.txt): 0-15.
  EXPECT_EQ(hardware->gpus[0].pci_address, "0000:00:06.0");
  EXPECT_EQ(hardware->gpus[0].cpus.size(), 16u);
  EXPECT_NE(hardware_data("gpus-h100-ubuntu2404.csv").find("0, 00000000:00:06.0, NVIDIA H100"), std::string::npos);
  EXPECT_NE(hardware_data("topo-m-h100-ubuntu2404.txt").find("GPU0\t X \t0-15\t0"), std::string::npos);
}

TEST(NodeHardware, TakesSlurmdsOwnViewWhereSlurmdAnswers) {
  const auto hardware = facts::parse_node_hardware(hardware_data("node-hardware-debian12-slurmd.txt"));
  ASSERT_TRUE(hardware) << hardware.error().message;
  EXPECT_EQ(hardware->source, "slurmd -C");
  EXPECT_EQ(hardware->slurm.cpus, 2);
  EXPECT_EQ(hardware->slurm.real_memory_mib, 24105);
  EXPECT_EQ(hardware->core_of_cpu.size(), 2u);
  EXPECT_TRUE(hardware->gpus.empty());
}

TEST(NodeHardware, CountsSocketsCoresAndThreadsOfATwoSocketSmtNode) {
  const auto counted = facts::parse_node_hardware(hgx_probe_output(false));
  ASSERT_TRUE(counted) << counted.error().message;
  EXPECT_EQ(counted->slurm.cpus, 224);
  EXPECT_EQ(counted->slurm.sockets_per_board, 2);
  EXPECT_EQ(counted->slurm.cores_per_socket, 56);
  EXPECT_EQ(counted->slurm.threads_per_core, 2);
  EXPECT_EQ(counted->slurm.real_memory_mib, 2063713);
  const auto reported = facts::parse_node_hardware(hgx_probe_output(true));
  ASSERT_TRUE(reported);
  EXPECT_EQ(reported->slurm.cpus, counted->slurm.cpus);
  EXPECT_EQ(reported->slurm.real_memory_mib, counted->slurm.real_memory_mib);
}

TEST(NodeHardware, RefusesOutputItCannotReadAndSaysWhy) {
  const auto no_lscpu = facts::parse_node_hardware("@@ slurmd rc=127\nslurmd: command not found\n@@ lscpu rc=127\n"
                                                   "sh: 1: lscpu: not found\n@@ meminfo rc=0\nMemTotal: 1 kB\n@@ gpus rc=0\n");
  ASSERT_FALSE(no_lscpu);
  EXPECT_EQ(no_lscpu.error().message, "lscpu -p failed (exit 127: sh: 1: lscpu: not found)");
  EXPECT_FALSE(facts::parse_node_hardware(""));
  auto bad_list = hgx_probe_output(true);
  bad_list.replace(bad_list.find("0-55,112-167"), 12, "55-0");
  const auto reversed = facts::parse_node_hardware(bad_list);
  ASSERT_FALSE(reversed);
  EXPECT_NE(reversed.error().message.find("GPU 0000:18:00.0: local_cpulist"), std::string::npos) << reversed.error().message;
  auto bad_memory = hgx_probe_output(false);
  bad_memory.replace(bad_memory.find("2113242112 kB"), 13, "lots kB");
  EXPECT_FALSE(facts::parse_node_hardware(bad_memory));
}

TEST(NodeHardware, ParsesCpuLists) {
  EXPECT_EQ(facts::parse_cpu_list("0-2,5").value(), (std::vector<int>{0, 1, 2, 5}));
  EXPECT_EQ(facts::parse_cpu_list("7\n").value(), std::vector<int>{7});
  EXPECT_FALSE(facts::parse_cpu_list("3-1"));
  EXPECT_FALSE(facts::parse_cpu_list("a"));
  EXPECT_FALSE(facts::parse_cpu_list("0-99999999"));
}

TEST(SlurmHardware, DeratesRealMemoryByTheReserveInWholeGiB) {
  SlurmSettings slurm;  // 5%
  // The build host: 24105 MiB less 1206 MiB (5%, rounded up) is 22899, down to 22 GiB.
  EXPECT_EQ(derated_real_memory(24105, slurm), 22528);
  // A 2 TiB node: 2063713 MiB less 103186 is 1960527, down to 1914 GiB (docs/slurm.md).
  EXPECT_EQ(derated_real_memory(2063713, slurm), 1914 * 1024);
  slurm.memory_reserve_percent = 0;
  EXPECT_EQ(derated_real_memory(24105, slurm), 23552);
  slurm.memory_reserve_mib = 64 * 1024;
  EXPECT_EQ(derated_real_memory(2063713, slurm), 1951 * 1024);
  EXPECT_EQ(memory_reserve_text(slurm), "65536 MiB");
  EXPECT_EQ(derated_real_memory(1000, slurm), 1) << "never zero or less";
}

TEST(SlurmHardware, DerivesEachValueWithItsSourceAndTheGpusCores) {
  const auto inventory = one_node_inventory();
  const auto observed = facts::parse_node_hardware(hgx_probe_output(true));
  ASSERT_TRUE(observed);
  const auto hardware = derive_slurm_hardware(inventory, node_named(inventory, "gpu01"), observed);
  ASSERT_TRUE(hardware) << hardware.error().message;
  const auto values = by_key(*hardware);
  ASSERT_EQ(hardware->values.size(), 6u);
  EXPECT_EQ(values.at("CPUs"), (std::pair<std::int64_t, std::string>{224, "slurmd -C"}));
  EXPECT_EQ(values.at("SocketsPerBoard").first, 2);
  EXPECT_EQ(values.at("RealMemory"),
            (std::pair<std::int64_t, std::string>{1914 * 1024, "2063713 MiB (slurmd -C) less the 5% reserve, in whole GiB"}));
  // Cores= are Slurm's core indexes: socket 0's cores 0-55 for GPUs 0-3, socket 1's for 4-7.
  ASSERT_EQ(hardware->gpu_cores.size(), 8u);
  EXPECT_EQ(hardware->gpu_cores[0], "0-55");
  EXPECT_EQ(hardware->gpu_cores[7], "56-111");
}

TEST(SlurmHardware, APinnedValueWinsAndSaysSo) {
  auto inventory = one_node_inventory();
  auto& node = inventory.nodes[1];
  node.labels["slurm.RealMemory"] = "1900000";
  node.labels["slurm.cpus"] = "200";
  const auto hardware = derive_slurm_hardware(inventory, node, facts::parse_node_hardware(hgx_probe_output(true)));
  ASSERT_TRUE(hardware) << hardware.error().message;
  const auto values = by_key(*hardware);
  EXPECT_EQ(values.at("RealMemory"), (std::pair<std::int64_t, std::string>{1900000, "pinned: label slurm.RealMemory"}));
  EXPECT_EQ(values.at("CPUs"), (std::pair<std::int64_t, std::string>{200, "pinned: label slurm.cpus"}));
  EXPECT_EQ(values.at("CoresPerSocket").second, "slurmd -C");
}

TEST(SlurmHardware, AnUnknownNodeIsAnErrorThatNamesItAndTheFixUnlessFullyPinned) {
  auto inventory = one_node_inventory();
  auto& node = inventory.nodes[1];
  const Result<facts::NodeHardware> unreachable = fail(ErrorCode::transport, "connection refused");
  const auto unknown = derive_slurm_hardware(inventory, node, unreachable);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message,
            "the hardware of Slurm node gpu01 is not known (connection refused), so slurm.conf cannot give its CPUs");
  EXPECT_NE(unknown.error().hint.find("pin its values with labels slurm.CPUs"), std::string::npos);
  for (const auto key : k_slurm_hardware_keys) node.labels[fmt::format("slurm.{}", key)] = "4";
  const auto pinned = derive_slurm_hardware(inventory, node, unreachable);
  ASSERT_TRUE(pinned) << pinned.error().message;
  EXPECT_TRUE(pinned->gpu_cores.empty());
  EXPECT_EQ(pinned->gpu_cores_source, "none: connection refused");
}

TEST(SlurmHardware, GivesNoCoresWhereSysfsDoesNotShowTheDeclaredGpus) {
  const auto inventory = one_node_inventory();
  auto seven = facts::parse_node_hardware(hgx_probe_output(true));
  ASSERT_TRUE(seven);
  seven->gpus.pop_back();
  const auto hardware = derive_slurm_hardware(inventory, node_named(inventory, "gpu01"), seven);
  ASSERT_TRUE(hardware);
  EXPECT_TRUE(hardware->gpu_cores.empty());
  EXPECT_EQ(hardware->gpu_cores_source, "none: sysfs shows 7 NVIDIA GPUs, the inventory declares 8");
}

// What the shipped templates make of it: the values on the NodeName line, one gres.conf line
// per GPU with its cores, and nodes alike folded onto one line.
TEST(SlurmHardware, TheShippedTemplatesWriteTheValuesAndFoldNodesAlike) {
  auto inventory = one_node_inventory();
  const auto observed = facts::parse_node_hardware(hgx_probe_output(true));
  SlurmHardwareTable table;
  for (const Node* node : slurm_compute_nodes(inventory))
    table[node->name] = derive_slurm_hardware(inventory, *node, observed).value();
  table["gpu08"].values.back().value = 1000 * 1024;  // gpu08 has less memory
  const PreparedClusterContext context(inventory, &table);
  const auto& node = node_named(inventory, "gpu01");
  const auto slurm_conf = render_template_file(default_templates_dir(), "slurm.conf.mustache", inventory, node, &context);
  ASSERT_TRUE(slurm_conf) << slurm_conf.error().message;
  EXPECT_NE(slurm_conf->find("NodeName=gpu[01-07] NodeAddr=10.10.1.[1-7] Gres=gpu:h100:8 CPUs=224 Boards=1 "
                             "SocketsPerBoard=2 CoresPerSocket=56 ThreadsPerCore=2 RealMemory=1959936\n"),
            std::string::npos)
      << *slurm_conf;
  EXPECT_NE(slurm_conf->find("NodeName=gpu08 NodeAddr=10.10.1.8 Gres=gpu:h100:8 CPUs=224 Boards=1 SocketsPerBoard=2 "
                             "CoresPerSocket=56 ThreadsPerCore=2 RealMemory=1024000\n"),
            std::string::npos)
      << *slurm_conf;
  const auto gres = render_template_file(default_templates_dir(), "gres.conf.mustache", inventory, node, &context);
  ASSERT_TRUE(gres) << gres.error().message;
  EXPECT_NE(gres->find("NodeName=gpu[01-07] Name=gpu Type=h100 File=/dev/nvidia0 Cores=0-55\n"), std::string::npos) << *gres;
  EXPECT_NE(gres->find("NodeName=gpu08 Name=gpu Type=h100 File=/dev/nvidia7 Cores=56-111\n"), std::string::npos) << *gres;
  EXPECT_EQ(gres->find("File=/dev/nvidia[0-7]"), std::string::npos) << *gres;
}

TEST(SlurmHardware, ATemplateListingTheNodesFailsWithWhyWhenOneIsUnknown) {
  const auto inventory = one_node_inventory();
  const PreparedClusterContext context(inventory, nullptr, {{"slurm.node_groups", "the hardware of gpu03 is not known"}});
  const auto& node = node_named(inventory, "gpu01");
  const auto slurm_conf = render_template_file(default_templates_dir(), "slurm.conf.mustache", inventory, node, &context);
  ASSERT_FALSE(slurm_conf);
  EXPECT_NE(slurm_conf.error().message.find("cannot render slurm.node_groups: the hardware of gpu03 is not known"),
            std::string::npos)
      << slurm_conf.error().message;
  // A template that does not list the nodes still renders.
  EXPECT_TRUE(render_template_file(default_templates_dir(), "nccl.conf.mustache", inventory, node, &context));
}

}  // namespace
}  // namespace gpuctl

namespace gpuctl {
namespace {

std::string first_error(const LoadResult& result) {
  for (const auto& d : result.diagnostics)
    if (d.severity == Severity::error) return d.to_string();
  return {};
}

TEST(SlurmHardwareInventory, ReadsTheMemoryReserveAsAShareOrAnAmount) {
  const auto load = [](const std::string& reserve) {
    return load_inventory_text("cluster:\n  name: c\n  slurm: {controller: a1, memory_reserve: \"" + reserve +
                                   "\"}\nhosts: {a1: }\n",
                               "inv.yaml");
  };
  const auto share = load("2%");
  ASSERT_TRUE(share.ok()) << first_error(share);
  EXPECT_EQ(share.inventory->cluster.slurm.memory_reserve_percent, 2);
  const auto amount = load("16GiB");
  ASSERT_TRUE(amount.ok()) << first_error(amount);
  EXPECT_EQ(amount.inventory->cluster.slurm.memory_reserve_mib, 16384);
  EXPECT_EQ(load("512MiB").inventory.value().cluster.slurm.memory_reserve_mib, 512);
  for (const auto* bad : {"60%", "-1%", "16G", "0GiB", "lots", "5 %"}) {
    const auto refused = load(bad);
    EXPECT_FALSE(refused.ok()) << bad;
    EXPECT_NE(first_error(refused).find("inv.yaml:3:"), std::string::npos) << first_error(refused);
  }
}

TEST(SlurmHardwareInventory, RefusesPinsThatAreNotCountsAndSlurmsOtherNames) {
  const auto load = [](const std::string& label) {
    return load_inventory_text("cluster: {name: c}\nhosts:\n  a1: {labels: {" + label + "}}\n", "inv.yaml");
  };
  EXPECT_TRUE(load("slurm.RealMemory: \"1900000\"").ok());
  EXPECT_TRUE(load("slurm.threadspercore: \"2\"").ok());
  const auto zero = load("slurm.CPUs: \"0\"");
  ASSERT_FALSE(zero.ok());
  EXPECT_NE(first_error(zero).find("value '0' of label 'slurm.CPUs' is not a positive whole number"), std::string::npos)
      << first_error(zero);
  EXPECT_FALSE(load("slurm.RealMemory: \"1.9T\"").ok());
  const auto sockets = load("slurm.Sockets: \"2\"");
  ASSERT_FALSE(sockets.ok());
  EXPECT_NE(first_error(sockets).find("would contradict the SocketsPerBoard"), std::string::npos) << first_error(sockets);
  EXPECT_FALSE(load("slurm.Procs: \"8\"").ok());
  // Other slurm.* labels stay node options.
  EXPECT_TRUE(load("slurm.Weight: \"10\"").ok());
}

}  // namespace
}  // namespace gpuctl

namespace gpuctl {
namespace {

TEST(DeployedSlurmHardware, ReadsTheNodesLineAndItsGpuCoresAndLetsPinsWin) {
  auto inventory = testing::example_inventory();
  auto& node = inventory.nodes[2];  // gpu02, 8 GPUs
  const std::string conf =
      "NodeName=gpu01 CPUs=8 Boards=1 SocketsPerBoard=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=1000\n"
      "NodeName=gpu[02-08] NodeAddr=10.10.1.[2-8] Gres=gpu:h100:8 CPUs=224 Boards=1 SocketsPerBoard=2 CoresPerSocket=56 "
      "ThreadsPerCore=2 RealMemory=1959936\n";
  std::string gres;
  for (int i = 0; i < 8; ++i)
    gres += fmt::format("NodeName=gpu[02-08] Name=gpu Type=h100 File=/dev/nvidia{} Cores={}\n", i, i < 4 ? "0-55" : "56-111");
  const auto kept = deployed_slurm_hardware(node, conf, gres, "gpu01", "connection refused");
  ASSERT_TRUE(kept);
  const auto values = by_key(*kept);
  EXPECT_EQ(values.at("CPUs").first, 224);
  EXPECT_EQ(values.at("RealMemory").first, 1959936) << "as deployed: not derated again";
  EXPECT_EQ(values.at("RealMemory").second,
            "as the deployed slurm.conf has it (read on gpu01; gpu02 not read: connection refused)");
  ASSERT_EQ(kept->gpu_cores.size(), 8u);
  EXPECT_EQ(kept->gpu_cores[7], "56-111");
  node.labels["slurm.RealMemory"] = "1900000";
  EXPECT_EQ(by_key(*deployed_slurm_hardware(node, conf, gres, "gpu01", "x")).at("RealMemory").first, 1900000);
  // A node the files give no full line (new to slurm.conf, or a slurm.conf without hardware).
  EXPECT_FALSE(deployed_slurm_hardware(inventory.nodes[3], "NodeName=gpu03 Gres=gpu:h100:8\n", "", "gpu01", "x"));
  EXPECT_FALSE(deployed_slurm_hardware(inventory.nodes[3], "", "", "gpu01", "x"));
  // The files are a node's: a Cores= that is no core list never reaches a rendered file.
  auto hostile = gres;
  hostile.replace(hostile.find("Cores=0-55"), 10, "Cores=0-55{{x}}#Include");
  EXPECT_TRUE(deployed_slurm_hardware(inventory.nodes[2], conf, hostile, "gpu01", "x")->gpu_cores.empty());
}

}  // namespace
}  // namespace gpuctl
