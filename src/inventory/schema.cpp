// Decoding of the inventory schema (docs/inventory.md): which keys exist where, and their types.
// Node settings, groups and hosts here; the `cluster` section in schema_cluster.cpp.
#include "schema.hpp"

#include "formats.hpp"
#include "schema_fields.hpp"

#include <gpuctl/inventory/hostlist.hpp>
#include <gpuctl/inventory/slurm_hardware_keys.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace gpuctl::inventory_detail {
namespace {

using Keys = std::vector<std::string>;

const Keys k_top_keys{"cluster", "defaults", "groups", "hosts"};
const Keys k_group_keys{"hosts", "vars"};
const Keys k_settings_keys{"address", "port", "user", "become", "identity_file", "known_hosts",
                           "host_key_checking", "connect_timeout", "command_timeout", "connection",
                           "gpu", "ib_hcas", "ib", "rack", "pdu_capacity_watts", "labels", "containers"};
const Keys k_gpu_keys{"model", "count", "power_watts", "nvswitch", "max_temperature_c", "nvlink", "nccl_allreduce", "dcgm_diag"};
const Keys k_nvlink_keys{"connection", "links_per_gpu", "min_link_speed"};
const Keys k_nccl_allreduce_keys{"enabled", "min_busbw", "message_size", "iterations"};
const Keys k_dcgm_diag_keys{"enabled", "level", "replace_gpu_level"};
const Keys k_ib_keys{"rate", "link_layer", "gpudirect_rdma"};
const Keys k_containers_keys{"runtime", "cdi_only", "gpu_test_image", "kubernetes"};
const Keys k_container_runtimes{"containerd", "docker", "podman"};
const Keys k_kubernetes_keys{"mig_strategy"};
// The NVIDIA device plugin's and GPU Operator's MIG strategies (their `mig.strategy`).
const Keys k_mig_strategies{"none", "single", "mixed"};
// The link layers sysfs names (link_layer of /sys/class/infiniband/<hca>/ports/<n>): RoCE is Ethernet.
const Keys k_link_layers{"InfiniBand", "Ethernet"};
const Keys k_host_key_policies{"strict", "accept-new"};
const Keys k_connections{"ssh", "local"};

void decode_nvlink(Decoder& d, const YamlNode& node, std::string_view where, RawSettings& out) {
  auto view = d.map(node, fmt::format("'gpu.nvlink' of {}", where), k_nvlink_keys);
  if (!view) return;
  if (view->entries().empty()) d.error(node, "'gpu.nvlink' declares nothing", "set connection (e.g. NV18) or links_per_gpu");
  if (const auto* n = view->get("connection")) {
    auto text = d.string(*n, "'gpu.nvlink.connection'");
    const auto known = [](const std::string& t) {
      if (t == "PIX" || t == "PXB" || t == "PHB" || t == "NODE" || t == "SYS") return true;
      return t.size() > 2 && t.starts_with("NV") && std::ranges::all_of(t.substr(2), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (text && !known(*text))
      d.error(*n, fmt::format("'gpu.nvlink.connection' '{}' is not an entry of nvidia-smi topo -m", *text),
              "use NV<links> such as NV18, or PIX, PXB, PHB, NODE, SYS");
    else set(out.nvlink_connection, std::move(text), *n);
  }
  if (const auto* n = view->get("links_per_gpu"))
    set(out.nvlink_links_per_gpu, d.integer(*n, "'gpu.nvlink.links_per_gpu'", 1, 64), *n);
  if (const auto* n = view->get("min_link_speed"))
    set(out.nvlink_min_link_speed, positive_number(d, *n, "'gpu.nvlink.min_link_speed'"), *n);
}

void decode_nccl_allreduce(Decoder& d, const YamlNode& node, std::string_view where, RawSettings& out) {
  auto view = d.map(node, fmt::format("'gpu.nccl_allreduce' of {}", where), k_nccl_allreduce_keys);
  if (!view) return;
  // An empty map still declares the check: correctness only, with the default size.
  out.nccl_enabled.pos = {node.line, node.column};
  if (!out.nccl_enabled.value) out.nccl_enabled.value = true;
  if (const auto* n = view->get("enabled")) set(out.nccl_enabled, d.boolean(*n, "'gpu.nccl_allreduce.enabled'"), *n);
  if (const auto* n = view->get("min_busbw"))
    set(out.nccl_min_busbw, positive_number(d, *n, "'gpu.nccl_allreduce.min_busbw'"), *n);
  if (const auto* n = view->get("message_size"))
    set(out.nccl_message_bytes, byte_size(d, *n, "'gpu.nccl_allreduce.message_size'"), *n);
  if (const auto* n = view->get("iterations"))
    set(out.nccl_iterations, d.integer(*n, "'gpu.nccl_allreduce.iterations'", 1, 1000), *n);
}

// Like gpu.nccl_allreduce: an empty map declares the check (level 1). Level 4 (hours) is left out
// on purpose: verify is not the place for it.
void decode_dcgm_diag(Decoder& d, const YamlNode& node, std::string_view where, RawSettings& out) {
  auto view = d.map(node, fmt::format("'gpu.dcgm_diag' of {}", where), k_dcgm_diag_keys);
  if (!view) return;
  // Only replace_gpu_level: replace-gpu's setting alone, verify does not run the diagnostic.
  if (view->entries().empty() || view->get("enabled") || view->get("level")) {
    out.dcgm_enabled.pos = {node.line, node.column};
    if (!out.dcgm_enabled.value) out.dcgm_enabled.value = true;
  }
  if (const auto* n = view->get("enabled")) set(out.dcgm_enabled, d.boolean(*n, "'gpu.dcgm_diag.enabled'"), *n);
  if (const auto* n = view->get("level")) set(out.dcgm_level, d.integer(*n, "'gpu.dcgm_diag.level'", 1, 3), *n);
  if (const auto* n = view->get("replace_gpu_level"))
    set(out.dcgm_replace_gpu_level, d.integer(*n, "'gpu.dcgm_diag.replace_gpu_level'", 0, 3), *n);
}

void decode_gpu(Decoder& d, const YamlNode& node, std::string_view where, RawSettings& out) {
  auto view = d.map(node, fmt::format("'gpu' of {}", where), k_gpu_keys);
  if (!view) return;
  if (const auto* n = view->get("model")) set(out.gpu_model, checked(d, *n, "gpu.model", grammar::name), *n);
  if (const auto* n = view->get("count")) set(out.gpu_count, d.integer(*n, "'gpu.count'", 0, 64), *n);
  if (const auto* n = view->get("power_watts"))
    set(out.gpu_power_watts, d.integer(*n, "'gpu.power_watts'", 1, 10000), *n);
  if (const auto* n = view->get("nvswitch")) set(out.gpu_nvswitch, d.boolean(*n, "'gpu.nvswitch'"), *n);
  if (const auto* n = view->get("max_temperature_c"))
    set(out.gpu_max_temperature, d.integer(*n, "'gpu.max_temperature_c'", 20, 120), *n);
  if (const auto* n = view->get("nvlink")) decode_nvlink(d, *n, where, out);
  if (const auto* n = view->get("nccl_allreduce")) decode_nccl_allreduce(d, *n, where, out);
  if (const auto* n = view->get("dcgm_diag")) decode_dcgm_diag(d, *n, where, out);
}

void decode_ib(Decoder& d, const YamlNode& node, std::string_view where, RawSettings& out) {
  auto view = d.map(node, fmt::format("'ib' of {}", where), k_ib_keys);
  if (!view) return;
  if (view->entries().empty())
    d.error(node, "'ib' declares nothing", "set rate (e.g. 400 for NDR), link_layer or gpudirect_rdma");
  if (const auto* n = view->get("rate")) set(out.ib_rate, positive_number(d, *n, "'ib.rate'", "Gb/s, like 400 (NDR) or 200 (HDR)"), *n);
  if (const auto* n = view->get("link_layer")) set(out.ib_link_layer, d.choice(*n, "'ib.link_layer'", k_link_layers), *n);
  if (const auto* n = view->get("gpudirect_rdma")) set(out.ib_gpudirect_rdma, d.boolean(*n, "'ib.gpudirect_rdma'"), *n);
}

void decode_containers(Decoder& d, const YamlNode& node, std::string_view where, RawSettings& out) {
  auto view = d.map(node, fmt::format("'containers' of {}", where), k_containers_keys);
  if (!view) return;
  out.containers_pos = pos_of(node);
  if (const auto* n = view->get("runtime")) set(out.containers_runtime, d.choice(*n, "'containers.runtime'", k_container_runtimes), *n);
  if (const auto* n = view->get("cdi_only")) set(out.containers_cdi_only, d.boolean(*n, "'containers.cdi_only'"), *n);
  if (const auto* n = view->get("gpu_test_image"))
    set(out.containers_test_image, checked(d, *n, "containers.gpu_test_image", grammar::image_ref), *n);
  if (const auto* n = view->get("kubernetes")) {
    auto k = d.map(*n, "'containers.kubernetes'", k_kubernetes_keys);
    if (k && k->get("mig_strategy"))
      set(out.containers_mig_strategy, d.choice(*k->get("mig_strategy"), "'containers.kubernetes.mig_strategy'", k_mig_strategies),
          *k->get("mig_strategy"));
    else if (k)
      d.error(*n, "'containers.kubernetes' needs a 'mig_strategy'", "write mig_strategy: none (or single, mixed: the device plugin's)");
  }
}

// Each HCA is checked at its own position in the list.
void decode_hcas(Decoder& d, const YamlNode& node, RawSettings& out) {
  auto list = d.string_list(node, "'ib_hcas'");
  if (!list) return;
  bool ok = true;
  for (std::size_t i = 0; i < list->size(); ++i)
    ok = accepted(d, node.items[i], (*list)[i], "IB HCA", grammar::hca) && ok;
  if (ok) set(out.ib_hcas, std::move(list), node);
}

// Slurm's other names for two hardware keys gpuctl writes: both on one line contradict.
std::optional<std::string_view> hardware_alias(std::string_view option) {
  const auto key = util::to_lower(option);
  if (key == "sockets") return "SocketsPerBoard";
  if (key == "procs") return "CPUs";
  return std::nullopt;
}

bool positive_whole_number(std::string_view text) {
  return !text.empty() && text.size() <= 12 && text.front() != '0' &&
         std::ranges::all_of(text, [](char c) { return c >= '0' && c <= '9'; });
}

// Labels are free-form, except that "slurm.<Key>" labels become attributes of the node's
// slurm.conf NodeName line (src/template/context.cpp): those follow slurm.conf's grammar.
void decode_labels(Decoder& d, const YamlNode& node, const std::string& what, RawSettings& out) {
  constexpr std::string_view k_slurm_prefix = "slurm.";
  for (auto& entry : scalar_map(d, node, what)) {
    const auto error_at = [&](Pos pos, std::string message, std::string_view fix) {
      d.error_at(pos.line, pos.column, std::move(message), std::string(fix));
    };
    const bool slurm = entry.key.starts_with(k_slurm_prefix);
    const auto option = std::string_view(entry.key).substr(slurm ? k_slurm_prefix.size() : 0);
    if (auto why = grammar::label_key.check(entry.key)) {
      error_at(entry.key_pos, fmt::format("label name '{}' {}", entry.key, *why), grammar::label_key.fix);
    } else if (auto bad = slurm ? grammar::slurm_key.check(option) : std::nullopt) {
      error_at(entry.key_pos, fmt::format("label '{}' names the slurm.conf node attribute '{}', which {}", entry.key, option, *bad),
               grammar::slurm_key.fix);
    } else if (auto reserved = slurm ? reserved_slurm_key(option, k_slurm_node_keys) : std::nullopt) {
      error_at(entry.key_pos, fmt::format("label '{}' would set {} on the node's slurm.conf line, which gpuctl writes itself",
                                          entry.key, *reserved),
               "remove it: the node name, address and GPUs come from the host's settings");
    } else if (const auto alias = slurm ? hardware_alias(option) : std::nullopt) {
      error_at(entry.key_pos, fmt::format("label '{}' would contradict the {} gpuctl writes on the node's slurm.conf line",
                                          entry.key, *alias),
               fmt::format("pin slurm.{} instead (docs/slurm.md)", *alias));
    } else if (slurm && pinned_hardware_key(entry.key) && !positive_whole_number(entry.value)) {
      error_at(entry.value_pos, fmt::format("value '{}' of label '{}' is not a positive whole number", entry.value, entry.key),
               "pin a count, or RealMemory in MiB, e.g. slurm.RealMemory: \"1900000\"");
    } else if (auto why = (slurm ? grammar::slurm_value : grammar::label_value).check(entry.value)) {
      error_at(entry.value_pos, fmt::format("value '{}' of label '{}' {}", entry.value, entry.key, *why),
               (slurm ? grammar::slurm_value : grammar::label_value).fix);
    } else {
      out.labels[entry.key] = Field<std::string>{std::move(entry.value), entry.value_pos};
    }
  }
}

RawSettings decode_settings(Decoder& d, const YamlNode& node, const std::string& where) {
  RawSettings out;
  auto view = d.map(node, where, k_settings_keys);
  if (!view) return out;
  for (const auto& [key, key_node, value_node] : view->entries()) {
    const auto& v = *value_node;
    const auto what = fmt::format("'{}'", key);
    if (key == "address") set(out.address, checked(d, v, "address", grammar::address), v);
    else if (key == "user") set(out.user, checked(d, v, "user", grammar::user), v);
    else if (key == "identity_file") set(out.identity_file, checked(d, v, "identity_file", grammar::ssh_file), v);
    else if (key == "known_hosts") set(out.known_hosts, checked(d, v, "known_hosts", grammar::ssh_file), v);
    else if (key == "rack") set(out.rack, checked(d, v, "rack", grammar::name), v);
    else if (key == "port") set(out.port, d.integer(v, what, 1, 65535), v);
    else if (key == "connect_timeout") set(out.connect_timeout, d.integer(v, what, 1, 3600), v);
    else if (key == "command_timeout") set(out.command_timeout, d.integer(v, what, 1, 86400 * 7), v);
    else if (key == "pdu_capacity_watts") set(out.pdu_capacity_watts, d.integer(v, what, 1, 10000000), v);
    else if (key == "become") set(out.become, d.boolean(v, what), v);
    else if (key == "host_key_checking") {
      if (auto c = d.choice(v, what, k_host_key_policies))
        set(out.host_key_checking, std::optional(*c == "strict" ? HostKeyPolicy::strict : HostKeyPolicy::accept_new), v);
    } else if (key == "connection") {
      if (auto c = d.choice(v, what, k_connections))
        set(out.connection, std::optional(*c == "ssh" ? ConnectionKind::ssh : ConnectionKind::local), v);
    } else if (key == "gpu") {
      decode_gpu(d, v, where, out);
    } else if (key == "ib_hcas") {
      decode_hcas(d, v, out);
    } else if (key == "ib") {
      decode_ib(d, v, where, out);
    } else if (key == "containers") {
      decode_containers(d, v, where, out);
    } else if (key == "labels") {
      decode_labels(d, v, fmt::format("'labels' of {}", where), out);
    }
  }
  return out;
}

// All groups' hostlists together name at most this many hosts (each alone: hostlist's own
// bound): past it, a small inventory of many large groups would take gigabytes to expand.
constexpr std::size_t k_max_group_members = hostlist::k_max_expansion;

void decode_groups(Decoder& d, const YamlNode& node, RawInventory& raw) {
  auto view = d.map(node, "'groups'", {});
  if (!view) return;
  std::size_t members = 0;
  for (const auto& [name, key_node, value_node] : view->entries()) {
    if (!accepted(d, *key_node, name, "group name", grammar::name)) continue;
    RawGroup group;
    group.name = name;
    group.pos = pos_of(*key_node);
    const auto what = fmt::format("group '{}'", name);
    auto g = d.map(*value_node, what, k_group_keys);
    if (!g) continue;
    if (const auto* n = g->get("hosts")) {
      group.hosts_pos = pos_of(*n);
      if (auto text = d.string(*n, fmt::format("'hosts' of {}", what))) {
        group.hosts = *text;
        const std::size_t left = members < k_max_group_members ? k_max_group_members - members : 0;
        auto names = hostlist::expand(*text, left);
        if (names) {
          members += names->size();
          group.members = std::move(*names);
        } else if (left < k_max_group_members && names.error().message.starts_with("hostlist expands to more than")) {
          d.error_at(n->line, n->column,
                     fmt::format("{}'s hosts would take the inventory's groups past {} hosts in all", what,
                                 k_max_group_members),
                     "split the cluster into inventories of at most 100000 hosts");
        } else d.error_at(n->line, n->column + std::max(0, names.error().where.column - 1) + (n->quoted ? 1 : 0),
                        fmt::format("bad hostlist in {}: {}", what, names.error().message), names.error().hint);
      }
    } else {
      d.error(*key_node, fmt::format("{} has no 'hosts'", what), "add e.g. hosts: gpu[01-08]");
    }
    if (const auto* n = g->get("vars")) group.vars = decode_settings(d, *n, fmt::format("'vars' of {}", what));
    raw.groups.push_back(std::move(group));
  }
}

void decode_hosts(Decoder& d, const YamlNode& node, RawInventory& raw) {
  auto view = d.map(node, "'hosts'", {});
  if (!view) return;
  for (const auto& [name, key_node, value_node] : view->entries()) {
    RawHost host;
    host.name = name;
    host.pos = pos_of(*key_node);
    if (name.find('[') != std::string::npos) {
      d.error(*key_node, fmt::format("host name '{}' is a hostlist", name),
              "keys of 'hosts' are single names; put hostlists in a group's 'hosts'");
      continue;
    }
    // A host listed with no settings ("gpu09:") is declared with defaults only.
    if (!value_node->is_null()) host.settings = decode_settings(d, *value_node, fmt::format("host '{}'", name));
    raw.hosts.push_back(std::move(host));
  }
}

}  // namespace

RawInventory decode_inventory(const YamlNode& root, Decoder& d) {
  RawInventory raw;
  if (root.is_null()) {
    d.error_at(1, 1, "the inventory is empty", "start from docs/examples/cluster.yaml");
    return raw;
  }
  auto top = d.map(root, "the inventory", k_top_keys);
  if (!top) return raw;
  int groups_line = 0, hosts_line = 0;
  for (const auto& entry : top->entries()) {
    if (entry.key == "groups") groups_line = entry.key_node->line;
    if (entry.key == "hosts") hosts_line = entry.key_node->line;
  }
  raw.hosts_before_groups = hosts_line > 0 && groups_line > 0 && hosts_line < groups_line;
  if (const auto* n = top->get("cluster")) decode_cluster(d, *n, raw);
  else d.error(root, "the inventory has no 'cluster' section", "add cluster: {name: ...}");
  if (const auto* n = top->get("defaults")) raw.defaults = decode_settings(d, *n, "'defaults'");
  if (const auto* n = top->get("groups")) decode_groups(d, *n, raw);
  if (const auto* n = top->get("hosts")) decode_hosts(d, *n, raw);
  if (!top->get("groups") && !top->get("hosts"))
    d.error(root, "the inventory declares no hosts", "add a 'groups' or 'hosts' section");
  return raw;
}

}  // namespace gpuctl::inventory_detail
