// Slurm drain around disruptive changes (apply/drain.hpp): the pure decisions as tables, and
// the scontrol/squeue commands against a FakeTransport, on real Slurm 22.05 captures.
#include "fake_transport.hpp"
#include <gpuctl_build_paths.hpp>

#include <gpuctl/apply/drain.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace gpuctl {
namespace {

std::string capture(const std::string& name) {
  std::ifstream in(std::string(GPUCTL_TEST_DATA_DIR) + "/slurm/" + name, std::ios::binary);
  if (!in) throw std::runtime_error("missing capture " + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The idle capture with another State= and Reason=.
std::string node_text(std::string_view state, std::string_view reason) {
  auto text = capture("scontrol-node-idle.txt");
  text.replace(text.find("State=IDLE"), 10, "State=" + std::string(state));
  if (!reason.empty()) text += "   Reason=" + std::string(reason) + " [root@2026-12-02T17:36:18]\n";
  return text;
}

facts::SlurmNodeInfo info(std::string_view state, std::string_view reason) {
  auto node = facts::parse_scontrol_node(node_text(state, reason));
  if (!node) throw std::runtime_error(node.error().to_string());
  return *node;
}

Change change(Action action, std::string step, std::string resource) {
  Change c;
  c.action = action;
  c.step = std::move(step);
  c.resource = std::move(resource);
  return c;
}

TEST(DrainDecision, DisruptiveChangeIsARebootOrADriverPackage) {
  struct Row {
    std::vector<Change> changes;
    const char* expected_step;  // nullptr: not disruptive
  };
  const std::vector<Row> rows{
      {{}, nullptr},
      {{change(Action::update, "base", "file:/etc/nccl.conf"), change(Action::create, "base", "package:htop")}, nullptr},
      {{change(Action::create, "slurm", "package:slurmd"), change(Action::restart, "slurm", "handler:restart")}, nullptr},
      {{change(Action::update, "base", "file:/etc/x"), change(Action::update, "driver", "package:nvidia-driver-550")},
       "driver"},
      {{change(Action::create, "fabric", "package:rdma-core"), change(Action::reboot, "fabric", "reboot")}, "fabric"},
      {{change(Action::create, "x", "package:nvidia-kernel-open-dkms")}, "x"},
      // Not the profile's driver packages: a library of the same family is no reason to drain.
      {{change(Action::create, "x", "package:nvidia-driver-libs")}, nullptr},
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    NodePlan plan;
    plan.changes = rows[i].changes;
    const auto* found = disruptive_change(plan, {"nvidia-driver-550", "nvidia-kernel-open-dkms"});
    if (!rows[i].expected_step) {
      EXPECT_EQ(found, nullptr) << "row " << i;
    } else {
      ASSERT_NE(found, nullptr) << "row " << i;
      EXPECT_EQ(found->step, rows[i].expected_step) << "row " << i;
    }
  }
}

TEST(DrainDecision, DecidesFromSlurmsViewOfTheNode) {
  struct Row {
    std::optional<facts::SlurmNodeInfo> node;
    DrainDecision expected;
  };
  const std::vector<Row> rows{
      {std::nullopt, DrainDecision::not_in_slurm},
      {info("IDLE", ""), DrainDecision::drain},
      {info("ALLOCATED", ""), DrainDecision::drain},
      {info("MIXED", ""), DrainDecision::drain},
      {info("DOWN", "Not responding"), DrainDecision::drain},
      {info("IDLE+DRAIN", "gpuctl run: driver"), DrainDecision::drain},
      {info("IDLE+DRAIN", "gpuctl: verify failed: driver_version"), DrainDecision::drain},
      {info("IDLE+DRAIN", "bad fan, ticket 42"), DrainDecision::drained_by_other},
      {info("ALLOCATED+DRAIN", "admin: rma"), DrainDecision::drained_by_other},
      {info("DOWN+DRAIN", "Gpuctl is not us"), DrainDecision::drained_by_other},
  };
  for (std::size_t i = 0; i < rows.size(); ++i)
    EXPECT_EQ(decide_drain(rows[i].node), rows[i].expected) << "row " << i << ": " << to_string(rows[i].expected);
}

TEST(DrainDecision, ResumesOnlyItsOwnDrainAfterAPassingVerify) {
  struct Row {
    DrainDecision decision;
    bool verify_passed;
    bool resume;
  };
  const std::vector<Row> rows{
      {DrainDecision::drain, true, true},
      {DrainDecision::drain, false, false},
      {DrainDecision::drained_by_other, true, false},
      {DrainDecision::drained_by_other, false, false},
      {DrainDecision::not_in_slurm, true, false},
  };
  for (const auto& row : rows)
    EXPECT_EQ(should_resume(row.decision, row.verify_passed), row.resume)
        << to_string(row.decision) << " verify_passed=" << row.verify_passed;
}

TEST(DrainDecision, ReasonsNameGpuctl) {
  EXPECT_EQ(drain_reason("driver"), "gpuctl run: driver");
  EXPECT_EQ(verify_failed_reason("driver_version"), "gpuctl: verify failed: driver_version");
  EXPECT_EQ(decide_drain(info("IDLE+DRAIN", drain_reason("driver"))), DrainDecision::drain);
}

TEST(WithoutOwnDrain, DropsGpuctlsDrainSoTheNodeJudgesAsResumed) {
  const auto text = without_own_drain(node_text("IDLE+DRAIN", "gpuctl run: driver"));
  const auto node = facts::parse_scontrol_node(text);
  ASSERT_TRUE(node) << node.error().to_string();
  EXPECT_EQ(node->states, std::vector<std::string>{"IDLE"});
  EXPECT_EQ(node->reason, "");
  EXPECT_EQ(node->gres, "gpu:h100:8");
  EXPECT_EQ(facts::slurm_node_problem(*node), std::nullopt);
}

TEST(WithoutOwnDrain, CountsSlurmsRebootMarkOnADrainedNodeAsOwn) {
  const auto node = facts::parse_scontrol_node(
      without_own_drain(node_text("DOWN+DRAIN", "Node unexpectedly rebooted boot_time=1764700000 last response=1")));
  ASSERT_TRUE(node);
  EXPECT_EQ(node->states, std::vector<std::string>{"IDLE"});
  EXPECT_EQ(facts::slurm_node_problem(*node), std::nullopt);
}

TEST(WithoutOwnDrain, KeepsOtherProblemsAndOthersDrains) {
  const auto down = facts::parse_scontrol_node(without_own_drain(node_text("DOWN+DRAIN", "gpuctl run: driver")));
  ASSERT_TRUE(down);
  EXPECT_EQ(down->states, std::vector<std::string>{"DOWN"});
  EXPECT_NE(facts::slurm_node_problem(*down), std::nullopt);

  const auto others = node_text("IDLE+DRAIN", "bad fan");
  const auto down_by_other = node_text("DOWN", "Node unexpectedly rebooted boot_time=1");  // not drained by us
  EXPECT_EQ(without_own_drain(down_by_other), down_by_other);
  EXPECT_EQ(without_own_drain(others), others);
  const auto idle = capture("scontrol-node-idle.txt");
  EXPECT_EQ(without_own_drain(idle), idle);
}

TEST(SlurmCommands, ShowNodeTellsAFreshNodeFromAKnownOne) {
  testing::FakeTransport known;
  known.on_command("scontrol show node", {0, capture("scontrol-node-drained.txt"), "", {}});
  auto node = slurm_show_node(known, "node01", true);
  ASSERT_TRUE(node) << node.error().to_string();
  ASSERT_TRUE(node->has_value());
  EXPECT_EQ((*node)->reason, "gpuctl test: maintenance");

  testing::FakeTransport not_found;
  not_found.on_command("scontrol show node", {1, "", capture("scontrol-node-not-found.txt"), {}});
  auto fresh = slurm_show_node(not_found, "node01", true);
  ASSERT_TRUE(fresh) << fresh.error().to_string();
  EXPECT_FALSE(fresh->has_value());

  testing::FakeTransport no_config;
  no_config.on_command("slurm.conf", {0, "gpuctl:no-slurm-conf\n", "", {}});
  auto unconfigured = slurm_show_node(no_config, "node01", true);
  ASSERT_TRUE(unconfigured);
  EXPECT_FALSE(unconfigured->has_value());

  testing::FakeTransport no_scontrol;  // unmatched: exit 127
  auto absent = slurm_show_node(no_scontrol, "node01", true);
  ASSERT_TRUE(absent);
  EXPECT_FALSE(absent->has_value());
}

TEST(SlurmCommands, ShowNodeRefusesToGuessWithoutAController) {
  testing::FakeTransport transport;
  transport.on_command("scontrol show node", {1, "", capture("scontrol-no-controller.txt"), {}});
  auto node = slurm_show_node(transport, "node01", true);
  ASSERT_FALSE(node);
  EXPECT_NE(node.error().message.find("not touching"), std::string::npos) << node.error().message;
}

TEST(SlurmCommands, DrainAndResumeQuoteTheReason) {
  testing::FakeTransport transport;
  transport.on_command("scontrol update", {0, "", "", {}});
  ASSERT_TRUE(slurm_drain(transport, "node01", "gpuctl run: driver", true));
  ASSERT_TRUE(slurm_resume(transport, "node01", true));
  ASSERT_EQ(transport.commands.size(), 2u);
  EXPECT_EQ(transport.commands[0], "scontrol update nodename=node01 state=drain reason='gpuctl run: driver'");
  EXPECT_EQ(transport.commands[1], "scontrol update nodename=node01 state=resume");

  testing::FakeTransport refusing;
  refusing.on_command("scontrol update", {1, "", "slurm_update error: Invalid node state specified\n", {}});
  auto failed = slurm_resume(refusing, "node01", true);
  ASSERT_FALSE(failed);
  EXPECT_NE(failed.error().message.find("Invalid node state"), std::string::npos);
}

TEST(SlurmCommands, WaitReturnsOnceNoJobRuns) {
  testing::FakeTransport transport;
  transport.on_command("squeue", {0, "", "", {}});
  ASSERT_TRUE(wait_for_no_jobs(transport, "node01", {std::chrono::seconds(5), std::chrono::milliseconds(1)}, true));
  EXPECT_EQ(transport.commands.size(), 1u);
}

TEST(SlurmCommands, WaitTimesOutNamingTheRunningJobs) {
  testing::FakeTransport transport;
  transport.on_command("squeue", {0, "17 alice train\n", "", {}});
  auto waited = wait_for_no_jobs(transport, "node01", {std::chrono::seconds(0), std::chrono::milliseconds(1)}, true);
  ASSERT_FALSE(waited);
  EXPECT_EQ(waited.error().code, ErrorCode::timeout);
  EXPECT_NE(waited.error().message.find("17 alice train"), std::string::npos) << waited.error().message;
  EXPECT_NE(waited.error().message.find("stays drained"), std::string::npos);
}

// remediate --stop-jobs: the node's jobs are cancelled first, then waited for as ever; a refused
// scancel is an error, never a silent wait.
TEST(SlurmCommands, StopJobsCancelsTheNodesJobsBeforeWaiting) {
  testing::FakeTransport transport;
  transport.on_command("scancel", {0, "", "", {}});
  transport.on_command("squeue", {0, "", "", {}});
  DrainWaitOptions options{std::chrono::seconds(5), std::chrono::milliseconds(1)};
  options.stop_jobs = true;
  ASSERT_TRUE(wait_for_no_jobs(transport, "node01", options, true));
  ASSERT_EQ(transport.commands.size(), 2u);
  EXPECT_EQ(transport.commands[0], "scancel -w node01");
  testing::FakeTransport refused;
  refused.on_command("scancel", {1, "", "scancel: error: Access/permission denied", {}});
  auto waited = wait_for_no_jobs(refused, "node01", options, true);
  ASSERT_FALSE(waited);
  EXPECT_NE(waited.error().message.find("permission denied"), std::string::npos) << waited.error().message;
}

}  // namespace
}  // namespace gpuctl
