#pragma once
// The example inventory (docs/examples/cluster.yaml) built in code, for template tests that
// must not depend on the YAML loader: one head node and eight 8x H100 nodes.

#include <gpuctl/inventory/inventory.hpp>

#include <string>

namespace gpuctl::testing {

inline Node make_node(std::string name, std::string address, std::string rack, std::string group, GpuSpec gpu) {
  Node node;
  node.name = std::move(name);
  node.groups = {std::move(group)};
  node.connection.address = std::move(address);
  node.rack = std::move(rack);
  node.gpu = std::move(gpu);
  return node;
}

inline Inventory example_inventory() {
  Inventory inventory;
  inventory.path = "cluster.yaml";
  ClusterSettings& cluster = inventory.cluster;
  cluster.name = "hopper";
  cluster.os_family = "debian";
  cluster.nvidia.driver_branch = "550";
  cluster.nvidia.driver_version = "550.127.08";
  cluster.nvidia.cuda_version = "12.4";
  cluster.nvidia.repository.url = "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/";
  cluster.nvidia.repository.key_url =
      "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/3bf863cc.pub";
  cluster.nvidia.repository.pin_priority = 600;
  cluster.nccl = {{"NCCL_SOCKET_IFNAME", "=bond0"},
                  {"NCCL_IB_HCA", "mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7"},
                  {"NCCL_NVLS_ENABLE", "0"},
                  {"NCCL_DEBUG", "WARN"}};
  cluster.slurm.enabled = true;
  cluster.slurm.controller = "head01";
  cluster.slurm.cluster_name = "hopper";
  cluster.slurm.health_check_interval_s = 300;
  std::vector<std::string> all_gpu, debug;
  for (int i = 1; i <= 8; ++i) all_gpu.push_back("gpu0" + std::to_string(i));
  debug = {"gpu07", "gpu08"};
  cluster.slurm.partitions = {
      SlurmPartition{"gpu", "gpu[01-08]", all_gpu, true, {{"MaxTime", "INFINITE"}, {"State", "UP"}}},
      SlurmPartition{"debug", "gpu[07-08]", debug, false, {{"MaxTime", "01:00:00"}}},
  };
  cluster.monitoring.prometheus = "head01";
  // As the loader attaches it: the package profile cluster.os and driver_source name.
  cluster.profile = load_profile(profile_name(cluster.os, cluster.nvidia.driver_source)).value();
  cluster.packages = resolve_packages(cluster.profile, {cluster.nvidia.driver_branch, cluster.nvidia.driver_version,
                                                        cluster.nvidia.cuda_version, cluster.nvidia.open_kernel_module})
                         .value();

  inventory.groups = {Group{"head", "head01", {"head01"}}, Group{"gpu", "gpu[01-08]", all_gpu}};
  inventory.nodes.push_back(make_node("head01", "10.10.0.1", "r0", "head", GpuSpec{"none", 0, std::nullopt}));
  for (int i = 1; i <= 8; ++i) {
    Node node = make_node(all_gpu[i - 1], "10.10.1." + std::to_string(i), i <= 4 ? "r1" : "r2", "gpu",
                          GpuSpec{"H100", 8, 700});
    for (int h = 0; h < 8; ++h) node.ib_hcas.push_back("mlx5_" + std::to_string(h));
    node.ib = IbSpec{400.0, "InfiniBand", true};
    node.pdu_capacity_watts = 57600;
    inventory.nodes.push_back(std::move(node));
  }
  return inventory;
}

}  // namespace gpuctl::testing
