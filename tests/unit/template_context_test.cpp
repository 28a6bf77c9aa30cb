// The template context: what the inventory becomes for templates (slurm node groups with
// compressed hostlists, merged slurm settings, scrape targets, repository details).
#include "template_test_inventory.hpp"

#include <gpuctl/template/context.hpp>

#include <gtest/gtest.h>

using namespace gpuctl;
using gpuctl::testing::example_inventory;

namespace {

const TemplateValue& at(const TemplateValue& value, std::initializer_list<std::string_view> path) {
  const TemplateValue* current = &value;
  for (auto key : path) {
    current = current->find(key);
    if (current == nullptr) throw std::runtime_error("no " + std::string(key));
  }
  return *current;
}

std::vector<std::string> strings_of(const TemplateValue& list, std::string_view key) {
  std::vector<std::string> out;
  for (const auto& item : list.as_list()) out.push_back(item.find(key)->as_string());
  return out;
}

}  // namespace

TEST(TemplateContext, GroupsSlurmNodesByIdenticalHardwareWithCompressedHostlists) {
  Inventory inventory = example_inventory();
  // gpu05..gpu08 become 4x A100 nodes: two hardware groups.
  for (auto& node : inventory.nodes)
    if (node.name.starts_with("gpu") && node.name >= "gpu05") node.gpu = GpuSpec{"A100", 4, 400};
  const auto context = build_template_context(inventory, inventory.nodes[0]);
  const auto& groups = at(context, {"slurm", "node_groups"});
  ASSERT_EQ(groups.as_list().size(), 2u);
  EXPECT_EQ(strings_of(groups, "nodes"), (std::vector<std::string>{"gpu[01-04]", "gpu[05-08]"}));
  EXPECT_EQ(strings_of(groups, "gpu_type"), (std::vector<std::string>{"h100", "a100"}));
  EXPECT_EQ(strings_of(groups, "gpu_count"), (std::vector<std::string>{"8", "4"}));
  EXPECT_EQ(strings_of(groups, "gpu_files"), (std::vector<std::string>{"/dev/nvidia[0-7]", "/dev/nvidia[0-3]"}));
}

TEST(TemplateContext, PartitionNodesAreCompressed) {
  Inventory inventory = example_inventory();
  inventory.cluster.slurm.partitions[1].node_names = {"gpu08", "gpu03", "gpu04"};
  const auto context = build_template_context(inventory, inventory.nodes[0]);
  EXPECT_EQ(strings_of(at(context, {"slurm", "partitions"}), "nodes"),
            (std::vector<std::string>{"gpu[01-08]", "gpu[03-04,08]"}));
}

TEST(TemplateContext, SlurmLabelsBecomeNodeAttributesAndSplitGroups) {
  Inventory inventory = example_inventory();
  // slurm.RealMemory is a hardware pin: it reaches the line through the hardware values
  // (slurm_hardware_test.cpp), not as an option of its own.
  inventory.nodes[1].labels = {{"slurm.Weight", "10"}, {"slurm.RealMemory", "2000000"}, {"team", "ml"}};
  const auto context = build_template_context(inventory, inventory.nodes[1]);
  const auto& groups = at(context, {"slurm", "node_groups"}).as_list();
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].find("nodes")->as_string(), "gpu01");
  const auto& options = groups[0].find("options")->as_list();
  ASSERT_EQ(options.size(), 1u);
  EXPECT_EQ(options[0].find("key")->as_string(), "Weight");
  EXPECT_EQ(groups[1].find("nodes")->as_string(), "gpu[02-08]");
  EXPECT_EQ(at(context, {"node", "labels", "team"}).as_string(), "ml");
}

TEST(TemplateContext, SlurmOptionsOverrideDefaultsInPlaceAndAppendNewKeys) {
  Inventory inventory = example_inventory();
  inventory.cluster.slurm.options = {{"SlurmUser", "root"}, {"MpiDefault", "pmix"}};
  const auto context = build_template_context(inventory, inventory.nodes[0]);
  const auto keys = strings_of(at(context, {"slurm", "settings"}), "key");
  const auto values = strings_of(at(context, {"slurm", "settings"}), "value");
  EXPECT_EQ(std::count(keys.begin(), keys.end(), "SlurmUser"), 1);
  const auto user = std::find(keys.begin(), keys.end(), "SlurmUser") - keys.begin();
  EXPECT_EQ(values[user], "root");
  EXPECT_EQ(keys.back(), "MpiDefault");
  EXPECT_EQ(values.back(), "pmix");
}

