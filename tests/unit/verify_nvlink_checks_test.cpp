// The nvlink_topology and nccl_allreduce checks (verify/checks.hpp): skipped when the
// inventory does not declare them, error when their facts could not be gathered, and a fail
// that names the pair, the link or the wrong sum.
#include <gpuctl/verify/checks.hpp>

#include "nvlink_test_state.hpp"
#include "program_builder.hpp"
#include "template_test_inventory.hpp"

#include <gtest/gtest.h>

namespace gpuctl {
namespace {

class NvlinkChecks : public ::testing::Test {
 protected:
  NvlinkChecks() : inventory(testing::example_inventory()), node(inventory.nodes[1]) {
    node.gpu.count = 8;
    std::vector<GpuInfo> gpus(8);
    for (int i = 0; i < 8; ++i) gpus[i].index = i;
    state.facts.gpus = Fact<std::vector<GpuInfo>>::of(gpus);
    testing::set_nvlink_facts(state.facts);
  }

  CheckResult run(const std::string& name) {
    const auto results = run_checks({name}, CheckInput{inventory, node, fixture.program, state, nccl_run ? &*nccl_run : nullptr});
    EXPECT_EQ(results.size(), 1u);
    return results.at(0);
  }

  void declare_nvlink(std::string connection = "NV18", std::optional<int> links = 18, std::optional<double> speed = 25) {
    node.gpu.nvlink = NvlinkSpec{std::move(connection), links, speed};
  }

  Inventory inventory;
  Node& node;
  NodeState state;
  std::optional<ObservedNcclRun> nccl_run;  // verify's all-reduce, handed to the checks beside the state
  testing::ProgramFixture fixture{std::vector<testing::StepSpec>{}};
};

TEST_F(NvlinkChecks, UndeclaredExpectationsAreSkippedWithTheReason) {
  auto r = run("nvlink_topology");
  EXPECT_EQ(r.status, CheckStatus::skipped);
  EXPECT_EQ(r.detail, "gpu.nvlink is not declared in the inventory");
  r = run("nccl_allreduce");
  EXPECT_EQ(r.status, CheckStatus::skipped);
  EXPECT_EQ(r.detail, "gpu.nccl_allreduce is not declared in the inventory");
  node.gpu.nccl_allreduce = NcclAllreduceSpec{};
  node.gpu.nccl_allreduce->enabled = false;
  EXPECT_EQ(run("nccl_allreduce").status, CheckStatus::skipped);
}

TEST_F(NvlinkChecks, AHealthyBoardPasses) {
  declare_nvlink();
  const auto r = run("nvlink_topology");
  EXPECT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_EQ(r.observed, "8 GPUs in topo -m: NV18 x28; 144 NVLinks up on 8 GPUs");
  EXPECT_EQ(r.expected, "NV18 between every GPU pair, 18 links up per GPU, each at least 25 GB/s");
}

TEST_F(NvlinkChecks, NamesTheDegradedPairAndTheInactiveLink) {
  declare_nvlink();
  testing::set_nvlink_facts(state.facts, "-fault");
  const auto r = run("nvlink_topology");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("GPU6-GPU7 NV17"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("GPU 6 link 17 inactive"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("GPU 6 has 17 links up"), std::string::npos) << r.detail;
  // Without links_per_gpu an inactive link still fails: "every link up".
  declare_nvlink("", std::nullopt, std::nullopt);
  EXPECT_EQ(run("nvlink_topology").status, CheckStatus::fail);
}

TEST_F(NvlinkChecks, SlowLinksAndWrongConnectionFail) {
  declare_nvlink("NV12", std::nullopt, 30.0);
  const auto r = run("nvlink_topology");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("GPU0-GPU1 NV18"), std::string::npos);
  EXPECT_NE(r.detail.find("GPU 0 link 0 at 26.562 GB/s"), std::string::npos);
}

TEST_F(NvlinkChecks, MissingFactsAreErrorsNotPasses) {
  declare_nvlink();
  state.facts.topology = Fact<TopologyMatrix>::absent("nvidia-smi topo -m: skipped: the GPU query failed");
  auto r = run("nvlink_topology");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.detail.find("skipped: the GPU query failed"), std::string::npos);
  testing::set_nvlink_facts(state.facts);
  state.facts.nvlink = Fact<std::vector<NvlinkGpu>>::absent("nvidia-smi nvlink -s: command not found");
  EXPECT_EQ(run("nvlink_topology").status, CheckStatus::error);
}

// The real single H200: topo -m lists one GPU, nvlink -s prints nothing.
TEST_F(NvlinkChecks, ASingleGpuWithoutNvlinkFailsWhenLinksAreDeclared) {
  node.gpu.count = 1;
  state.facts.gpus = Fact<std::vector<GpuInfo>>::of({GpuInfo{}});
  const auto h200 = testing::h200_probe("nvidia-smi topo -m");
  state.facts.topology = Fact<TopologyMatrix>::of(*facts::parse_topology_matrix(h200.output));
  state.facts.nvlink = Fact<std::vector<NvlinkGpu>>::of({});
  declare_nvlink("NV18", 18, std::nullopt);
  const auto r = run("nvlink_topology");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "1 GPUs in topo -m, no GPU pair; 0 NVLinks up on 0 GPUs");
  EXPECT_NE(r.detail.find("nvidia-smi nvlink -s lists no NVLink on any GPU"), std::string::npos);
  // A PCIe-only expectation with no NVLink declared passes.
  declare_nvlink("SYS", std::nullopt, std::nullopt);
  EXPECT_EQ(run("nvlink_topology").status, CheckStatus::pass);
}

