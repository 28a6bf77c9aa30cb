// Decoding of the inventory schema (docs/inventory.md): which keys exist where, and their types.
#include "schema.hpp"

#include "names.hpp"

#include <gpuctl/inventory/hostlist.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace gpuctl::inventory_detail {
namespace {

using Keys = std::vector<std::string>;

const Keys k_top_keys{"cluster", "defaults", "groups", "hosts"};
const Keys k_cluster_keys{"name", "os_family", "nvidia", "nccl", "slurm", "monitoring"};
const Keys k_nvidia_keys{"driver_branch", "driver_version", "cuda", "open_kernel_module", "repository"};
const Keys k_repository_keys{"url", "key_url", "key_file", "pin_priority"};
const Keys k_slurm_keys{"controller", "cluster_name", "partitions", "options"};
const Keys k_partition_keys{"name", "nodes", "default", "options"};
const Keys k_monitoring_keys{"prometheus", "dcgm_exporter", "node_exporter", "ports"};
const Keys k_ports_keys{"dcgm_exporter", "node_exporter"};
const Keys k_group_keys{"hosts", "vars"};
const Keys k_settings_keys{"address", "port", "user", "become", "identity_file", "known_hosts",
                           "host_key_checking", "connect_timeout", "command_timeout", "connection",
                           "gpu", "ib_hcas", "rack", "pdu_capacity_watts", "labels"};
const Keys k_gpu_keys{"model", "count", "power_watts", "nvlink", "nccl_allreduce"};
const Keys k_nvlink_keys{"connection", "links_per_gpu", "min_link_speed"};
const Keys k_nccl_allreduce_keys{"enabled", "min_busbw", "message_size", "iterations"};
const Keys k_os_families{"debian", "rhel"};
const Keys k_host_key_policies{"strict", "accept-new"};
const Keys k_connections{"ssh", "local"};

Pos pos_of(const YamlNode& node) { return {node.line, node.column}; }

template <typename T>
void set(Field<T>& field, std::optional<T> value, const YamlNode& node) {
  if (!value) return;
  field.value = std::move(value);
  field.pos = pos_of(node);
}

// A string that must pass one of the names.hpp checks.
std::optional<std::string> checked(Decoder& d, const YamlNode& node, std::string_view what,
                                   std::optional<std::string> (*check)(std::string_view)) {
  auto text = d.string(node, fmt::format("'{}'", what));
  if (!text) return std::nullopt;
  if (auto why = check(*text)) {
    d.error(node, fmt::format("{} '{}' {}", what, *text, *why));
    return std::nullopt;
  }
  return text;
}

// A flat map of scalar values (labels, NCCL settings, Slurm options), values as text.
std::map<std::string, std::string> string_map(Decoder& d, const YamlNode& node, std::string_view what,
                                              std::map<std::string, Pos>* positions = nullptr) {
  std::map<std::string, std::string> out;
  auto view = d.map(node, what, {});
  if (!view) return out;
  for (const auto& entry : view->entries()) {
    if (auto text = d.string(*entry.value, fmt::format("'{}' in {}", entry.key, what))) {
      out[entry.key] = *text;
      if (positions) (*positions)[entry.key] = pos_of(*entry.value);
    }
  }
  return out;
}

// A positive decimal number (GB/s thresholds), integers accepted.
std::optional<double> positive_number(Decoder& d, const YamlNode& node, std::string_view what) {
  auto text = d.string(node, what);
  if (!text) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text->c_str(), &end);
  if (end != text->c_str() + text->size() || !(value > 0) || value > 1e6) {
    d.error(node, fmt::format("{} must be a positive number of GB/s, like 380 or 26.5 (got '{}')", what, *text));
    return std::nullopt;
  }
  return value;
}