TEST(TemplateContext, ControllerAddressComesFromItsNode) {
  const Inventory inventory = example_inventory();
  const auto context = build_template_context(inventory, inventory.nodes[3]);
  EXPECT_EQ(at(context, {"slurm", "controller_address"}).as_string(), "10.10.0.1");
}

TEST(TemplateContext, ScrapeTargetsCoverAllNodesForNodeExporterAndGpuNodesForDcgm) {
  const Inventory inventory = example_inventory();
  const auto context = build_template_context(inventory, inventory.nodes[0]);
  const auto node_targets = strings_of(at(context, {"monitoring", "node_exporter_targets"}), "target");
  const auto dcgm_targets = strings_of(at(context, {"monitoring", "dcgm_exporter_targets"}), "target");
  ASSERT_EQ(node_targets.size(), 9u);
  EXPECT_EQ(node_targets[0], "10.10.0.1:9100");
  ASSERT_EQ(dcgm_targets.size(), 8u);
  EXPECT_EQ(dcgm_targets[0], "10.10.1.1:9400");
}

TEST(TemplateContext, DisabledExporterHasNoTargets) {
  Inventory inventory = example_inventory();
  inventory.cluster.monitoring.dcgm_exporter = false;
  const auto context = build_template_context(inventory, inventory.nodes[0]);
  EXPECT_TRUE(at(context, {"monitoring", "dcgm_exporter_targets"}).as_list().empty());
  EXPECT_TRUE(at(context, {"monitoring", "dcgm_exporter"}).is_falsy());
}

TEST(TemplateContext, EmptyInventoryValuesAreAbsent) {
  Inventory inventory = example_inventory();
  inventory.nodes[1].rack.clear();
  const auto context = build_template_context(inventory, inventory.nodes[1]);
  EXPECT_EQ(at(context, {"node"}).find("rack"), nullptr);
  EXPECT_EQ(at(context, {"nvidia", "repository"}).find("key_file"), nullptr);
}

TEST(UrlHost, ExtractsTheHostOfAUrl) {
  EXPECT_EQ(url_host("https://developer.download.nvidia.com/compute/cuda/"), "developer.download.nvidia.com");
  EXPECT_EQ(url_host("http://user:pw@mirror.local:8080/cuda"), "mirror.local");
  EXPECT_EQ(url_host("http://[fd00::1]:80/x"), "[fd00::1]");
  EXPECT_EQ(url_host("file:///srv/mirror"), "");
  EXPECT_EQ(url_host("not a url"), "");
}

TEST(CudaKeyPath, ArmoredKeysGetAscExtension) {
  RepositorySettings repository;
  repository.key_url = "https://example.com/3bf863cc.pub";
  EXPECT_EQ(cuda_key_path(repository), "/etc/apt/keyrings/gpuctl-cuda.asc");
  repository.key_file = "/srv/keys/cuda-archive-keyring.gpg";
  EXPECT_EQ(cuda_key_path(repository), "/etc/apt/keyrings/gpuctl-cuda.gpg");
}

TEST(TemplateContext, SlurmNodeGroupsCarryTheNodeAddressesFoldedLikeTheNames) {
  Inventory inventory = example_inventory();
  for (auto& node : inventory.nodes)
    if (node.name.starts_with("gpu") && node.name >= "gpu05") node.gpu = GpuSpec{"A100", 4, 400};
  const auto context = build_template_context(inventory, inventory.nodes[0]);
  const auto& groups = at(context, {"slurm", "node_groups"});
  EXPECT_EQ(strings_of(groups, "addresses"), (std::vector<std::string>{"10.10.1.[1-4]", "10.10.1.[5-8]"}));
}

TEST(TemplateContext, SlurmNodeAddressesFollowTheNameOrderWhenFoldingWouldNot) {
  Inventory inventory = example_inventory();
  // gpu01 and gpu02 swap addresses: folded, the addresses would sort the other way round.
  for (auto& node : inventory.nodes) {
    if (node.name == "gpu01") node.connection.address = "10.10.1.2";
    if (node.name == "gpu02") node.connection.address = "10.10.1.1";
  }
  const auto context = build_template_context(inventory, inventory.nodes[0]);
  EXPECT_EQ(strings_of(at(context, {"slurm", "node_groups"}), "addresses"),
            std::vector<std::string>{"10.10.1.2,10.10.1.1,10.10.1.3,10.10.1.4,10.10.1.5,10.10.1.6,10.10.1.7,10.10.1.8"});
}

