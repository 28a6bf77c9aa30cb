// The manifest of rendered files per node. Kept as data so playbooks can drive it later.
#include <gpuctl/template/node_files.hpp>

#include <algorithm>

namespace gpuctl {
namespace {

constexpr NodeFileSpec k_node_files[] = {
    {"blacklist-nouveau.conf.mustache", "/etc/modprobe.d/blacklist-nouveau.conf", 0644, FileCondition::gpu_node},
    {"cuda-repository.list.mustache", "/etc/apt/sources.list.d/gpuctl-cuda.list", 0644, FileCondition::apt_gpu_node},
    {"cuda-repository.pref.mustache", "/etc/apt/preferences.d/gpuctl-cuda.pref", 0644, FileCondition::apt_gpu_node},
    {"nccl.conf.mustache", "/etc/nccl.conf", 0644, FileCondition::gpu_node},
    {"slurm.conf.mustache", "/etc/slurm/slurm.conf", 0644, FileCondition::slurm_node},
    {"gres.conf.mustache", "/etc/slurm/gres.conf", 0644, FileCondition::slurm_node},
    {"cgroup.conf.mustache", "/etc/slurm/cgroup.conf", 0644, FileCondition::slurm_node},
    {"prometheus.yml.mustache", "/etc/prometheus/prometheus.yml", 0644, FileCondition::prometheus_node},
    {"gpu-alerts.yml.mustache", "/etc/prometheus/gpu-alerts.yml", 0644, FileCondition::prometheus_node},
    {"grafana-dashboard.json.mustache", "/etc/prometheus/gpuctl-grafana-dashboard.json", 0644, FileCondition::prometheus_node},
};

bool in_any_partition(const SlurmSettings& slurm, const std::string& name) {
  return std::ranges::any_of(slurm.partitions, [&name](const SlurmPartition& partition) {
    return std::ranges::find(partition.node_names, name) != partition.node_names.end();
  });
}

}  // namespace

std::span<const NodeFileSpec> node_file_table() { return k_node_files; }

bool node_receives(const Inventory& inventory, const Node& node, FileCondition condition) {
  const ClusterSettings& cluster = inventory.cluster;
  switch (condition) {
    case FileCondition::gpu_node: return node.gpu.count > 0;
    case FileCondition::apt_gpu_node: return node.gpu.count > 0 && cluster.os_family == "debian";
    case FileCondition::slurm_node:
      return cluster.slurm.enabled && (node.name == cluster.slurm.controller || node.gpu.count > 0 ||
                                       in_any_partition(cluster.slurm, node.name));
    case FileCondition::prometheus_node:
      return !cluster.monitoring.prometheus.empty() && node.name == cluster.monitoring.prometheus;
  }
  return false;
}

Result<std::vector<RenderedFile>> render_node_files(const Inventory& inventory, const Node& node,
                                                    const std::string& templates_dir) {
  std::vector<RenderedFile> files;
  for (const NodeFileSpec& spec : k_node_files) {
    if (!node_receives(inventory, node, spec.condition)) continue;
    const std::string template_name(spec.template_name);
    auto content = render_template_file(templates_dir, template_name, inventory, node);
    if (!content) return std::unexpected(std::move(content.error()));
    files.push_back(RenderedFile{template_name, std::string(spec.path), std::move(*content), spec.mode, false});
  }
  return files;
}

}  // namespace gpuctl
