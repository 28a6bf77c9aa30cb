// Parsers of `nvidia-smi topo -m` and `nvidia-smi nvlink -s` on the real 1-GPU H200 capture
// and on SYNTHESISED 8-GPU inputs (tests/data/nvidia-smi/synthetic-8gpu, labelled there).
#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/json.hpp>
#include <gpuctl/facts/parsers.hpp>

#include "probe_capture.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace gpuctl::facts {
namespace {

using testing::h200_probe;
using testing::read_test_data;

TEST(TopologyMatrix, ParsesTheRealSingleH200Capture) {
  const auto probe = h200_probe("nvidia-smi topo -m");
  ASSERT_EQ(probe.exit_code, 0);
  const auto matrix = parse_topology_matrix(probe.output);
  ASSERT_TRUE(matrix) << matrix.error().message;
  EXPECT_EQ(matrix->devices, std::vector<std::string>{"GPU0"});
  ASSERT_EQ(matrix->rows.size(), 1u);
  EXPECT_EQ(matrix->rows[0].device, "GPU0");
  EXPECT_EQ(matrix->rows[0].links, std::vector<std::string>{"X"});
  EXPECT_EQ(matrix->rows[0].cpu_affinity, "0-15");
  EXPECT_EQ(matrix->rows[0].numa_affinity, "0");
  EXPECT_EQ(matrix->rows[0].gpu_numa_id, "N/A");
  EXPECT_EQ(matrix->gpus(), std::vector<std::string>{"GPU0"});
  EXPECT_EQ(matrix->link("GPU0", "GPU0"), "X");
}

// The device machine's raw stdout of 2026-12-02 (the first parser took "GPU NUMA ID" for a device).
TEST(TopologyMatrix, ParsesTheRawDeviceCapture) {
  const auto matrix = parse_topology_matrix(read_test_data("nvidia-smi/h200-1gpu/device-2026-12-02/topo-m.txt"));
  ASSERT_TRUE(matrix) << matrix.error().message;
  EXPECT_EQ(matrix->devices, std::vector<std::string>{"GPU0"});
  EXPECT_EQ(matrix->rows.at(0).gpu_numa_id, "N/A");
  const auto nvlink = parse_nvlink_status(read_test_data("nvidia-smi/h200-1gpu/device-2026-12-02/nvlink-s.txt"));
  ASSERT_TRUE(nvlink);
  EXPECT_TRUE(nvlink->empty());
}

TEST(TopologyMatrix, ParsesASynthesisedEightGpuBoardWithNics) {
  const auto matrix = parse_topology_matrix(read_test_data("nvidia-smi/synthetic-8gpu/topo-m.txt"));
  ASSERT_TRUE(matrix) << matrix.error().message;
  ASSERT_EQ(matrix->devices.size(), 12u);
  EXPECT_EQ(matrix->gpus().size(), 8u);
  ASSERT_EQ(matrix->rows.size(), 12u);
  EXPECT_EQ(matrix->link("GPU0", "GPU7"), "NV18");
  EXPECT_EQ(matrix->link("GPU3", "GPU5"), "NV18");
  EXPECT_EQ(matrix->link("GPU0", "NIC0"), "PIX");
  EXPECT_EQ(matrix->link("GPU0", "NIC2"), "SYS");
  EXPECT_EQ(matrix->link("NIC3", "GPU6"), "PIX");
  EXPECT_EQ(matrix->link("GPU0", "GPU9"), "");
  EXPECT_EQ(matrix->rows[4].cpu_affinity, "56-111,168-223");
  EXPECT_EQ(matrix->rows[4].numa_affinity, "1");
  EXPECT_EQ(matrix->rows[8].device, "NIC0");
  EXPECT_EQ(matrix->rows[8].cpu_affinity, "");
  EXPECT_EQ(matrix->nic_names.at("NIC3"), "mlx5_3");
  const auto fault = parse_topology_matrix(read_test_data("nvidia-smi/synthetic-8gpu/topo-m-fault.txt"));
  ASSERT_TRUE(fault);
  EXPECT_EQ(fault->link("GPU6", "GPU7"), "NV17");
  EXPECT_EQ(fault->link("GPU7", "GPU6"), "NV17");
}

TEST(TopologyMatrix, RejectsWhatIsNotAMatrix) {
  for (const auto* text : {"", "GPU0\t X \n", "\tGPU0\tGPU1\nGPU0\t X \n",          // no header; short row
                           "\tGPU0\tGPU1\nGPU0\t X \tQPI\n",                           // not a legend entry
                           "\tGPU0\nGPU5\t X \n", "\tCPU Affinity\n"}) {              // unknown row; no device
    const auto matrix = parse_topology_matrix(text);
    EXPECT_FALSE(matrix) << "accepted: " << text;
  }
}

TEST(NvlinkStatus, TheRealSingleH200PrintsNothing) {
  const auto probe = h200_probe("nvidia-smi nvlink -s");
  ASSERT_EQ(probe.exit_code, 0);
  const auto gpus = parse_nvlink_status(probe.output);
  ASSERT_TRUE(gpus) << gpus.error().message;
  EXPECT_TRUE(gpus->empty());
}

TEST(NvlinkStatus, ParsesEighteenLinksPerGpuAndAnInactiveOne) {
  const auto gpus = parse_nvlink_status(read_test_data("nvidia-smi/synthetic-8gpu/nvlink-s-fault.txt"));
  ASSERT_TRUE(gpus) << gpus.error().message;
  ASSERT_EQ(gpus->size(), 8u);
  EXPECT_EQ((*gpus)[0].name, "NVIDIA H200");
  EXPECT_EQ((*gpus)[0].uuid, "GPU-3b8a4c4e-5d1f-2a6b-9c0e-7f1d2e3a4b50");
  ASSERT_EQ((*gpus)[6].links.size(), 18u);
  EXPECT_TRUE((*gpus)[6].links[16].active);
  EXPECT_DOUBLE_EQ(*(*gpus)[6].links[16].speed_gbs, 26.562);
  EXPECT_FALSE((*gpus)[6].links[17].active);
  EXPECT_EQ((*gpus)[6].links[17].link, 17);
  EXPECT_FALSE((*gpus)[6].links[17].speed_gbs);
}

TEST(NvlinkStatus, KeepsOtherLinesAsANoteAndRejectsBrokenLinks) {
  const auto noted = parse_nvlink_status("GPU 0: NVIDIA H200 (UUID: GPU-1)\n\t NVML: Unable to retrieve NVLink information as all links are inActive\n");
  ASSERT_TRUE(noted);
  ASSERT_EQ(noted->size(), 1u);
  EXPECT_TRUE((*noted)[0].links.empty());
  EXPECT_NE((*noted)[0].note.find("all links are inActive"), std::string::npos);
  EXPECT_FALSE(parse_nvlink_status("\t Link 0: 26.562 GB/s\n"));                          // before any GPU
  EXPECT_FALSE(parse_nvlink_status("GPU 0: X (UUID: GPU-1)\n\t Link 0: fast\n"));         // speed
  EXPECT_FALSE(parse_nvlink_status("GPU x: X (UUID: GPU-1)\n"));                           // index
}

// The probes land in facts: present when nvidia-smi answered, absent with its reason when not.
TEST(NvlinkFacts, ComeFromTheBatchOrAreAbsentWithTheReason) {
  std::map<std::string, ProbeOutput> probes;
  probes["topology"] = {0, read_test_data("nvidia-smi/synthetic-8gpu/topo-m.txt"), ""};
  probes["nvlink"] = {0, read_test_data("nvidia-smi/synthetic-8gpu/nvlink-s.txt"), ""};
  auto facts = facts_from_probes("gpu01", probes);
  ASSERT_TRUE(facts.topology.present()) << facts.topology.absent_reason;
  ASSERT_TRUE(facts.nvlink.present()) << facts.nvlink.absent_reason;
  EXPECT_EQ(facts.nvlink.value->size(), 8u);
  const auto json = facts_to_json(facts);
  EXPECT_NE(json.find("\"NV18\""), std::string::npos);
  EXPECT_NE(json.find("\"speed_gbs\": 26.562"), std::string::npos);

  probes["topology"] = {125, "", "skipped: the GPU query failed\n"};
  probes["nvlink"] = {127, "", "nvidia-smi: command not found\n"};
  facts = facts_from_probes("gpu01", probes);
  EXPECT_FALSE(facts.topology.present());
  EXPECT_EQ(facts.topology.absent_reason, "nvidia-smi topo -m: skipped: the GPU query failed");
  EXPECT_EQ(facts.nvlink.absent_reason, "nvidia-smi nvlink -s: nvidia-smi: command not found");
  EXPECT_NE(facts_to_json(facts).find("\"absent\": \"nvidia-smi topo -m: skipped"), std::string::npos);

  probes["topology"] = {0, "garbage\n", ""};
  facts = facts_from_probes("gpu01", probes);
  EXPECT_NE(facts.topology.absent_reason.find("unexpected output"), std::string::npos);
}

TEST(NvlinkFacts, TheBatchScriptRunsBothCommandsAfterTheGpuQuery) {
  const auto script = build_probe_script("n");
  const auto gpus = script.find("probe gpus p_gpus");
  EXPECT_NE(gpus, std::string::npos);
  EXPECT_GT(script.find("nvidia-smi topo -m"), gpus);
  EXPECT_GT(script.find("nvidia-smi nvlink -s"), gpus);
  const auto names = probe_names();
  EXPECT_NE(std::ranges::find(names, "topology"), names.end());
  EXPECT_NE(std::ranges::find(names, "nvlink"), names.end());
}

TEST(NvlinkFacts, TextSummaryCountsPairsAndLinks) {
  NodeFacts facts;
  facts.node = "gpu01";
  facts.gpus = Fact<std::vector<GpuInfo>>::of({});
  facts.topology = Fact<TopologyMatrix>::of(*parse_topology_matrix(read_test_data("nvidia-smi/synthetic-8gpu/topo-m-fault.txt")));
  facts.nvlink = Fact<std::vector<NvlinkGpu>>::of(*parse_nvlink_status(read_test_data("nvidia-smi/synthetic-8gpu/nvlink-s-fault.txt")));
  const auto text = render_facts_text(facts);
  EXPECT_NE(text.find("topology: 8 GPUs, GPU pairs: NV17 x1, NV18 x27"), std::string::npos) << text;
  EXPECT_NE(text.find("NVLink GPU 6: 17 of 18 links active (17 x 26.562 GB/s)"), std::string::npos) << text;
  facts.nvlink = Fact<std::vector<NvlinkGpu>>::of({});
  EXPECT_NE(render_facts_text(facts).find("NVLink: no GPU lists a link"), std::string::npos);
}

}  // namespace
}  // namespace gpuctl::facts
