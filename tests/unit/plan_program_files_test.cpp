// Which files a node receives, as the shipped playbooks push them (what `gpuctl render` shows
// and apply writes): the same node programs decide both.
#include "template_test_inventory.hpp"

#include "shipped_playbooks.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

using namespace gpuctl;
using gpuctl::testing::example_inventory;

namespace {

using gpuctl::testing::k_shipped_templates_dir;
using gpuctl::testing::shipped_playbooks;

Result<std::vector<NodeFiles>> files_of(const Inventory& inventory, const std::string& name) {
  for (const auto& node : inventory.nodes)
    if (node.name == name) {
      const Node* nodes[] = {&node};
      return render_program_files(inventory, nodes, shipped_playbooks(), k_shipped_templates_dir);
    }
  throw std::runtime_error("no node " + name);
}

std::vector<std::string> paths_for(const Inventory& inventory, const std::string& name) {
  auto rendered = files_of(inventory, name);
  if (!rendered) throw std::runtime_error(rendered.error().to_string());
  std::vector<std::string> paths;
  for (const auto& file : rendered->front().files) paths.push_back(file.path);
  return paths;
}

}  // namespace

TEST(ProgramFiles, GpuNodeGetsDriverRepositoryNcclMungeAndSlurmFiles) {
  EXPECT_EQ(paths_for(example_inventory(), "gpu03"),
            (std::vector<std::string>{"/etc/modprobe.d/blacklist-nouveau.conf", "/etc/apt/sources.list.d/gpuctl-cuda.list",
                                      "/etc/apt/preferences.d/gpuctl-cuda.pref",
                                      "/etc/modules-load.d/nvidia-peermem.conf", "/etc/nccl.conf",
                                      "/etc/munge/munge.key", "/usr/local/sbin/gpuctl-health-check", "/etc/slurm/slurm.conf", "/etc/slurm/gres.conf",
                                      "/etc/slurm/cgroup.conf", "/etc/dcgm-exporter/gpuctl-counters.csv",
                                      "/etc/systemd/system/nvidia-dcgm-exporter.service.d/gpuctl.conf",
                                      "/etc/default/prometheus-node-exporter"}));
}

TEST(ProgramFiles, NodeExporterOptionsOnlyWhereTheExporterRuns) {
  Inventory inventory = example_inventory();
  inventory.cluster.monitoring.node_exporter = false;
  for (const auto& path : paths_for(inventory, "gpu01")) EXPECT_NE(path, "/etc/default/prometheus-node-exporter");
}

TEST(ProgramFiles, HeadNodeGetsSlurmAndPrometheusFilesButNoGpuFiles) {
  EXPECT_EQ(paths_for(example_inventory(), "head01"),
            (std::vector<std::string>{"/etc/munge/munge.key", "/etc/slurm/slurm.conf", "/etc/slurm/gres.conf",
                                      "/etc/slurm/cgroup.conf", "/etc/default/prometheus-node-exporter",
                                      "/etc/default/prometheus", "/etc/prometheus/prometheus.yml",
                                      "/etc/prometheus/gpu-alerts.yml", "/etc/prometheus/gpuctl-grafana-dashboard.json",
                                      "/etc/default/prometheus-alertmanager", "/etc/prometheus/alertmanager.yml"}));
}

TEST(ProgramFiles, SecretsAreMaskedNeverGenerated) {
  auto rendered = files_of(example_inventory(), "gpu01");
  ASSERT_TRUE(rendered) << rendered.error().to_string();
  bool saw_secret = false;
  for (const auto& file : rendered->front().files)
    if (file.path == "/etc/munge/munge.key") {
      saw_secret = true;
      EXPECT_TRUE(file.secret);
      EXPECT_TRUE(file.content.empty());
      EXPECT_EQ(file.mode, 0400u);
    }
  EXPECT_TRUE(saw_secret);
}

TEST(ProgramFiles, NoSlurmFilesWhenSlurmIsNotConfigured) {
  Inventory inventory = example_inventory();
  inventory.cluster.slurm = SlurmSettings{};
  // GPU, repository, nvidia-peermem, NCCL, dcgm-exporter and node-exporter files
  EXPECT_EQ(paths_for(inventory, "gpu01").size(), 8u);
  EXPECT_EQ(paths_for(inventory, "head01"),
            (std::vector<std::string>{"/etc/default/prometheus-node-exporter", "/etc/default/prometheus",
                                      "/etc/prometheus/prometheus.yml", "/etc/prometheus/gpu-alerts.yml",
                                      "/etc/prometheus/gpuctl-grafana-dashboard.json",
                                      "/etc/default/prometheus-alertmanager", "/etc/prometheus/alertmanager.yml"}));
}

TEST(ProgramFiles, NoAptFilesOnNonDebianFamilies) {
  Inventory inventory = example_inventory();
  inventory.cluster.os_family = "rhel";
  for (const auto& path : paths_for(inventory, "gpu01")) EXPECT_FALSE(path.starts_with("/etc/apt/")) << path;
}

TEST(ProgramFiles, NodeWithoutGpusAndRolesGetsOnlyItsNodeExporter) {
  Inventory inventory = example_inventory();
  inventory.cluster.monitoring.prometheus.clear();
  inventory.cluster.slurm.controller = "gpu01";
  EXPECT_EQ(paths_for(inventory, "head01"), (std::vector<std::string>{"/etc/default/prometheus-node-exporter"}));
  inventory.cluster.monitoring.node_exporter = false;
  EXPECT_TRUE(paths_for(inventory, "head01").empty());
}

TEST(ProgramFiles, MissingInventoryValueFailsWithTemplateAndNode) {
  Inventory inventory = example_inventory();
  inventory.cluster.nvidia.repository.url.clear();
  const auto files = files_of(inventory, "gpu01");
  ASSERT_FALSE(files.has_value());
  EXPECT_EQ(files.error().where.file, "cuda-repository.list.mustache");
  EXPECT_EQ(files.error().where.node, "gpu01");
  EXPECT_EQ(files.error().where.line, 3);
}

TEST(ProgramFiles, EveryShippedTemplateIsPushedByAPlaybook) {
  std::set<std::string> used;
  for (const auto& playbook : shipped_playbooks())
    for (const auto& step : playbook.steps)
      for (const auto& resource : step.resources)
        if (resource.kind == ResourceKind::file && !resource.file.template_name.empty())
          used.insert(resource.file.template_name);
  for (const auto& entry : std::filesystem::directory_iterator(k_shipped_templates_dir))
    EXPECT_TRUE(used.contains(entry.path().filename().string())) << entry.path() << " is shipped but no playbook uses it";
}
