// The run reads every Slurm node's hardware before rendering (Session::gather_slurm_hardware):
// over fake nodes answering the probe with the Debian 12 build host's capture
// (tests/data/hardware/node-hardware-debian12-slurmd.txt), a node outside --limit included, an
// unreachable one making the file that lists the nodes fail for every node, pins standing in.
#include <gpuctl/api/plan_use_case.hpp>
#include <gpuctl/plan/render.hpp>
#include <gpuctl/util/strings.hpp>

#include "fake_node.hpp"
#include "probe_capture.hpp"
#include "temp_dir.hpp"

#include <gtest/gtest.h>

namespace gpuctl {
namespace {

class SlurmHardwareRun : public ::testing::Test {
 protected:
  void write(const std::string& gpu02_labels = "") {
    m_inventory = m_dir.write("cluster.yaml", "cluster:\n  name: lab\n  slurm:\n    controller: gpu01\n"
                                              "defaults:\n  gpu: {model: H100, count: 8}\n"
                                              "hosts:\n  gpu01:\n  gpu02: {" + gpu02_labels + "}\n");
    std::filesystem::create_directories(m_dir / "templates");
    m_dir.write("templates/nodes.conf.mustache",
                "{{#slurm.node_groups}}NodeName={{nodes}}{{#hardware}} {{key}}={{value}}{{/hardware}}\n{{/slurm.node_groups}}");
    m_playbook = m_dir.write("slurm.yaml", "name: slurm\nsteps:\n  - name: conf\n    resources:\n"
                                           "      - file: /etc/nodes.conf\n        template: nodes.conf.mustache\n");
  }
  testing::FakeNode& answering(const std::string& name) {
    auto& node = m_cluster.add(name);
    node.on_command("gpuctl_node_hardware", {0, testing::read_test_data("hardware/node-hardware-debian12-slurmd.txt"), "", {}});
    return node;
  }
  PlanResult plan(std::string limit = {}) {
    RunTarget target;
    target.inventory = m_inventory;
    target.limit = std::move(limit);
    target.playbooks = {m_playbook};
    target.templates_dir = m_dir / "templates";
    target.command = "test";
    RunEnvironment env;
    env.transport_factory = m_cluster.factory();
    env.secrets_dir = m_dir / "secrets";
    env.state_path = m_dir / "state.db";
    return run_plan({target}, env);
  }
  // What the plan would write to /etc/nodes.conf on `node`.
  static std::string rendered(const Plan& plan, const std::string& node) {
    for (const auto& node_plan : plan.nodes)
      if (node_plan.node == node)
        for (const auto& change : node_plan.changes)
          if (change.summary.find("/etc/nodes.conf") != std::string::npos) return change.diff;
    return {};
  }

  testing::TempDir m_dir;
  testing::FakeCluster m_cluster;
  std::string m_inventory;
  std::string m_playbook;
};

TEST_F(SlurmHardwareRun, EveryNodesValuesReachTheFileAndThePlanOnceEach) {
  write();
  auto& gpu01 = answering("gpu01");
  auto& gpu02 = answering("gpu02");
  // gpu02 is outside --limit: slurm.conf lists it, so its hardware is read all the same.
  const auto result = plan("gpu01");
  ASSERT_EQ(result.verdict, Verdict::changes_pending) << result.error;
  ASSERT_EQ(result.plan.nodes.size(), 1u);
  EXPECT_NE(rendered(result.plan, "gpu01").find("+NodeName=gpu[01-02] CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 "
                                                "ThreadsPerCore=1 RealMemory=22528"),
            std::string::npos)
      << rendered(result.plan, "gpu01");
  ASSERT_EQ(result.plan.slurm_hardware.size(), 2u);
  EXPECT_EQ(result.plan.slurm_hardware.at("gpu02").values.front().source, "slurmd -C");
  const auto probes = [](const testing::FakeNode& node) {
    return std::ranges::count_if(node.commands, [](const std::string& c) { return c == "sh -s"; });
  };
  EXPECT_EQ(probes(gpu01), 1) << "read once per run";
  EXPECT_EQ(probes(gpu02), 1);
  // The saved plan carries the values and their sources.
  const auto reread = plan_from_json(plan_to_json(result.plan), "plan.json");
  ASSERT_TRUE(reread) << reread.error().message;
  EXPECT_EQ(reread->slurm_hardware, result.plan.slurm_hardware);
}

TEST_F(SlurmHardwareRun, AnUnreachableNodeFailsTheFileForEveryNodeNamingItAndTheFix) {
  write();
  answering("gpu01");  // gpu02 refuses connections
  const auto result = plan("gpu01");
  ASSERT_EQ(result.plan.nodes.size(), 1u);
  EXPECT_EQ(result.plan.nodes[0].status, NodePlanStatus::failed);
  EXPECT_NE(result.plan.nodes[0].error.find("cannot render slurm.node_groups: the hardware of Slurm node gpu02 is not known "
                                            "(gpu02: connection refused)"),
            std::string::npos)
      << result.plan.nodes[0].error;
  EXPECT_NE(result.plan.nodes[0].error.find("make gpu02 reachable, or pin its values"), std::string::npos);
}

// A node down for repair keeps the values the deployed slurm.conf gives it (read on a node that
// answers): slurm.conf stays as it is, on every node, instead of failing for all of them.
TEST_F(SlurmHardwareRun, ANodeThatCannotBeReadKeepsWhatTheDeployedSlurmConfGivesIt) {
  write();
  auto& gpu01 = answering("gpu01");
  gpu01.files["/etc/slurm/slurm.conf"] =
      "# managed by gpuctl\nNodeName=gpu[01-02] CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 "
      "RealMemory=22528 Port=6818\n";
  const auto result = plan("gpu01");
  ASSERT_EQ(result.verdict, Verdict::changes_pending) << result.error;
  EXPECT_NE(rendered(result.plan, "gpu01").find("+NodeName=gpu[01-02] CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 "
                                                "ThreadsPerCore=1 RealMemory=22528"),
            std::string::npos)
      << rendered(result.plan, "gpu01");
  const auto& kept = result.plan.slurm_hardware.at("gpu02");
  EXPECT_EQ(kept.values.back().source,
            "as the deployed slurm.conf has it (read on gpu01; gpu02 not read: gpu02: connection refused)");
}

TEST_F(SlurmHardwareRun, PinsStandInForANodeThatCannotBeRead) {
  write("labels: {slurm.CPUs: \"4\", slurm.Boards: \"1\", slurm.SocketsPerBoard: \"1\", slurm.CoresPerSocket: \"4\", "
        "slurm.ThreadsPerCore: \"1\", slurm.RealMemory: \"8192\"}");
  answering("gpu01");
  const auto result = plan("gpu01");
  ASSERT_EQ(result.verdict, Verdict::changes_pending) << result.error;
  const auto text = rendered(result.plan, "gpu01");
  EXPECT_NE(text.find("+NodeName=gpu01 CPUs=2 "), std::string::npos) << text;
  EXPECT_NE(text.find("+NodeName=gpu02 CPUs=4 Boards=1 SocketsPerBoard=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=8192"),
            std::string::npos)
      << text;
  EXPECT_EQ(result.plan.slurm_hardware.at("gpu02").gpu_cores_source, "none: gpu02: connection refused");
}

}  // namespace
}  // namespace gpuctl
