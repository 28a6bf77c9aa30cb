// verify's slurm_node_hardware and its fact, slurmd_hardware (facts/slurmd_hardware.hpp), on real
// Slurm 22.05.8 output (tests/data/slurm/): `slurmd -C` of the 2-core build host and the
// sandbox's `scontrol show node` captures.
#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/json.hpp>
#include <gpuctl/facts/slurmd_hardware.hpp>
#include <gpuctl/verify/catalog.hpp>
#include <gpuctl/verify/checks.hpp>

#include "check_fixture.hpp"
#include "probe_capture.hpp"

#include <gtest/gtest.h>

namespace gpuctl {
namespace {

std::string slurm_data(const std::string& name) { return testing::read_test_data("slurm/" + name); }

// The idle capture with the hardware values slurm.conf would declare, node01 renamed.
std::string scontrol_with(const std::string& node, std::string_view cpus, std::string_view memory,
                          std::string_view capture = "scontrol-node-idle.txt") {
  auto text = slurm_data(std::string(capture));
  for (auto at = text.find("node01"); at != std::string::npos; at = text.find("node01", at)) text.replace(at, 6, node);
  text.replace(text.find("CPUTot=1"), 8, "CPUTot=" + std::string(cpus));
  text.replace(text.find("RealMemory=1 "), 13, "RealMemory=" + std::string(memory) + " ");
  return text;
}

TEST(SlurmdHardware, ParsesSlurmdDashCAsSlurm22PrintsIt) {
  const auto hardware = facts::parse_slurmd_hardware(slurm_data("slurmd-C-debian12.txt"));
  ASSERT_TRUE(hardware) << hardware.error().message;
  EXPECT_EQ(hardware->cpus, 2);
  EXPECT_EQ(hardware->boards, 1);
  EXPECT_EQ(hardware->sockets_per_board, 1);
  EXPECT_EQ(hardware->cores_per_socket, 2);
  EXPECT_EQ(hardware->threads_per_core, 1);
  EXPECT_EQ(hardware->real_memory_mib, 24105);
  EXPECT_FALSE(facts::parse_slurmd_hardware("NodeName=n CPUs=2 Boards=1\n"));
  const auto bad = facts::parse_slurmd_hardware("NodeName=n CPUs=two Boards=1 SocketsPerBoard=1 CoresPerSocket=2 "
                                                "ThreadsPerCore=1 RealMemory=1\n");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message, "slurmd -C printed CPUs=two, not a number");
}

TEST(SlurmdHardware, ReadsTheSameValuesFromScontrol) {
  const auto hardware = facts::parse_scontrol_hardware(slurm_data("scontrol-node-idle.txt"));
  ASSERT_TRUE(hardware) << hardware.error().message;
  EXPECT_EQ(hardware->cpus, 1);
  EXPECT_EQ(hardware->real_memory_mib, 1);
  EXPECT_EQ(hardware->sockets_per_board, 1);
  EXPECT_FALSE(facts::parse_scontrol_hardware(slurm_data("scontrol-node-not-found.txt")));
}

TEST(SlurmdHardware, IsAnOptionalProbeOfTheBatchWithItsViews) {
  EXPECT_EQ(facts::probe_command("slurmd_hardware"), "slurmd -C");
  facts::CollectOptions plan;
  plan.optional_probes.emplace();
  EXPECT_EQ(facts::build_probe_script("n", plan).find("slurmd -C"), std::string::npos) << "plan never runs it";
  EXPECT_NE(facts::build_probe_script("n").find("$T slurmd -C"), std::string::npos);
  const auto facts = facts::facts_from_probes("n", {{"slurmd_hardware", {0, slurm_data("slurmd-C-debian12.txt"), ""}}});
  EXPECT_TRUE(facts.declared.get(facts::k_slurmd_hardware).present());
  EXPECT_NE(facts::render_facts_text(facts).find("slurmd -C: CPUs=2 Boards=1"), std::string::npos);
  EXPECT_NE(facts::facts_to_json(facts).find("\"real_memory_mib\": 24105"), std::string::npos);
  const auto missing = facts::facts_from_probes("n", {{"slurmd_hardware", {127, "", "slurmd: command not found"}}});
  EXPECT_EQ(missing.declared.get(facts::k_slurmd_hardware).absent_reason, "slurmd -C: slurmd: command not found");
}

class SlurmNodeHardware : public testing::SingleCheckTest {
 protected:
  void with(std::string scontrol, int rc = 0) {
    state.slurm_node = ObservedSlurmNode{true, rc, std::move(scontrol)};
    state.facts = facts::facts_from_probes(node.name, {{"slurmd_hardware", {0, slurm_data("slurmd-C-debian12.txt"), ""}}});
  }
  CheckResult check() { return run("slurm_node_hardware"); }
};

// The capture's CoresPerSocket=1 is Slurm's default; gpuctl writes slurmd -C's 2.
std::string with_cores(std::string text, std::string_view cores) {
  text.replace(text.find("CoresPerSocket=1"), 16, "CoresPerSocket=" + std::string(cores));
  return text;
}

TEST_F(SlurmNodeHardware, PassesWhereSlurmctldHasTheNodesCpusAndNoMoreMemoryAndSaysWhatItLeavesUnused) {
  with(with_cores(scontrol_with(node.name, "2", "22528"), "2"));
  const auto r = check();
  EXPECT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_EQ(r.observed, "slurmctld: CPUs=2 RealMemory=22528; slurmd -C: CPUs=2 RealMemory=24105");
  EXPECT_EQ(r.detail, "slurmctld schedules only RealMemory=22528 of 24105");
}

TEST_F(SlurmNodeHardware, FailsWhereSlurmctldHasFewerCoresThanTheNodeUnlessALabelPinsThem) {
  with(scontrol_with(node.name, "2", "22528"));
  const auto stale = check();
  ASSERT_EQ(stale.status, CheckStatus::fail) << stale.detail;
  EXPECT_NE(stale.detail.find("slurmctld has less than the node has and no label pins it: CoresPerSocket=1 (the node has 2)"),
            std::string::npos)
      << stale.detail;
  node.labels["slurm.CoresPerSocket"] = "1";
  const auto pinned = check();
  EXPECT_EQ(pinned.status, CheckStatus::pass) << pinned.detail;
  EXPECT_EQ(pinned.detail, "slurmctld schedules only CoresPerSocket=1 of 2, RealMemory=22528 of 24105");
}

TEST_F(SlurmNodeHardware, FailsWithBothValuesWhereSlurmConfDeclaresMoreMemoryOrCpus) {
  with(scontrol_with(node.name, "64", "2063597"));
  const auto r = check();
  ASSERT_EQ(r.status, CheckStatus::fail);
  EXPECT_EQ(r.observed, "slurmctld: CPUs=64 RealMemory=2063597; slurmd -C: CPUs=2 RealMemory=24105");
  EXPECT_NE(r.detail.find("CPUs=64 (the node has 2), RealMemory=2063597 (the node has 24105)"), std::string::npos) << r.detail;
  EXPECT_EQ(r.command, "scontrol show node " + node.name + "; slurmd -C");
  EXPECT_NE(r.output.find("CPUTot=64"), std::string::npos);
  EXPECT_NE(r.output.find("RealMemory=24105"), std::string::npos) << "both sides cited";
}

// slurmctld's own words when it drains a node that registered less (node_mgr.c, Slurm 22.05).
TEST_F(SlurmNodeHardware, FailsWhereSlurmAlreadyDrainedTheNodeForLowMemory) {
  auto text = with_cores(scontrol_with(node.name, "2", "24000", "scontrol-node-drained.txt"), "2");
  const auto reason = text.find("Reason=");
  ASSERT_NE(reason, std::string::npos);
  text.replace(reason, text.find('\n', reason) - reason,
               "Reason=Low RealMemory (reported:24000 < 100.00% of configured:30000) [slurm@2026-12-07T06:00:00]");
  with(text);
  const auto r = check();
  ASSERT_EQ(r.status, CheckStatus::fail);
  EXPECT_NE(r.detail.find("Slurm drained the node: Low RealMemory (reported:24000"), std::string::npos) << r.detail;
}

TEST_F(SlurmNodeHardware, NoSlurmdOrNoControllerIsAnErrorNeverAPass) {
  with(slurm_data("scontrol-no-controller.txt"), 1);
  EXPECT_EQ(check().status, CheckStatus::error);
  with(scontrol_with("node77", "2", "22000"));
  const auto other = check();
  EXPECT_EQ(other.status, CheckStatus::error) << "another node's values prove nothing about this one";
  EXPECT_NE(other.detail.find("scontrol answered for node node77"), std::string::npos) << other.detail;
  state.slurm_node = ObservedSlurmNode{true, 0, scontrol_with(node.name, "2", "22000")};
  state.facts = facts::facts_from_probes(node.name, {{"slurmd_hardware", {127, "", "slurmd: command not found"}}});
  const auto r = check();
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.detail.find("slurmd: command not found"), std::string::npos) << r.detail;
}

TEST(SlurmNodeHardwareCatalog, ReadsSlurmdsFactAndSlurmsViewOfTheNode) {
  const auto needs = check_needs({"slurm_node_hardware"});
  EXPECT_TRUE(needs.probes.contains("slurmd_hardware"));
  EXPECT_TRUE(needs.needs(NodeRunner::slurm_node_view));
}

}  // namespace
}  // namespace gpuctl
