#pragma once
// The inventory as written, before precedence: what decode_inventory() reads from the YAML
// tree, with the position of every value that later checks may need to point at.

#include "yaml/decoder.hpp"

#include <gpuctl/inventory/inventory.hpp>

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gpuctl::inventory_detail {

// The shared YAML front end (src/yaml/), by the names the inventory's decoding uses.
using yaml::Decoder;
using yaml::k_max_yaml_nodes;
using yaml::MapView;
using yaml::parse_yaml;
using yaml::YamlNode;

struct Pos {
  int line = 0;
  int column = 0;
};

template <typename T>
struct Field {
  std::optional<T> value;
  Pos pos;
};

// Node settings as one level (defaults, a group's vars, or a host) declares them.
struct RawSettings {
  Field<std::string> address, user, identity_file, known_hosts, rack;
  Field<int> port, connect_timeout, command_timeout, pdu_capacity_watts;
  Field<bool> become;
  Field<HostKeyPolicy> host_key_checking;
  Field<ConnectionKind> connection;
  Field<std::string> gpu_model;
  Field<int> gpu_count, gpu_power_watts;
  Field<bool> gpu_nvswitch;
  Field<int> gpu_max_temperature;
  // gpu.nvlink and gpu.nccl_allreduce, key by key like the rest of `gpu`.
  Field<std::string> nvlink_connection;
  Field<int> nvlink_links_per_gpu;
  Field<double> nvlink_min_link_speed;
  Field<bool> nccl_enabled;
  Field<double> nccl_min_busbw;
  Field<std::int64_t> nccl_message_bytes;
  Field<int> nccl_iterations;
  Field<bool> dcgm_enabled;
  Field<int> dcgm_level, dcgm_replace_gpu_level;
  Field<std::vector<std::string>> ib_hcas;
  // `ib`, key by key like `gpu`.
  Field<double> ib_rate;
  Field<std::string> ib_link_layer;
  Field<bool> ib_gpudirect_rdma;
  // `containers`, key by key like `gpu`.
  Field<std::string> containers_runtime, containers_test_image, containers_mig_strategy;
  Field<bool> containers_cdi_only;
  Pos containers_pos;  // the `containers` key of the level that declared it
  std::map<std::string, Field<std::string>> labels;
};

struct RawGroup {
  std::string name;
  Pos pos;
  std::string hosts;
  Pos hosts_pos;
  std::vector<std::string> members;  // expanded
  RawSettings vars;
};

struct RawHost {
  std::string name;
  Pos pos;
  RawSettings settings;
};

struct RawPartition {
  SlurmPartition partition;
  Pos pos;
  Pos nodes_pos;
  Pos default_pos;
};

struct RawInventory {
  ClusterSettings cluster;  // partitions are kept in `partitions` until resolved
  Pos cluster_pos;
  Pos controller_pos;
  Pos prometheus_pos;
  Pos nccl_ib_hca_pos;  // the value of cluster.nccl.NCCL_IB_HCA, for the lint about it
  Pos nccl_socket_ifname_pos;  // the value of cluster.nccl.NCCL_SOCKET_IFNAME, likewise
  std::vector<RawPartition> partitions;
  RawSettings defaults;
  std::vector<RawGroup> groups;
  std::vector<RawHost> hosts;
  bool hosts_before_groups = false;  // file order of the two sections, for node order
};

// Decodes the whole document; every problem becomes a diagnostic and decoding continues.
RawInventory decode_inventory(const YamlNode& root, Decoder& decoder);

}  // namespace gpuctl::inventory_detail
