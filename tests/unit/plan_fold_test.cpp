// Folding identical node plans (plan/fold.hpp) and the folded text view (plan/render.hpp).
#include <gpuctl/plan/fold.hpp>
#include <gpuctl/plan/render.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <fmt/format.h>

namespace gpuctl {
namespace {

Change file_change(Action action, std::string path, std::string diff, std::string reason = "file does not exist") {
  Change change;
  change.action = action;
  change.step = "exporters";
  change.resource = "file:" + path;
  change.summary = fmt::format("{} {} (0644 root:root)", action == Action::create ? "create" : "update", path);
  change.reason = std::move(reason);
  change.diff = std::move(diff);
  return change;
}

Change driver_change(Action action, std::string resource, std::string summary) {
  Change change;
  change.action = action;
  change.step = "driver";
  change.resource = std::move(resource);
  change.summary = std::move(summary);
  return change;
}

// A fresh GPU node as the shipped playbooks plan it, reduced: a file every node gets the same
// (slurm.conf, naming every node), a file holding the node's own address (the exporter's
// listen address), a package and a reboot.
NodePlan fresh_node(int i) {
  NodePlan node;
  node.node = fmt::format("gpu{:03}", i);
  node.address = fmt::format("10.1.{}.{}", i / 250, i % 250 + 1);
  node.state_fingerprint = "fp-" + node.node;
  node.changes.push_back(file_change(Action::create, "/etc/slurm/slurm.conf",
                                     "+NodeName=gpu001 NodeAddr=10.1.0.2\n+NodeName=gpu[002-512]\n"));
  node.changes.push_back(file_change(Action::create, "/etc/default/prometheus-node-exporter",
                                     fmt::format("+ARGS=\"--web.listen-address={}:9100\"\n", node.address)));
  node.changes.push_back(
      driver_change(Action::create, "package:nvidia-driver-550", "install nvidia-driver-550 (none -> 550.127.08), held"));
  node.changes.push_back(driver_change(Action::reboot, "reboot", "reboot and wait for a new boot_id"));
  return node;
}

Plan fresh_cluster(int nodes) {
  Plan plan;
  for (int i = 1; i <= nodes; ++i) plan.nodes.push_back(fresh_node(i));
  return plan;
}

std::size_t lines(const std::string& text) { return static_cast<std::size_t>(std::ranges::count(text, '\n')); }

TEST(ReplaceOwnWords, ReplacesWholeWordsOnly) {
  EXPECT_EQ(replace_own_words("gpu1 gpu10 xgpu1 gpu1.example.org gpu1-ib", "gpu1", "10.0.0.1"),
            "<node> gpu10 xgpu1 <node>.example.org gpu1-ib");
  EXPECT_EQ(replace_own_words("--web.listen-address=10.0.0.1:9100 10.0.0.12 [10.0.0.1]", "gpu1", "10.0.0.1"),
            "--web.listen-address=<address>:9100 10.0.0.12 [<address>]");
  // No address in the inventory: the address is the name, one placeholder.
  EXPECT_EQ(replace_own_words("ssh gpu1: refused", "gpu1", "gpu1"), "ssh <node>: refused");
  // A name inside the address is not cut out of it.
  EXPECT_EQ(replace_own_words("n1.lab:22", "n1", "n1.lab"), "<address>:22");
}

TEST(FoldNodePlans, IdenticalNodesAndNodesDifferingByTheirAddressFoldIntoOne) {
  const auto plan = fresh_cluster(512);
  const auto groups = fold_node_plans(plan);
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].hostlist, "gpu[001-512]");
  EXPECT_EQ(groups[0].members.size(), 512u);
  EXPECT_TRUE(groups[0].placeholders);
  ASSERT_EQ(groups[0].changes.size(), 4u);
  // The exporter's address differs by node: shown with the placeholder.
  EXPECT_EQ(groups[0].changes[1].diff, "+ARGS=\"--web.listen-address=<address>:9100\"\n");
  // slurm.conf is the same on every node: shown as it is, gpu001's name and address included.
  EXPECT_EQ(groups[0].changes[0].diff, plan.nodes[0].changes[0].diff);
}

TEST(FoldNodePlans, ADriftedNodeStandsAloneAndTheRestStayFolded) {
  auto plan = fresh_cluster(64);
  plan.nodes[6].changes[2].summary = "install nvidia-driver-550 (535.183.01 -> 550.127.08), held";
  plan.nodes[40].changes.pop_back();
  const auto groups = fold_node_plans(plan);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].hostlist, "gpu[001-006,008-040,042-064]");
  EXPECT_EQ(groups[1].hostlist, "gpu007");
  EXPECT_EQ(groups[2].hostlist, "gpu041");
  EXPECT_FALSE(groups[1].placeholders) << "a group of one shows its own text";
}