TEST(TemplateContext, NoNodeAddrWhenNodesAreReachedByTheirNames) {
  Inventory inventory = example_inventory();
  for (auto& node : inventory.nodes) node.connection.address.clear();
  const auto context = build_template_context(inventory, inventory.nodes[0]);
  const auto& group = at(context, {"slurm", "node_groups"}).as_list().at(0);
  EXPECT_TRUE(group.find("has_addresses")->is_falsy());
  EXPECT_EQ(group.find("addresses"), nullptr);
}

TEST(TemplateContext, Ipv6AddressesAreBracketedWherePortsFollow) {
  Inventory inventory = example_inventory();
  inventory.nodes[1].connection.address = "fd00::11";
  const auto context = build_template_context(inventory, inventory.nodes[1]);
  EXPECT_EQ(at(context, {"node", "url_address"}).as_string(), "[fd00::11]");
  EXPECT_EQ(at(context, {"node", "address"}).as_string(), "fd00::11");
  EXPECT_EQ(strings_of(at(context, {"monitoring", "node_exporter_targets"}), "target")[1], "[fd00::11]:9100");
}

TEST(TemplateContext, SlurmHostlistsUseTheFormsSlurmParses) {
  Inventory inventory = example_inventory();
  // gpu01..gpu08 become r01n05, r02n05, ..., r08n05 (one node per rack at the same slot).
  std::vector<std::string> renamed;
  for (auto& node : inventory.nodes)
    if (node.name.starts_with("gpu")) renamed.push_back(node.name = "r0" + node.name.substr(4) + "n05");
  inventory.cluster.slurm.partitions[0].node_names = renamed;
  inventory.cluster.slurm.partitions[1].node_names = {"r07n05", "r08n05"};
  const auto context = build_template_context(inventory, inventory.nodes[0]);
  // ClusterShell's fold r[01-08]n05 is "Invalid hostlist" to Slurm.
  EXPECT_EQ(strings_of(at(context, {"slurm", "node_groups"}), "nodes"), std::vector<std::string>{"r[01-08]n[05]"});
  EXPECT_EQ(strings_of(at(context, {"slurm", "node_groups"}), "addresses"), std::vector<std::string>{"10.10.1.[1-8]"});
  EXPECT_EQ(strings_of(at(context, {"slurm", "partitions"}), "nodes"),
            (std::vector<std::string>{"r[01-08]n[05]", "r[07-08]n[05]"}));
}

TEST(TemplateContext, SlurmNodeNamesAndAddressesOfARackGridFoldAlike) {
  Inventory inventory = example_inventory();
  // gpu01..gpu08 become r1n1..r1n4 (10.0.1.1-4) and r2n1..r2n4 (10.0.2.1-4).
  std::vector<std::string> renamed;
  for (auto& node : inventory.nodes)
    if (node.name.starts_with("gpu")) {
      const int i = std::stoi(node.name.substr(3)) - 1;
      renamed.push_back(node.name = "r" + std::to_string(i / 4 + 1) + "n" + std::to_string(i % 4 + 1));
      node.connection.address = "10.0." + std::to_string(i / 4 + 1) + "." + std::to_string(i % 4 + 1);
    }
  inventory.cluster.slurm.partitions[0].node_names = renamed;
  inventory.cluster.slurm.partitions[1].node_names = {"r2n4"};
  const auto context = build_template_context(inventory, inventory.nodes[0]);
  EXPECT_EQ(strings_of(at(context, {"slurm", "node_groups"}), "nodes"), std::vector<std::string>{"r[1-2]n[1-4]"});
  EXPECT_EQ(strings_of(at(context, {"slurm", "node_groups"}), "addresses"), std::vector<std::string>{"10.0.[1-2].[1-4]"});
  EXPECT_EQ(strings_of(at(context, {"slurm", "partitions"}), "nodes"), (std::vector<std::string>{"r[1-2]n[1-4]", "r2n4"}));
}
