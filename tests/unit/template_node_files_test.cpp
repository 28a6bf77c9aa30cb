// The manifest: which node receives which rendered file.
#include "template_test_inventory.hpp"

#include <gpuctl/template/node_files.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

using namespace gpuctl;
using gpuctl::testing::example_inventory;

namespace {

const std::string k_templates_dir = std::string(GPUCTL_SOURCE_DIR) + "/templates";

std::vector<std::string> paths_for(const Inventory& inventory, const std::string& name) {
  for (const auto& node : inventory.nodes) {
    if (node.name != name) continue;
    auto files = render_node_files(inventory, node, k_templates_dir);
    if (!files) throw std::runtime_error(files.error().to_string());
    std::vector<std::string> paths;
    for (const auto& file : *files) paths.push_back(file.path);
    return paths;
  }
  throw std::runtime_error("no node " + name);
}

}  // namespace

TEST(NodeFiles, GpuNodeGetsDriverRepositoryNcclAndSlurmFiles) {
  EXPECT_EQ(paths_for(example_inventory(), "gpu03"),
            (std::vector<std::string>{"/etc/modprobe.d/blacklist-nouveau.conf", "/etc/apt/sources.list.d/gpuctl-cuda.list",
                                      "/etc/apt/preferences.d/gpuctl-cuda.pref", "/etc/nccl.conf",
                                      "/etc/slurm/slurm.conf", "/etc/slurm/gres.conf", "/etc/slurm/cgroup.conf"}));
}

TEST(NodeFiles, HeadNodeGetsSlurmAndPrometheusFilesButNoGpuFiles) {
  EXPECT_EQ(paths_for(example_inventory(), "head01"),
            (std::vector<std::string>{"/etc/slurm/slurm.conf", "/etc/slurm/gres.conf", "/etc/slurm/cgroup.conf",
                                      "/etc/prometheus/prometheus.yml", "/etc/prometheus/gpu-alerts.yml",
                                      "/etc/prometheus/gpuctl-grafana-dashboard.json"}));
}

TEST(NodeFiles, NoSlurmFilesWhenSlurmIsNotConfigured) {
  Inventory inventory = example_inventory();
  inventory.cluster.slurm = SlurmSettings{};
  EXPECT_EQ(paths_for(inventory, "gpu01").size(), 4u);
  EXPECT_EQ(paths_for(inventory, "head01"),
            (std::vector<std::string>{"/etc/prometheus/prometheus.yml", "/etc/prometheus/gpu-alerts.yml",
                                      "/etc/prometheus/gpuctl-grafana-dashboard.json"}));
}

TEST(NodeFiles, NoAptFilesOnNonDebianFamilies) {
  Inventory inventory = example_inventory();
  inventory.cluster.os_family = "rhel";
  for (const auto& path : paths_for(inventory, "gpu01")) EXPECT_FALSE(path.starts_with("/etc/apt/")) << path;
}

TEST(NodeFiles, NodeWithoutGpusAndRolesGetsNothing) {
  Inventory inventory = example_inventory();
  inventory.cluster.monitoring.prometheus.clear();
  inventory.cluster.slurm.controller = "gpu01";
  EXPECT_TRUE(paths_for(inventory, "head01").empty());
}

TEST(NodeFiles, MissingInventoryValueFailsWithTemplateAndNode) {
  Inventory inventory = example_inventory();
  inventory.cluster.nvidia.repository.url.clear();
  const auto files = render_node_files(inventory, inventory.nodes[1], k_templates_dir);
  ASSERT_FALSE(files.has_value());
  EXPECT_EQ(files.error().where.file, "cuda-repository.list.mustache");
  EXPECT_EQ(files.error().where.node, "gpu01");
  EXPECT_EQ(files.error().where.line, 3);
}

TEST(NodeFiles, EveryShippedTemplateIsInTheTable) {
  std::set<std::string> in_table;
  for (const auto& spec : node_file_table()) in_table.insert(std::string(spec.template_name));
  for (const auto& entry : std::filesystem::directory_iterator(k_templates_dir))
    EXPECT_TRUE(in_table.contains(entry.path().filename().string())) << entry.path();
}
