#include <gpuctl/api/node_workflows.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace gpuctl {
namespace {

NodeWorkflowReport swapped_report() {
  NodeWorkflowReport report;
  report.node = "gpu05";
  report.compared_run = 7;
  report.compared_taken = "2026-01-02T03:04:05Z";
  report.changes.push_back(
      {3, "00000000:9A:00.0", facts::GpuChangeKind::replaced, "1650000000001", "1650000000002", "GPU-old", "GPU-new"});
  report.expected_gpus = 8;
  report.nvidia_smi_gpus = 8;
  report.ecc_reset_slots = {3};
  NodeVerifyOutcome verified;
  verified.outcome = {"gpu05", exec::NodeStatus::failed, "a check failed", {}};
  verified.checks.push_back({"ecc_errors", CheckStatus::fail, "GPU 3: 4 errors", "0 errors", ""});
  verified.checks.push_back({"gpu_count", CheckStatus::pass, "8", "8", ""});
  report.verify.push_back(verified);
  report.outcome = verified.outcome;
  return report;
}

TEST(NodeWorkflowReportJson, NamesTheSlotBothSerialsAndOnlyTheFailedChecks) {
  const auto doc = nlohmann::json::parse(workflow_report_to_json(swapped_report()));
  EXPECT_EQ(doc["node"], "gpu05");
  EXPECT_EQ(doc["status"], "failed");
  ASSERT_EQ(doc["changes"].size(), 1u);
  EXPECT_EQ(doc["changes"][0]["slot"], 3);
  EXPECT_EQ(doc["changes"][0]["kind"], "replaced");
  EXPECT_EQ(doc["changes"][0]["old_serial"], "1650000000001");
  EXPECT_EQ(doc["changes"][0]["new_serial"], "1650000000002");
  EXPECT_EQ(doc["changes"][0]["pci_bus_id"], "00000000:9A:00.0");
  EXPECT_TRUE(doc["gpus"]["pci"].is_null()) << "no lspci must not read as zero GPUs";
  EXPECT_EQ(doc["ecc_reset_slots"], nlohmann::json::array({3}));
  EXPECT_TRUE(doc["apply"].is_null());
  ASSERT_EQ(doc["verify"]["failed_checks"].size(), 1u);
  EXPECT_EQ(doc["verify"]["failed_checks"][0]["name"], "ecc_errors");
}

TEST(NodeWorkflowReportText, ShowsTheSwapAndTheFailingCheck) {
  const auto text = render_workflow_report(swapped_report());
  EXPECT_NE(text.find("slot 3 (00000000:9A:00.0) replaced: serial 1650000000001 -> 1650000000002"), std::string::npos)
      << text;
  EXPECT_NE(text.find("PCI bus (no lspci)"), std::string::npos) << text;
  EXPECT_NE(text.find("ECC counters of GPU 3 reset"), std::string::npos) << text;
  EXPECT_NE(text.find("ecc_errors fail"), std::string::npos) << text;
  EXPECT_EQ(text.find("gpu_count"), std::string::npos) << "passing checks are not listed\n" << text;
}

TEST(NodeWorkflowReportText, ReimageShowsTheReplacedHostKey) {
  NodeWorkflowReport report;
  report.node = "gpu05";
  report.host_key_state = "changed";
  report.host_key_replaced = true;
  report.host_key_fingerprint = "SHA256:abc";
  report.outcome = {"gpu05", exec::NodeStatus::changed, "", {}};
  const auto text = render_workflow_report(report);
  EXPECT_NE(text.find("gpu05: host key changed, replaced in known_hosts SHA256:abc"), std::string::npos) << text;
  EXPECT_NE(text.find("gpu05: changed"), std::string::npos) << text;
}

TEST(NodeWorkflowReportSlurm, NoSlurmBlockWithoutSlurm) {
  const auto doc = nlohmann::json::parse(workflow_report_to_json(swapped_report()));
  EXPECT_TRUE(doc["slurm"].is_null());
  EXPECT_EQ(render_workflow_report(swapped_report()).find("Slurm"), std::string::npos);
}

TEST(NodeWorkflowReportSlurm, DrainedAndResumed) {
  auto report = swapped_report();
  report.slurm_decision = DrainDecision::drain;
  report.slurm_drain_reason = "gpuctl run: replace-gpu";
  report.slurm_resumed = true;
  const auto doc = nlohmann::json::parse(workflow_report_to_json(report));
  EXPECT_EQ(doc["slurm"]["decision"], "drain");
  EXPECT_EQ(doc["slurm"]["drain_reason"], "gpuctl run: replace-gpu");
  EXPECT_EQ(doc["slurm"]["resumed"], true);
  const auto text = render_workflow_report(report);
  EXPECT_NE(text.find("Slurm: drained (reason \"gpuctl run: replace-gpu\")"), std::string::npos) << text;
  EXPECT_NE(text.find("Slurm: verified, resumed"), std::string::npos) << text;
}

TEST(NodeWorkflowReportSlurm, LeftDrainedSaysWhy) {
  auto report = swapped_report();
  report.slurm_decision = DrainDecision::drain;
  report.slurm_drain_reason = "gpuctl run: replace-gpu";
  report.slurm_left_drained = "gpuctl: verify failed: ecc_errors";
  const auto doc = nlohmann::json::parse(workflow_report_to_json(report));
  EXPECT_EQ(doc["slurm"]["resumed"], false);
  EXPECT_EQ(doc["slurm"]["left_drained"], "gpuctl: verify failed: ecc_errors");
  const auto text = render_workflow_report(report);
  EXPECT_NE(text.find("Slurm: left drained (reason \"gpuctl: verify failed: ecc_errors\")"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("resumed"), std::string::npos) << text;
}

TEST(NodeWorkflowReportSlurm, SomeoneElsesDrainIsLeft) {
  auto report = swapped_report();
  report.slurm_decision = DrainDecision::drained_by_other;
  report.slurm_drain_reason = "admin: bad fan";
  report.slurm_left_drained = "admin: bad fan";
  auto text = render_workflow_report(report);
  EXPECT_NE(text.find("already drained by someone else (reason: admin: bad fan); left drained"), std::string::npos)
      << text;
  report.slurm_resumed = true;
  report.slurm_left_drained.clear();
  text = render_workflow_report(report);
  EXPECT_NE(text.find("(reason: admin: bad fan); verified, resumed (--resume)"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpuctl
