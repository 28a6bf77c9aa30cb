// `scontrol show node` parsing (facts/slurm.hpp) on real Slurm 22.05 captures from the
// sandbox (tests/data/slurm/), plus the state rules slurmd_registered builds on.
#include <gpuctl/facts/slurm.hpp>
#include <gpuctl_build_paths.hpp>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace gpuctl::facts {
namespace {

std::string capture(const std::string& name) {
  std::ifstream in(std::string(GPUCTL_TEST_DATA_DIR) + "/slurm/" + name, std::ios::binary);
  if (!in) throw std::runtime_error("missing capture " + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

SlurmNodeInfo parsed(const std::string& text) {
  auto node = parse_scontrol_node(text);
  if (!node) throw std::runtime_error(node.error().to_string());
  return *node;
}

SlurmNodeInfo with_state(std::string_view state) {
  auto text = capture("scontrol-node-idle.txt");
  text.replace(text.find("State=IDLE"), 10, "State=" + std::string(state));
  return parsed(text);
}

TEST(SlurmNodeParse, ReadsARegisteredIdleNode) {
  const auto node = parsed(capture("scontrol-node-idle.txt"));
  EXPECT_EQ(node.name, "node01");
  EXPECT_EQ(node.states, std::vector<std::string>{"IDLE"});
  EXPECT_EQ(node.gres, "gpu:h100:8");
  EXPECT_EQ(node.address, "127.0.120.1");  // after the OS= line, whose value holds spaces
  EXPECT_EQ(node.reason, "");
  EXPECT_EQ(slurm_node_problem(node), std::nullopt);
}

TEST(SlurmNodeParse, DrainedNodeIsAProblemNamingItsReason) {
  const auto node = parsed(capture("scontrol-node-drained.txt"));
  EXPECT_EQ(node.states, (std::vector<std::string>{"IDLE", "DRAIN"}));
  EXPECT_EQ(node.reason, "gpuctl test: maintenance");  // Slurm's [user@time] stamp dropped
  const auto problem = slurm_node_problem(node);
  ASSERT_TRUE(problem);
  EXPECT_EQ(*problem, "drained (State=IDLE+DRAIN): gpuctl test: maintenance");
}

TEST(SlurmNodeParse, DownNodeIsAProblemNamingItsReason) {
  const auto node = parsed(capture("scontrol-node-down.txt"));
  EXPECT_EQ(node.states, std::vector<std::string>{"DOWN"});
  EXPECT_EQ(node.reason, "gpu fell off the bus");
  EXPECT_EQ(slurm_node_problem(node).value_or(""), "down (State=DOWN): gpu fell off the bus");
}

TEST(SlurmNodeParse, NodeWhoseSlurmdNeverRegisteredIsNotRegistered) {
  const auto node = parsed(capture("scontrol-node-unknown.txt"));
  EXPECT_EQ(node.name, "node02");
  EXPECT_EQ(node.states, std::vector<std::string>{"UNKNOWN"});
  EXPECT_EQ(node.gres, "gpu:h100:8");  // configured, so Gres= alone proves nothing
  EXPECT_NE(slurm_node_problem(node).value_or("").find("not registered (State=UNKNOWN)"), std::string::npos);
}

TEST(SlurmNodeParse, BusyNodesTakeJobsButDrainingOnesDoNot) {
  for (const auto* state : {"MIXED", "ALLOCATED", "IDLE+COMPLETING", "ALLOCATED+COMPLETING"})
    EXPECT_EQ(slurm_node_problem(with_state(state)), std::nullopt) << state;
  EXPECT_EQ(slurm_node_problem(with_state("ALLOCATED+DRAIN")).value_or("").substr(0, 8), "draining");
  EXPECT_EQ(slurm_node_problem(with_state("MIXED+DRAIN")).value_or("").substr(0, 8), "draining");
}

TEST(SlurmNodeParse, NotRespondingFailedAndPoweredDownNodesAreProblems) {
  for (const auto* state : {"IDLE+NOT_RESPONDING", "DOWN*", "IDLE+FAIL", "IDLE+POWERED_DOWN", "FUTURE", "IDLE+INVALID_REG"})
    EXPECT_TRUE(slurm_node_problem(with_state(state))) << state;
  EXPECT_EQ(with_state("DOWN*").states, (std::vector<std::string>{"DOWN", "NOT_RESPONDING"}));
}

TEST(SlurmNodeParse, RejectsTextThatIsNotANode) {
  EXPECT_FALSE(parse_scontrol_node(capture("scontrol-no-controller.txt")));
  EXPECT_FALSE(parse_scontrol_node(capture("scontrol-node-not-found.txt")));
  EXPECT_FALSE(parse_scontrol_node(""));
  EXPECT_FALSE(parse_scontrol_node("NodeName=node01 Arch=x86_64\n"));  // no State=
}

TEST(SlurmNodeParse, GpuGresIgnoresSocketBindingAndOtherGres) {
  EXPECT_EQ(slurm_gpu_gres("gpu:h100:8"), "gpu:h100:8");
  EXPECT_EQ(slurm_gpu_gres("gpu:h100:8(S:0-1)"), "gpu:h100:8");
  EXPECT_EQ(slurm_gpu_gres("shard:h100:16,gpu:a100:4(S:0)"), "gpu:a100:4");
  EXPECT_EQ(slurm_gpu_gres("(null)"), "");
  EXPECT_EQ(slurm_gpu_gres(""), "");
}

}  // namespace
}  // namespace gpuctl::facts