// A size in bytes as nccl-tests' -b takes it: 1048576, 512K, 256M, 1G (binary multiples).
std::optional<std::int64_t> byte_size(Decoder& d, const YamlNode& node, std::string_view what) {
  auto text = d.string(node, what);
  if (!text) return std::nullopt;
  std::string digits = *text;
  std::int64_t unit = 1;
  if (!digits.empty() && std::string_view("KMG").find(static_cast<char>(std::toupper(digits.back()))) != std::string_view::npos) {
    unit = std::int64_t{1} << (10 * (1 + static_cast<int>(std::string_view("KMG").find(static_cast<char>(std::toupper(digits.back())))))) ;
    digits.pop_back();
  }
  const bool numeric = !digits.empty() && digits.size() <= 12 && std::ranges::all_of(digits, [](char c) { return c >= '0' && c <= '9'; });
  const std::int64_t bytes = numeric ? std::stoll(digits) * unit : 0;
  if (bytes < 4 || bytes > (std::int64_t{16} << 30)) {
    d.error(node, fmt::format("{} must be a size from 4 bytes to 16G, like 256M or 1G (got '{}')", what, *text));
    return std::nullopt;
  }
  return bytes;
}

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

void decode_gpu(Decoder& d, const YamlNode& node, std::string_view where, RawSettings& out) {
  auto view = d.map(node, fmt::format("'gpu' of {}", where), k_gpu_keys);
  if (!view) return;
  if (const auto* n = view->get("model")) set(out.gpu_model, checked(d, *n, "gpu.model", check_identifier), *n);
  if (const auto* n = view->get("count")) set(out.gpu_count, d.integer(*n, "'gpu.count'", 0, 64), *n);
  if (const auto* n = view->get("power_watts"))
    set(out.gpu_power_watts, d.integer(*n, "'gpu.power_watts'", 1, 10000), *n);
  if (const auto* n = view->get("nvlink")) decode_nvlink(d, *n, where, out);
  if (const auto* n = view->get("nccl_allreduce")) decode_nccl_allreduce(d, *n, where, out);
}

RawSettings decode_settings(Decoder& d, const YamlNode& node, const std::string& where) {
  RawSettings out;
  auto view = d.map(node, where, k_settings_keys);
  if (!view) return out;
  for (const auto& [key, key_node, value_node] : view->entries()) {
    const auto& v = *value_node;
    const auto what = fmt::format("'{}'", key);
    if (key == "address") set(out.address, checked(d, v, "address", check_address), v);
    else if (key == "user") set(out.user, checked(d, v, "user", check_user), v);
    else if (key == "identity_file") set(out.identity_file, checked(d, v, "identity_file", check_path), v);
    else if (key == "known_hosts") set(out.known_hosts, checked(d, v, "known_hosts", check_path), v);
    else if (key == "rack") set(out.rack, checked(d, v, "rack", check_identifier), v);
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
      auto list = d.string_list(v, what);
      if (list) {
        // Every bad name is reported; the list is dropped after the loop, not while it runs.
        bool valid = true;
        for (const auto& hca : *list)
          if (auto why = check_identifier(hca)) d.error(v, fmt::format("IB HCA '{}' {}", hca, *why)), valid = false;
        if (valid) set(out.ib_hcas, std::move(list), v);
      }
    } else if (key == "labels") {
      std::map<std::string, Pos> positions;
      for (auto& [name, text] : string_map(d, v, fmt::format("'labels' of {}", where), &positions)) {
        if (auto why = check_identifier(name)) {
          d.error_at(positions[name].line, positions[name].column, fmt::format("label name '{}' {}", name, *why));
          continue;
        }
        out.labels[name] = Field<std::string>{text, positions[name]};
      }
    }
  }
  return out;
}

