// Node variables, {{name}} substitution and `when:` conditions (playbook/variables.hpp).
#include <gpuctl/playbook/variables.hpp>

#include "template_test_inventory.hpp"

#include <gpuctl/template/context.hpp>

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace gpuctl {
namespace {

const Node& node_named(const Inventory& inventory, std::string_view name) {
  const auto* node = inventory.find_node(name);
  if (!node) throw std::runtime_error("no node " + std::string(name));
  return *node;
}

TEST(NodeVariables, DescribesAGpuNodeOfTheExampleCluster) {
  auto inventory = testing::example_inventory();
  inventory.nodes[1].labels = {{"role", "train"}};
  const auto v = node_variables(inventory, inventory.nodes[1]);
  EXPECT_EQ(v.at("cluster.name"), "hopper");
  EXPECT_EQ(v.at("node.name"), "gpu01");
  EXPECT_EQ(v.at("node.address"), "10.10.1.1");
  EXPECT_EQ(v.at("node.rack"), "r1");
  EXPECT_EQ(v.at("gpu.model"), "H100");
  EXPECT_EQ(v.at("gpu.count"), "8");
  EXPECT_EQ(v.at("is_gpu_node"), "true");
  EXPECT_EQ(v.at("nvidia.driver_branch"), "550");
  EXPECT_EQ(v.at("nvidia.driver_version"), "550.127.08");
  EXPECT_EQ(v.at("nvidia.cuda"), "12.4");
  EXPECT_EQ(v.at("nvidia.cuda_dashed"), "12-4");
  EXPECT_EQ(v.at("nvidia.repository.key_path"), "/etc/apt/keyrings/gpuctl-cuda.asc");
  EXPECT_EQ(v.at("slurm.enabled"), "true");
  EXPECT_EQ(v.at("slurm.controller"), "head01");
  EXPECT_EQ(v.at("is_slurm_controller"), "false");
  EXPECT_EQ(v.at("is_prometheus"), "false");
  EXPECT_EQ(v.at("labels.role"), "train");
}

TEST(NodeVariables, MarksTheHeadNodeAsControllerAndPrometheusButNotGpuNode) {
  const auto inventory = testing::example_inventory();
  const auto v = node_variables(inventory, node_named(inventory, "head01"));
  EXPECT_EQ(v.at("is_gpu_node"), "false");
  EXPECT_EQ(v.at("gpu.count"), "0");
  EXPECT_EQ(v.at("is_slurm_controller"), "true");
  EXPECT_EQ(v.at("is_prometheus"), "true");
}

TEST(NodeVariables, NoNodeIsControllerWhenSlurmIsDisabled) {
  auto inventory = testing::example_inventory();
  inventory.cluster.slurm.enabled = false;
  const auto v = node_variables(inventory, node_named(inventory, "head01"));
  EXPECT_EQ(v.at("slurm.enabled"), "false");
  EXPECT_EQ(v.at("is_slurm_controller"), "false");
}

TEST(NodeVariables, AddressDefaultsToTheNodeName) {
  auto inventory = testing::example_inventory();
  inventory.nodes[2].connection.address.clear();
  const auto v = node_variables(inventory, inventory.nodes[2]);
  EXPECT_EQ(v.at("node.address"), "gpu02");
}

// One derived node view: playbook variables and the template context are built from the same
// derivation, so a name both know has one value.
TEST(NodeVariables, NodeNamesAreTheTemplateContextsNodePart) {
  auto inventory = testing::example_inventory();
  inventory.nodes[1].labels = {{"role", "train"}};
  for (const auto& node : inventory.nodes) {
    const auto v = node_variables(inventory, node);
    std::map<std::string, std::string> view;
    flatten_scalars(build_node_context(node), "", view);
    ASSERT_FALSE(view.empty());
    for (const auto& [name, value] : view) {
      ASSERT_TRUE(v.contains(name)) << node.name << ": " << name;
      EXPECT_EQ(v.at(name), value) << node.name << ": " << name;
    }
    // The short forms playbooks have always used carry the same values.
    EXPECT_EQ(v.at("gpu.model"), v.at("node.gpu.model"));
    EXPECT_EQ(v.at("gpu.count"), v.at("node.gpu.count"));
    EXPECT_EQ(v.at("is_gpu_node"), v.at("node.is_gpu_node"));
  }
  const auto gpu = node_variables(inventory, inventory.nodes[1]);
  EXPECT_EQ(gpu.at("node.gpu.count"), "8");
  EXPECT_EQ(gpu.at("node.is_gpu_node"), "true");
  EXPECT_EQ(gpu.at("node.labels.role"), "train");
  EXPECT_EQ(gpu.at("labels.role"), "train");
}

// Every cluster-wide playbook variable that the template context also has holds the same value
// there; one it lacks is empty (left out of templates so that they fail loudly) or one of the
// few derived for playbooks only.
TEST(NodeVariables, ClusterNamesAgreeWithTheTemplateContext) {
  const auto inventory = testing::example_inventory();
  std::map<std::string, std::string> view;
  flatten_scalars(build_cluster_context(inventory), "", view);
  const auto v = node_variables(inventory, inventory.nodes[1]);
  const std::set<std::string> playbook_only{"nvidia.cuda_dashed", "is_gpu_node", "is_slurm_controller",
                                            "is_prometheus", "gpu.model", "gpu.count",
                                            "monitoring.alertmanager.webhook.bearer_token",
                                            "monitoring.alertmanager.email.auth"};
  for (const auto& [name, value] : v) {
    if (name.starts_with("node.") || name.starts_with("labels.") || playbook_only.contains(name)) continue;
    const auto it = view.find(name);
    if (it == view.end()) EXPECT_EQ(value, "") << name << " is not in the template context";
    else EXPECT_EQ(value, it->second) << name;
  }
  EXPECT_EQ(view.at("nvidia.cuda"), v.at("nvidia.cuda"));
}

TEST(NodeVariables, SlurmClusterNameIsTheClusterNameUnlessSet) {
  auto inventory = testing::example_inventory();
  inventory.cluster.slurm.cluster_name.clear();
  EXPECT_EQ(node_variables(inventory, inventory.nodes[0]).at("slurm.cluster_name"), inventory.cluster.name);
  inventory.cluster.slurm.cluster_name = "other";
  EXPECT_EQ(node_variables(inventory, inventory.nodes[0]).at("slurm.cluster_name"), "other");
}

TEST(NodeVariables, AbsentNodeValuesAreEmptyNotUnknown) {
  auto inventory = testing::example_inventory();
  inventory.nodes[0].rack.clear();
  const auto v = node_variables(inventory, inventory.nodes[0]);
  EXPECT_EQ(v.at("node.rack"), "");
  EXPECT_TRUE(v.contains("node.gpu.power_watts"));
}

TEST(NodeVariables, KeyPathIsBinaryGpgForAnUnarmoredKeyFile) {
  auto inventory = testing::example_inventory();
  inventory.cluster.nvidia.repository.key_url.clear();
  inventory.cluster.nvidia.repository.key_file = "keys/cuda.gpg";
  const auto v = node_variables(inventory, inventory.nodes[1]);
  EXPECT_EQ(v.at("nvidia.repository.key_file"), "keys/cuda.gpg");
  EXPECT_EQ(v.at("nvidia.repository.key_path"), "/etc/apt/keyrings/gpuctl-cuda.gpg");
}

const Variables k_vars{{"gpu.count", "8"},           {"gpu.model", "H100"},     {"is_gpu_node", "true"},
                       {"is_prometheus", "false"},   {"slurm.enabled", "true"}, {"nvidia.cuda", "12.4"},
                       {"nvidia.driver_branch", "550"}, {"zero", "0"},         {"empty", ""},
                       {"version", "10"}};

TEST(Substitute, ReplacesEveryReferenceAndToleratesInnerSpaces) {
  const auto out = substitute("nvidia-driver-{{nvidia.driver_branch}} cuda {{ nvidia.cuda }}!", k_vars);
  ASSERT_TRUE(out) << out.error().to_string();
  EXPECT_EQ(*out, "nvidia-driver-550 cuda 12.4!");
}

TEST(Substitute, LeavesTextWithoutReferencesAlone) {
  const auto out = substitute("plain { text } here", k_vars);
  ASSERT_TRUE(out);
  EXPECT_EQ(*out, "plain { text } here");
}

TEST(Substitute, UnknownVariableIsAnErrorSuggestingTheClosestName) {
  const auto out = substitute("driver {{nvidia.driver_brnch}}", k_vars);
  ASSERT_FALSE(out);
  EXPECT_EQ(out.error().code, ErrorCode::validation);
  EXPECT_NE(out.error().message.find("nvidia.driver_brnch"), std::string::npos);
  EXPECT_EQ(out.error().hint, "did you mean 'nvidia.driver_branch'?");
}

TEST(Substitute, UnclosedReferenceIsAnError) {
  const auto out = substitute("driver {{nvidia.driver_branch", k_vars);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message.find("unclosed"), std::string::npos);
}

struct ConditionCase {
  const char* condition;
  bool expected;
};

class EvaluateCondition : public ::testing::TestWithParam<ConditionCase> {};

TEST_P(EvaluateCondition, DecidesTheCondition) {
  const auto result = evaluate_condition(GetParam().condition, k_vars);
  ASSERT_TRUE(result) << GetParam().condition << ": " << result.error().to_string();
  EXPECT_EQ(*result, GetParam().expected) << GetParam().condition;
}

INSTANTIATE_TEST_SUITE_P(
    Table, EvaluateCondition,
    ::testing::Values(
        // Empty is always true; a bare name is true unless empty, "false" or "0".
        ConditionCase{"", true}, ConditionCase{"   ", true}, ConditionCase{"is_gpu_node", true},
        ConditionCase{"is_prometheus", false}, ConditionCase{"zero", false}, ConditionCase{"empty", false},
        ConditionCase{"gpu.model", true},
        // not
        ConditionCase{"not is_gpu_node", false}, ConditionCase{"not is_prometheus", true},
        // and / or, `and` binding tighter than `or`
        ConditionCase{"is_gpu_node and slurm.enabled", true}, ConditionCase{"is_gpu_node and is_prometheus", false},
        ConditionCase{"is_prometheus or is_gpu_node", true}, ConditionCase{"is_prometheus or zero", false},
        ConditionCase{"is_prometheus and zero or is_gpu_node", true},
        ConditionCase{"is_gpu_node or is_prometheus and zero", true},
        ConditionCase{"is_prometheus or is_gpu_node and zero", false},
        ConditionCase{"not is_prometheus and not zero", true},
        // Numbers compare as numbers: "10" > "8" although "10" < "8" as text.
        ConditionCase{"version > 8", true}, ConditionCase{"version >= 10", true}, ConditionCase{"version < 9", false},
        ConditionCase{"gpu.count == 8", true}, ConditionCase{"gpu.count == 8.0", true},
        ConditionCase{"gpu.count != 8", false}, ConditionCase{"gpu.count <= 7", false},
        ConditionCase{"nvidia.cuda >= 12.1", true}, ConditionCase{"nvidia.cuda < 12.10", false},
        // Text compares as text when either side is not a number.
        ConditionCase{"gpu.model == H100", true}, ConditionCase{"gpu.model == h100", false},
        ConditionCase{"gpu.model != A100", true}, ConditionCase{"gpu.model > A100", true},
        ConditionCase{"gpu.model < A100", false}, ConditionCase{"not gpu.model == H100", false},
        ConditionCase{"gpu.model == H100 and gpu.count >= 8", true}));

TEST(EvaluateConditionErrors, UnknownVariableSuggestsTheClosestName) {
  const auto result = evaluate_condition("is_gpu_nod", k_vars);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::validation);
  EXPECT_EQ(result.error().hint, "did you mean 'is_gpu_node'?");
}

TEST(EvaluateConditionErrors, UnknownOperatorIsAnError) {
  const auto result = evaluate_condition("gpu.count =~ 8", k_vars);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("=~"), std::string::npos);
}

TEST(EvaluateConditionErrors, ClauseOfTwoOrFourWordsIsAnError) {
  for (const char* bad : {"gpu.count ==", "gpu.count == 8 9", "is_gpu_node is_prometheus", "not",
                          "is_gpu_node and", "is_gpu_node and  and slurm.enabled"}) {
    const auto result = evaluate_condition(bad, k_vars);
    EXPECT_FALSE(result) << bad;
  }
}

// A typo must be reported on every node, not only where an earlier alternative is false:
// otherwise a broken `when:` goes unnoticed on the nodes that happen to short-circuit.
TEST(EvaluateConditionErrors, UnknownVariableInALaterAlternativeIsAnErrorEvenWhenAnEarlierOneHolds) {
  EXPECT_FALSE(evaluate_condition("is_gpu_node or is_slurm_controlr", k_vars));
  EXPECT_FALSE(evaluate_condition("is_prometheus and is_slurm_controlr", k_vars));
}

}  // namespace
}  // namespace gpuctl