TEST_F(NvlinkChecks, AllreducePassesWithACorrectSumAboveTheThreshold) {
  node.gpu.nccl_allreduce = NcclAllreduceSpec{};
  node.gpu.nccl_allreduce->min_busbw_gbs = 380;
  nccl_run = testing::program_run(8, 409.1, 0);
  const auto r = run("nccl_allreduce");
  EXPECT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_EQ(r.observed, "8 GPUs, 256 MiB, 0 wrong, busbw 409.1 GB/s (algbw 233.4) via gpuctl-nccl-allreduce");
  EXPECT_EQ(r.expected, "correct sum, busbw >= 380 GB/s");
}

TEST_F(NvlinkChecks, AllreduceFailsOnSlowBusOrWrongSum) {
  node.gpu.nccl_allreduce = NcclAllreduceSpec{};
  node.gpu.nccl_allreduce->min_busbw_gbs = 380;
  nccl_run = testing::program_run(8, 120.5, 0);
  auto r = run("nccl_allreduce");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("below the inventory's minimum"), std::string::npos);
  nccl_run = testing::program_run(8, 409.1, 12, 1);
  r = run("nccl_allreduce");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("12 elements of the sum are wrong"), std::string::npos);
}

TEST_F(NvlinkChecks, OneGpuPassesOnCorrectnessAndSaysBandwidthIsNotJudged) {
  node.gpu.nccl_allreduce = NcclAllreduceSpec{};
  nccl_run = testing::program_run(1, 0, 0);
  auto r = run("nccl_allreduce");
  EXPECT_EQ(r.status, CheckStatus::pass);
  EXPECT_EQ(r.detail, "bandwidth not judged: with 1 GPU busbw is 0 by definition");
  node.gpu.nccl_allreduce->min_busbw_gbs = 1;
  r = run("nccl_allreduce");
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("one GPU has no bus bandwidth"), std::string::npos);
}

TEST_F(NvlinkChecks, AllreduceThatCouldNotRunIsAnError) {
  node.gpu.nccl_allreduce = NcclAllreduceSpec{};
  auto r = run("nccl_allreduce");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.detail.find("did not run"), std::string::npos);
  nccl_run = ObservedNcclRun{};
  nccl_run->problem = "neither nccl-tests' all_reduce_perf nor a C compiler (cc) is on the node's PATH: install nccl-tests or gcc on the node";
  r = run("nccl_allreduce");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.detail.find("install nccl-tests or gcc"), std::string::npos);
  nccl_run = testing::program_run(8, 400, 0, 124);
  nccl_run->output = "NCCL WARN Cuda failure 'out of memory'\n";
  r = run("nccl_allreduce");
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.detail.find("exit status 124"), std::string::npos) << r.detail;
}

}  // namespace
}  // namespace gpuctl