void decode_nvidia(Decoder& d, const YamlNode& node, NvidiaSettings& out) {
  auto view = d.map(node, "'cluster.nvidia'", k_nvidia_keys);
  if (!view) return;
  if (const auto* n = view->get("driver_branch")) out.driver_branch = d.version(*n, "'driver_branch'").value_or("");
  if (const auto* n = view->get("driver_version")) out.driver_version = d.version(*n, "'driver_version'").value_or("");
  if (const auto* n = view->get("cuda")) out.cuda_version = d.version(*n, "'cuda'").value_or("");
  if (const auto* n = view->get("open_kernel_module"))
    out.open_kernel_module = d.boolean(*n, "'open_kernel_module'").value_or(out.open_kernel_module);
  if (!out.driver_branch.empty() && !out.driver_version.empty() &&
      !out.driver_version.starts_with(out.driver_branch + "."))
    d.error(*view->get("driver_version"),
            fmt::format("driver_version '{}' is not of driver_branch '{}'", out.driver_version, out.driver_branch),
            fmt::format("a {} driver version looks like {}.x.y", out.driver_branch, out.driver_branch));
  const auto* repo = view->get("repository");
  if (!repo) return;
  auto r = d.map(*repo, "'cluster.nvidia.repository'", k_repository_keys);
  if (!r) return;
  auto& rs = out.repository;
  if (const auto* n = r->get("url")) {
    rs.url = d.string(*n, "'repository.url'").value_or("");
    if (!rs.url.empty() && !rs.url.starts_with("http://") && !rs.url.starts_with("https://") &&
        !rs.url.starts_with("file:/"))
      d.error(*n, fmt::format("'repository.url' must start with https://, http:// or file:/, not '{}'", rs.url));
    else if (auto why = check_path(rs.url); why && !rs.url.empty())
      d.error(*n, fmt::format("'repository.url' {}", *why));
  } else {
    d.error(*repo, "'cluster.nvidia.repository' needs a 'url'");
  }
  if (const auto* n = r->get("key_url")) rs.key_url = checked(d, *n, "key_url", check_path).value_or("");
  if (const auto* n = r->get("key_file")) rs.key_file = checked(d, *n, "key_file", check_path).value_or("");
  if (r->get("key_url") && r->get("key_file"))
    d.error(*r->get("key_file"), "give either 'key_url' or 'key_file' for the repository, not both");
  if (const auto* n = r->get("pin_priority")) rs.pin_priority = d.integer(*n, "'pin_priority'", -1000, 1001).value_or(600);
}

void decode_slurm(Decoder& d, const YamlNode& node, RawInventory& raw) {
  auto view = d.map(node, "'cluster.slurm'", k_slurm_keys);
  if (!view) return;
  auto& slurm = raw.cluster.slurm;
  slurm.enabled = true;
  if (const auto* n = view->get("controller")) {
    slurm.controller = d.string(*n, "'slurm.controller'").value_or("");
    raw.controller_pos = pos_of(*n);
  }
  if (const auto* n = view->get("cluster_name"))
    slurm.cluster_name = checked(d, *n, "slurm.cluster_name", check_identifier).value_or("");
  if (const auto* n = view->get("options")) slurm.options = string_map(d, *n, "'slurm.options'");
  const auto* parts = view->get("partitions");
  if (!parts) return;
  if (!parts->is_sequence()) {
    d.error(*parts, "'slurm.partitions' must be a list of partitions", "write '- name: gpu' items");
    return;
  }
  for (const auto& item : parts->items) {
    auto p = d.map(item, "a Slurm partition", k_partition_keys);
    if (!p) continue;
    RawPartition rp;
    rp.pos = pos_of(item);
    if (const auto* n = p->get("name")) rp.partition.name = checked(d, *n, "partition name", check_identifier).value_or("");
    else d.error(item, "a Slurm partition needs a 'name'");
    const auto what = fmt::format("partition '{}'", rp.partition.name);
    if (const auto* n = p->get("nodes")) {
      rp.nodes_pos = pos_of(*n);
      if (auto text = d.string(*n, fmt::format("'nodes' of {}", what))) {
        rp.partition.nodes = *text;
        auto names = hostlist::expand(*text);
        if (names) rp.partition.node_names = std::move(*names);
        else d.error_at(n->line, n->column + std::max(0, names.error().where.column - 1) + (n->quoted ? 1 : 0),
                        fmt::format("bad hostlist in 'nodes' of {}: {}", what, names.error().message), names.error().hint);
      }
    } else {
      d.error(item, fmt::format("{} needs 'nodes'", what), "a hostlist, e.g. gpu[01-08]");
    }
    if (const auto* n = p->get("default")) {
      rp.partition.is_default = d.boolean(*n, "'default'").value_or(false);
      rp.default_pos = pos_of(*n);
    }
    if (const auto* n = p->get("options")) rp.partition.options = string_map(d, *n, fmt::format("'options' of {}", what));
    raw.partitions.push_back(std::move(rp));
  }
}

