// From a failed verify to one remedy (verify/remediation.hpp), on real kernel-log captures
// (tests/data/kernel-log/) and NodeFacts shaped as nvidia-smi reports them.
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/verify/remediation.hpp>

#include "probe_capture.hpp"

#include <gtest/gtest.h>

namespace gpuctl {
namespace {

using health::Remedy;
using testing::read_test_data;

CheckResult failing(std::string name, std::string detail = "it failed") {
  return {.name = std::move(name), .status = CheckStatus::fail, .detail = std::move(detail)};
}

NodeFacts facts_with_log(std::string_view log) {
  NodeFacts facts;
  auto events = facts::parse_kernel_xids(log);
  EXPECT_TRUE(events) << events.error().message;
  facts.xid_events = Fact<std::vector<XidEvent>>::of(events ? *events : std::vector<XidEvent>{});
  return facts;
}

RemediationPlan plan(const NodeFacts& facts, std::vector<CheckResult> checks, bool nvswitch = false) {
  return plan_remediation(checks, facts, nvswitch, health::health_policy());
}

TEST(RemediationPlan, AFallenOffTheBusGpuIsRebootedNotReset) {
  // Real capture: two Xid 79s, a 63 (nothing to do) and an older-form Xid 14 (unknown to the policy).
  const auto facts = facts_with_log(read_test_data("kernel-log/dmesg-xids.txt"));
  const auto p = plan(facts, {failing("xid_events")});
  EXPECT_EQ(p.remedy, Remedy::investigate) << "Xid 14 is in no bucket gpuctl knows: a person looks";
  const auto only_79 = facts_with_log("[ 1843.308145] NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus.\n@@dmesg-rc 0\n");
  const auto q = plan(only_79, {failing("xid_events")});
  EXPECT_EQ(q.remedy, Remedy::reboot);
  EXPECT_TRUE(q.reset_gpus.empty());
  EXPECT_TRUE(q.needs_action());
}

TEST(RemediationPlan, ResetClassXidsResetTheirGpusOnlyAndTheWorstWins) {
  const auto facts = facts_with_log(
      "[ 10.0] NVRM: Xid (PCI:0000:b3:00): 109, pid=1, name=python, Ch 00000008\n"
      "[ 11.0] NVRM: Xid (PCI:0000:1a:00): 119, pid=1, name=python, Ch 00000008\n"
      "[ 12.0] NVRM: Xid (PCI:0000:1a:00): 13, pid=1, name=python, Graphics Exception\n@@dmesg-rc 0\n");
  const auto p = plan(facts, {failing("xid_events")});
  EXPECT_EQ(p.remedy, Remedy::reset_gpu);
  EXPECT_EQ(p.reset_gpus, (std::vector<std::string>{"0000:1a:00.0", "0000:b3:00.0"}));
  EXPECT_FALSE(p.whole_board);
  // On an NVSwitch board every GPU and switch is reset together.
  const auto board = plan(facts, {failing("xid_events")}, /*nvswitch=*/true);
  EXPECT_TRUE(board.whole_board);
  EXPECT_TRUE(board.reset_gpus.empty());
  // With a reboot-class fault on the same node, the reboot covers the reset.
  auto worse = facts;
  XidEvent fallen;
  fallen.pci = "0000:44:00";
  fallen.code = 79;
  fallen.uptime_s = 13.0;
  worse.xid_events.value->push_back(fallen);
  EXPECT_EQ(plan(worse, {failing("xid_events")}).remedy, Remedy::reboot);
}

TEST(RemediationPlan, XidsGpuctlAlreadyResetAreNotRemediedAgain) {
  // The reset record says gpuctl reset 0000:b3:00 at 50 s: the Xid at 10 s was dealt with, the
  // one at 60 s was not; a reset of the board ("all") covers every GPU.
  const auto once = facts_with_log("@@gpu-reset 50.0 0000:b3:00\n[ 10.000000] NVRM: Xid (PCI:0000:b3:00): 109, pid=1, name=p, Ch 1\n@@dmesg-rc 0\n");
  ASSERT_TRUE(once.xid_events.value->at(0).cleared_by_reset_at);
  EXPECT_EQ(plan(once, {failing("xid_events")}).remedy, Remedy::none);
  const auto again = facts_with_log("@@gpu-reset 50.0 0000:b3:00\n[ 60.000000] NVRM: Xid (PCI:0000:b3:00): 109, pid=1, name=p, Ch 1\n@@dmesg-rc 0\n");
  EXPECT_EQ(plan(again, {failing("xid_events")}).remedy, Remedy::reset_gpu);
  const auto board = facts_with_log(read_test_data("kernel-log/dmesg-sxid-fatal.txt") + "@@gpu-reset 99999999.0 all\n");
  for (const auto& event : *board.xid_events.value) EXPECT_TRUE(event.cleared_by_reset_at) << event.code;
  // Journal lines have no timestamp: their order with the reset is unknown, so they stand.
  const auto journal = facts_with_log("@@gpu-reset 50.0 all\nMay 18 19:02:39 gpu01 kernel: NVRM: Xid (PCI:0000:b3:00): 109, x\n@@dmesg-rc 0\n");
  EXPECT_FALSE(journal.xid_events.value->at(0).cleared_by_reset_at);
}

TEST(RemediationPlan, AFatalSxidResetsTheBoardANonFatalOneNothing) {
  const auto fatal = facts_with_log(read_test_data("kernel-log/dmesg-sxid-fatal.txt"));
  const auto p = plan(fatal, {failing("xid_events")}, true);
  EXPECT_EQ(p.remedy, Remedy::reboot) << "the capture also has an Xid 79";
  const auto sxid_only = facts_with_log(
      "[6781753.400584] nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 LTSSM Fault Up\n@@dmesg-rc 0\n");
  const auto q = plan(sxid_only, {failing("xid_events")}, true);
  EXPECT_EQ(q.remedy, Remedy::reset_gpu);
  EXPECT_TRUE(q.whole_board);
  const auto nonfatal = facts_with_log(read_test_data("kernel-log/dmesg-sxid-nonfatal.txt"));
  EXPECT_FALSE(plan(nonfatal, {failing("xid_events")}, true).needs_action());
}

TEST(RemediationPlan, GpuConditionsMapThroughThePolicysChecks) {
  NodeFacts facts;
  GpuInfo pending;
  pending.pci_bus_id = "00000000:B3:00.0";
  pending.remapped_rows_pending = true;
  GpuInfo failed_remap;
  failed_remap.pci_bus_id = "00000000:1A:00.0";
  failed_remap.remapped_rows_failure = true;
  facts.gpus = Fact<std::vector<GpuInfo>>::of({pending});
  auto p = plan(facts, {failing("row_remap")});
  EXPECT_EQ(p.remedy, Remedy::reset_gpu);
  EXPECT_EQ(p.reset_gpus, std::vector<std::string>{"0000:b3:00.0"});
  facts.gpus = Fact<std::vector<GpuInfo>>::of({pending, failed_remap});
  EXPECT_EQ(plan(facts, {failing("row_remap")}).remedy, Remedy::contact_support) << "past the RMA threshold";
  // A GPU missing from nvidia-smi needs a reboot; nvidia-smi failing outright too.
  EXPECT_EQ(plan(facts, {failing("gpu_count")}).remedy, Remedy::reboot);
  EXPECT_EQ(plan(NodeFacts{}, {failing("gpu_count")}).remedy, Remedy::reboot);
  // A failed DCGM diagnostic names a fault gpuctl cannot fix by itself.
  EXPECT_EQ(plan(facts, {failing("dcgm_diag")}).remedy, Remedy::investigate);
}

TEST(RemediationPlan, ConfigurationFailuresAreApplysNotRemediates) {
  const auto facts = facts_with_log("[ 10.0] NVRM: Xid (PCI:0000:b3:00): 109, pid=1, name=p, Ch 1\n@@dmesg-rc 0\n");
  const auto p = plan(facts, {failing("xid_events"), failing("driver_version", "535 loaded, 550 declared"),
                              {.name = "nccl_conf", .status = CheckStatus::pass}});
  EXPECT_EQ(p.outside, std::vector<std::string>{"driver_version (535 loaded, 550 declared)"});
  EXPECT_EQ(p.remedy, Remedy::reset_gpu);
  // Slurm's view (not responding just after a reboot) is the drain sequence's, not a blocker.
  const auto slurm = plan(facts, {failing("xid_events"), failing("slurmd_registered", "State=IDLE+NOT_RESPONDING")});
  EXPECT_TRUE(slurm.outside.empty());
  EXPECT_EQ(slurm.remedy, Remedy::reset_gpu);
  // A health check that could not read its data is not a pass, and not a guess either.
  const auto unreadable = plan(NodeFacts{}, {{.name = "xid_events", .status = CheckStatus::error, .detail = "dmesg exited 1"}});
  EXPECT_EQ(unreadable.remedy, Remedy::investigate);
  ASSERT_EQ(describe(unreadable).size(), 1u);
  EXPECT_NE(describe(unreadable)[0].find("dmesg exited 1"), std::string::npos);
}

}  // namespace
}  // namespace gpuctl
