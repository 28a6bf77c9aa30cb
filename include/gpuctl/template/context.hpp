#pragma once
// The data a template sees for one node, as a small tree of strings, booleans, lists and
// objects. Built from the resolved inventory; pure, no I/O. The Mustache adapter converts it
// to its own type, so no third-party type appears here.
//
// Names available to templates (docs/templates.md lists them with examples):
//   gpuctl.managed_by                 the "managed by gpuctl" notice (no comment marker)
//   cluster.name, cluster.os_family
//   node.name, node.address, node.url_address (IPv6 in brackets, for host:port), node.rack,
//   node.groups[].name, node.is_gpu_node,
//   node.gpu.{model,type,count,max_index,has_power_watts,power_watts},
//   node.ib_hcas[].name, node.ib_hcas_csv, node.labels.<key>, node.label_list[].{key,value}
//   nvidia.{driver_branch,driver_version,cuda,open_kernel_module},
//   nvidia.repository.{url,host,key_url,key_file,key_path,pin_priority}
//   nccl[].{key,value}
//   slurm.{enabled,controller,controller_address,cluster_name},
//   slurm.settings[].{key,value}   (gpuctl's defaults overridden/extended by slurm.options)
//   slurm.node_groups[].{nodes,has_addresses,addresses (NodeAddr),has_gpus,gpu_type,gpu_count,
//                        gpu_files,hardware[].{key,value} (CPUs.. RealMemory),options[].{key,value},
//                        gres[].{file,has_cores,cores} (one per GPU where Cores= is known, else
//                        one for all: gres.conf)},
//   slurm.partitions[].{name,nodes,default,options[].{key,value}}
//   monitoring.{prometheus,dcgm_exporter,node_exporter,dcgm_exporter_port,node_exporter_port},
//   monitoring.node_exporter_targets[] / dcgm_exporter_targets[] .{target,node,has_rack,rack}
// An inventory value that is empty is left out of the tree, so a template that needs it
// fails with a "missing variable" error instead of rendering an empty string.
//
// This is the one derived view of a node: playbook variables (playbook/variables.hpp) are
// its `node` part flattened (flatten_scalars) plus the same cluster-wide names, so a name
// means the same thing in a template and in a playbook.

#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/template/slurm_hardware.hpp>

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuctl {

class TemplateValue {
 public:
  enum class Kind { string, boolean, list, object };
  using List = std::vector<TemplateValue>;
  // Insertion-ordered; a vector because std::map of an incomplete type is not portable.
  using Object = std::vector<std::pair<std::string, TemplateValue>>;

  TemplateValue() : m_kind(Kind::object) {}
  TemplateValue(std::string text) : m_kind(Kind::string), m_string(std::move(text)) {}
  TemplateValue(const char* text) : TemplateValue(std::string(text)) {}
  TemplateValue(bool flag) : m_kind(Kind::boolean), m_bool(flag) {}
  TemplateValue(int number) : TemplateValue(std::to_string(number)) {}
  TemplateValue(List list) : m_kind(Kind::list), m_list(std::move(list)) {}

  Kind kind() const { return m_kind; }
  const std::string& as_string() const { return m_string; }
  bool as_bool() const { return m_bool; }
  const List& as_list() const { return m_list; }
  const Object& as_object() const { return m_object; }

  // Mustache truthiness: false and empty lists are falsy, everything else truthy.
  bool is_falsy() const;

  // Object member by name, or nullptr (also for non-objects).
  const TemplateValue* find(std::string_view key) const;
  // Object member, inserted when absent. The value must be an object.
  TemplateValue& operator[](std::string_view key);
  // Appends to a list. The value must be a list.
  void push_back(TemplateValue item) { m_list.push_back(std::move(item)); }

  static TemplateValue list() { return TemplateValue(List{}); }

 private:
  Kind m_kind;
  std::string m_string;
  bool m_bool = false;
  List m_list;
  Object m_object;
};

// Builds the context of `node` (which must belong to `inventory`). Never fails: absent
// inventory values are simply absent names.
TemplateValue build_template_context(const Inventory& inventory, const Node& node);

// The part of every node's context that depends on the inventory only (cluster, nvidia, nccl,
// slurm, monitoring). Its Slurm node groups and scrape targets cover every node, so building it
// once per run instead of once per render keeps a run linear in the node count. `hardware`
// gives each Slurm node's CPUs, memory and GPU cores (null or a node missing: none written).
TemplateValue build_cluster_context(const Inventory& inventory, const SlurmHardwareTable* hardware = nullptr);

// The nodes slurm.conf declares: every node of a partition, else every GPU node.
std::vector<const Node*> slurm_compute_nodes(const Inventory& inventory);
// The node's own part of its context: an object holding `node` only. Its names never clash
// with build_cluster_context's, so a renderer may look names up in the two in turn instead of
// copying the cluster part into every node's context (build_template_context is the two merged).
TemplateValue build_node_context(const Node& node);

// Where the CUDA repository's signing key lives on a node; the apt source's signed-by points
// here. ".asc" for an armored key (key ending .asc or .pub), ".gpg" otherwise.
std::string cuda_key_path(const RepositorySettings& repository);

// The address gpuctl reaches `node` on: its `address`, else its name.
std::string node_address(const Node& node);
// An address as the host part of "host:port": IPv6 literals go in brackets.
std::string url_address(const std::string& address);

// The Slurm ClusterName: slurm.cluster_name, else the cluster's name.
std::string slurm_cluster_name(const Inventory& inventory);

// Every string and boolean of `value` under its dotted name ("node.gpu.count" -> "8"; booleans
// as "true"/"false"), prefixed by `prefix` when not empty; lists are left out. Adds to `out`.
void flatten_scalars(const TemplateValue& value, const std::string& prefix,
                     std::map<std::string, std::string>& out);

// The host part of a URL ("https://mirror.example:8443/x" -> "mirror.example"); empty if none.
std::string url_host(std::string_view url);

}  // namespace gpuctl