void decode_monitoring(Decoder& d, const YamlNode& node, RawInventory& raw) {
  auto view = d.map(node, "'cluster.monitoring'", k_monitoring_keys);
  if (!view) return;
  auto& m = raw.cluster.monitoring;
  if (const auto* n = view->get("prometheus")) {
    m.prometheus = d.string(*n, "'monitoring.prometheus'").value_or("");
    raw.prometheus_pos = pos_of(*n);
  }
  if (const auto* n = view->get("dcgm_exporter")) m.dcgm_exporter = d.boolean(*n, "'dcgm_exporter'").value_or(true);
  if (const auto* n = view->get("node_exporter")) m.node_exporter = d.boolean(*n, "'node_exporter'").value_or(true);
  if (const auto* n = view->get("ports")) {
    if (auto ports = d.map(*n, "'monitoring.ports'", k_ports_keys)) {
      if (const auto* p = ports->get("dcgm_exporter")) m.dcgm_exporter_port = d.integer(*p, "'ports.dcgm_exporter'", 1, 65535).value_or(9400);
      if (const auto* p = ports->get("node_exporter")) m.node_exporter_port = d.integer(*p, "'ports.node_exporter'", 1, 65535).value_or(9100);
    }
  }
}

void decode_cluster(Decoder& d, const YamlNode& node, RawInventory& raw) {
  raw.cluster_pos = pos_of(node);
  auto view = d.map(node, "'cluster'", k_cluster_keys);
  if (!view) return;
  auto& c = raw.cluster;
  if (const auto* n = view->get("name")) c.name = checked(d, *n, "cluster name", check_identifier).value_or("");
  else d.error(node, "'cluster' needs a 'name'");
  if (const auto* n = view->get("os_family")) c.os_family = d.choice(*n, "'os_family'", k_os_families).value_or("debian");
  if (const auto* n = view->get("nvidia")) decode_nvidia(d, *n, c.nvidia);
  if (const auto* n = view->get("nccl")) {
    std::map<std::string, Pos> positions;
    c.nccl = string_map(d, *n, "'cluster.nccl'", &positions);
    for (auto it = c.nccl.begin(); it != c.nccl.end();) {
      if (!it->first.starts_with("NCCL_")) {
        const auto& key = *std::ranges::find_if(n->entries, [&](const auto& e) { return e.first.value == it->first; });
        d.error(key.first, fmt::format("'{}' in 'cluster.nccl' is not an NCCL setting", it->first),
                fmt::format("NCCL settings start with NCCL_, e.g. NCCL_{}", it->first));
        it = c.nccl.erase(it);
      } else if (auto why = check_path(it->second); why || it->second.find('\n') != std::string::npos) {
        d.error_at(positions[it->first].line, positions[it->first].column,
                   fmt::format("value of '{}' {}", it->first, why.value_or("contains a line break")));
        it = c.nccl.erase(it);
      } else {
        ++it;
      }
    }
  }
  if (const auto* n = view->get("slurm")) decode_slurm(d, *n, raw);
  if (const auto* n = view->get("monitoring")) decode_monitoring(d, *n, raw);
}

void decode_groups(Decoder& d, const YamlNode& node, RawInventory& raw) {
  auto view = d.map(node, "'groups'", {});
  if (!view) return;
  for (const auto& [name, key_node, value_node] : view->entries()) {
    if (auto why = check_identifier(name)) {
      d.error(*key_node, fmt::format("group name '{}' {}", name, *why));
      continue;
    }
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
        auto names = hostlist::expand(*text);
        if (names) group.members = std::move(*names);
        else d.error_at(n->line, n->column + std::max(0, names.error().where.column - 1) + (n->quoted ? 1 : 0),
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