TEST(FoldNodePlans, UnreachableNodesFoldByTheirErrorWithTheirOwnAddressOut) {
  Plan plan = fresh_cluster(4);
  for (int i : {1, 3}) {
    plan.nodes[i].status = NodePlanStatus::unreachable;
    plan.nodes[i].changes.clear();
    plan.nodes[i].error = fmt::format("ssh {}:22: connect: Connection refused", plan.nodes[i].address);
  }
  const auto groups = fold_node_plans(plan);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[1].hostlist, "gpu[002,004]");
  EXPECT_EQ(groups[1].status, NodePlanStatus::unreachable);
  EXPECT_EQ(groups[1].error, "ssh <address>:22: connect: Connection refused");
}

TEST(FoldNodePlans, NodesWithNoChangesFoldAndOtherStatusesNeverMix) {
  Plan plan;
  for (int i = 1; i <= 3; ++i) plan.nodes.push_back(NodePlan{fmt::format("n{}", i), NodePlanStatus::planned, "", "fp", {}});
  plan.nodes.push_back(NodePlan{"n4", NodePlanStatus::failed, "", "", {}});
  const auto groups = fold_node_plans(plan);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].hostlist, "n[1-3]");
  EXPECT_EQ(groups[1].hostlist, "n4");
}

// Issue #15's target: a 512-node fresh plan of identical nodes reads in a screenful; --expand
// gives every node its block.
TEST(RenderPlanText, FoldsIdenticalNodesUnlessAskedToExpand) {
  const auto plan = fresh_cluster(512);
  const auto folded = render_plan_text(plan);
  EXPECT_NE(folded.find("  gpu[001-512]  512 nodes (3 create, 1 reboot)\n"), std::string::npos) << folded;
  EXPECT_NE(folded.find("<node> and <address> below stand for each node's own name and address"), std::string::npos);
  EXPECT_NE(folded.find("+ARGS=\"--web.listen-address=<address>:9100\""), std::string::npos);
  EXPECT_LE(lines(folded), 20u) << folded;
  EXPECT_NE(folded.find("Plan: 512 nodes, 512 with changes (1536 to create"), std::string::npos)
      << "the summary still counts every node's changes";

  TextOptions expand;
  expand.expand = true;
  const auto each = render_plan_text(plan, expand);
  EXPECT_NE(each.find("  gpu512  (3 create, 1 reboot)\n"), std::string::npos);
  EXPECT_NE(each.find("--web.listen-address=10.1.2.13:9100"), std::string::npos);
  EXPECT_EQ(each.find("<address>"), std::string::npos);
  EXPECT_GT(lines(each), 512u * 8);
}

// A long diff (a generated file listing every node) is cut in the folded view with the count of
// lines left out and how to see them; --expand shows it whole.
TEST(RenderPlanText, CutsLongDiffsSayingHowManyLinesAreLeftOut) {
  auto plan = fresh_cluster(2);
  std::string targets = "--- /dev/null\n+++ /etc/prometheus/prometheus.yml\n";
  for (int i = 1; i <= 1000; ++i) targets += fmt::format("+      - targets: ['10.1.0.{}:9100']\n", i);
  for (auto& node : plan.nodes) node.changes[0].diff = targets;
  const auto folded = render_plan_text(plan);
  EXPECT_NE(folded.find("... 972 more lines of this diff not shown: --expand or --json show them all\n"), std::string::npos)
      << folded;
  EXPECT_EQ(folded.find("10.1.0.1000:9100"), std::string::npos);
  TextOptions expand;
  expand.expand = true;
  EXPECT_NE(render_plan_text(plan, expand).find("10.1.0.1000:9100"), std::string::npos);
}

// A diff that two blocks share (slurm.conf on the head and on the GPU nodes) is printed once.
TEST(RenderPlanText, NamesADiffAlreadyShownInsteadOfRepeatingIt) {
  auto plan = fresh_cluster(3);
  std::string slurm_conf = "--- /dev/null\n+++ /etc/slurm/slurm.conf\n";
  for (const auto* line : {"+ClusterName=c", "+SlurmctldHost=head", "+AuthType=auth/munge", "+SlurmUser=slurm",
                           "+GresTypes=gpu", "+NodeName=gpu[002-512]"})
    slurm_conf += std::string(line) + "\n";
  for (auto& node : plan.nodes) node.changes[0].diff = slurm_conf;
  plan.nodes[2].changes.pop_back();  // gpu003 stands alone, with the same slurm.conf
  const auto folded = render_plan_text(plan);
  EXPECT_NE(folded.find("(the same diff as shown above for gpu[001-002])"), std::string::npos) << folded;
  std::size_t slurm = 0;
  for (auto at = folded.find("+NodeName=gpu[002-512]"); at != std::string::npos; at = folded.find("+NodeName=gpu[002-512]", at + 1))
    ++slurm;
  EXPECT_EQ(slurm, 1u) << folded;
}

}  // namespace
}  // namespace gpuctl
