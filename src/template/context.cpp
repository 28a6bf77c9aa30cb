// Builds the template context of one node from the resolved inventory (names documented in
// include/gpuctl/template/context.hpp).
#include <gpuctl/inventory/hostlist.hpp>
#include <gpuctl/template/context.hpp>
#include <gpuctl/monitoring/dcgm_exporter_fields.hpp>
#include <gpuctl/health/policy.hpp>
#include <gpuctl/health/xid_catalog.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace gpuctl {

bool TemplateValue::is_falsy() const {
  if (m_kind == Kind::boolean) return !m_bool;
  if (m_kind == Kind::list) return m_list.empty();
  return false;
}

const TemplateValue* TemplateValue::find(std::string_view key) const {
  if (m_kind != Kind::object) return nullptr;
  for (const auto& [name, value] : m_object)
    if (name == key) return &value;
  return nullptr;
}

TemplateValue& TemplateValue::operator[](std::string_view key) {
  for (auto& [name, value] : m_object)
    if (name == key) return value;
  m_object.emplace_back(std::string(key), TemplateValue());
  return m_object.back().second;
}

std::string url_host(std::string_view url) {
  const auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  auto rest = url.substr(scheme + 3);
  rest = rest.substr(0, rest.find_first_of("/?#"));
  if (const auto at = rest.rfind('@'); at != std::string_view::npos) rest = rest.substr(at + 1);
  if (!rest.empty() && rest.front() == '[') return std::string(rest.substr(0, rest.find(']') + 1));
  return std::string(rest.substr(0, rest.find(':')));
}

std::string cuda_key_path(const RepositorySettings& repository) {
  const std::string& source = repository.key_file.empty() ? repository.key_url : repository.key_file;
  const bool armored = source.ends_with(".asc") || source.ends_with(".pub");
  return armored ? "/etc/apt/keyrings/gpuctl-cuda.asc" : "/etc/apt/keyrings/gpuctl-cuda.gpg";
}

std::string url_address(const std::string& address) {
  return address.find(':') == std::string::npos ? address : "[" + address + "]";
}

std::string node_address(const Node& node) {
  return node.connection.address.empty() ? node.name : node.connection.address;
}

std::string slurm_cluster_name(const Inventory& inventory) {
  const auto& slurm = inventory.cluster.slurm;
  return slurm.cluster_name.empty() ? inventory.cluster.name : slurm.cluster_name;
}

void flatten_scalars(const TemplateValue& value, const std::string& prefix,
                     std::map<std::string, std::string>& out) {
  switch (value.kind()) {
    case TemplateValue::Kind::string: out[prefix] = value.as_string(); break;
    case TemplateValue::Kind::boolean: out[prefix] = value.as_bool() ? "true" : "false"; break;
    case TemplateValue::Kind::list: break;
    case TemplateValue::Kind::object:
      for (const auto& [name, member] : value.as_object())
        flatten_scalars(member, prefix.empty() ? name : prefix + "." + name, out);
      break;
  }
}

namespace {

constexpr std::string_view k_managed_by = "managed by gpuctl: local edits are overwritten on the next apply";
// Node labels with this prefix become attributes of the node's slurm.conf NodeName line.
constexpr std::string_view k_slurm_label_prefix = "slurm.";

// Sets `key` only when `text` is non-empty, so templates fail loudly on absent values.
void set_if(TemplateValue& object, std::string_view key, const std::string& text) {
  if (!text.empty()) object[key] = text;
}

TemplateValue key_values(const std::map<std::string, std::string>& entries) {
  auto list = TemplateValue::list();
  for (const auto& [key, value] : entries) {
    TemplateValue entry;
    entry["key"] = key;
    entry["value"] = value;
    list.push_back(std::move(entry));
  }
  return list;
}

bool is_gpu_node(const Node& node) { return node.gpu.count > 0; }
std::string gpu_type(const Node& node) { return util::to_lower(node.gpu.model); }

std::string address_of(const Node& node) { return node_address(node); }

// slurm.conf's NodeAddr for the nodes `expression` names, in the order Slurm expands it (Slurm
// pairs the two lists name by name; expand() gives that order for every compress_for_slurm
// form). Folded like the names when that keeps the order, e.g. "10.10.1.[1-8]", else
// comma-separated. Empty when every address is the node's name.
std::string slurm_node_addresses(const std::string& expression, const std::map<std::string, std::string>& address_by_name) {
  const auto names = hostlist::expand(expression);
  if (!names) return {};
  std::vector<std::string> addresses;
  bool all_names = true;
  for (const auto& name : *names) {
    const auto it = address_by_name.find(name);
    addresses.push_back(it == address_by_name.end() ? name : it->second);
    all_names = all_names && addresses.back() == name;
  }
  if (all_names) return {};
  const auto folded = hostlist::compress_for_slurm(addresses);
  const auto unfolded = hostlist::expand(folded);
  return unfolded && *unfolded == addresses ? folded : util::join(addresses, ",");
}

// "/dev/nvidia0" or "/dev/nvidia[0-7]".
std::string gpu_device_files(int count) {
  if (count <= 1) return "/dev/nvidia0";
  return "/dev/nvidia[0-" + std::to_string(count - 1) + "]";
}

// The node's slurm.<Key> labels but the hardware pins, which come with the hardware values.
std::map<std::string, std::string> slurm_node_options(const Node& node) {
  std::map<std::string, std::string> options;
  for (const auto& [key, value] : node.labels)
    if (key.starts_with(k_slurm_label_prefix) && key.size() > k_slurm_label_prefix.size() && !pinned_hardware_key(key))
      options[key.substr(k_slurm_label_prefix.size())] = value;
  return options;
}

TemplateValue node_value(const Node& node) {
  TemplateValue value;
  value["name"] = node.name;
  value["address"] = address_of(node);
  value["url_address"] = url_address(address_of(node));
  set_if(value, "rack", node.rack);
  auto groups = TemplateValue::list();
  for (const auto& group : node.groups) {
    TemplateValue entry;
    entry["name"] = group;
    groups.push_back(std::move(entry));
  }
  value["groups"] = std::move(groups);
  value["is_gpu_node"] = is_gpu_node(node);
  TemplateValue& gpu = value["gpu"];
  set_if(gpu, "model", node.gpu.model);
  set_if(gpu, "type", gpu_type(node));
  gpu["count"] = node.gpu.count;
  gpu["max_index"] = std::max(node.gpu.count - 1, 0);
  gpu["has_power_watts"] = node.gpu.power_watts.has_value();
  gpu["nvswitch"] = has_nvswitch(node.gpu);
  if (node.gpu.power_watts) gpu["power_watts"] = *node.gpu.power_watts;
  auto hcas = TemplateValue::list();
  for (const auto& hca : node.ib_hcas) {
    TemplateValue entry;
    entry["name"] = hca;
    hcas.push_back(std::move(entry));
  }
  value["ib_hcas"] = std::move(hcas);
  value["ib_hcas_csv"] = util::join(node.ib_hcas, ",");
  // Always there, so `when: node.ib.gpudirect_rdma` reads false on a node without `ib`.
  TemplateValue& ib = value["ib"];
  ib["gpudirect_rdma"] = node.ib && node.ib->gpudirect_rdma;
  set_if(ib, "link_layer", node.ib ? node.ib->link_layer : std::string());
  // Always there, like `ib`: `when: node.containers.runtime` is empty on a node without containers.
  TemplateValue& containers = value["containers"];
  containers["cdi_only"] = node.containers && node.containers->cdi_only;
  containers["kubernetes"] = node.containers && !node.containers->kubernetes_mig_strategy.empty();
  const std::string runtime = node.containers ? node.containers->runtime : std::string();
  set_if(containers, "runtime", runtime);
  set_if(containers, "runtime_package", runtime.empty() ? std::string() : container_runtime_package(runtime));
  set_if(containers, "runtime_service", runtime.empty() ? std::string() : container_runtime_service(runtime));
  TemplateValue& labels = value["labels"];
  for (const auto& [key, text] : node.labels) labels[key] = text;
  value["label_list"] = key_values(node.labels);
  return value;
}

TemplateValue nvidia_value(const NvidiaSettings& nvidia) {
  TemplateValue value;
  set_if(value, "driver_branch", nvidia.driver_branch);
  set_if(value, "driver_version", nvidia.driver_version);
  // The inventory's key and the playbook variable are both `nvidia.cuda`: one name.
  set_if(value, "cuda", nvidia.cuda_version);
  value["open_kernel_module"] = nvidia.open_kernel_module;
  set_if(value, "driver_source", nvidia.driver_source);
  set_if(value, "unpackaged_driver", nvidia.unpackaged_driver);
  TemplateValue& repository = value["repository"];
  set_if(repository, "existing", nvidia.repository.existing);
  set_if(repository, "url", nvidia.repository.url);
  set_if(repository, "host", url_host(nvidia.repository.url));
  // apt gives local (file:) repositories an empty origin; a host name never matches them.
  const auto host = url_host(nvidia.repository.url);
  repository["pin"] = host.empty() ? std::string("origin \"\"") : "origin " + host;
  set_if(repository, "key_url", nvidia.repository.key_url);
  set_if(repository, "key_file", nvidia.repository.key_file);
  if (!nvidia.repository.key_url.empty() || !nvidia.repository.key_file.empty())
    repository["key_path"] = cuda_key_path(nvidia.repository);
  repository["pin_priority"] = nvidia.repository.pin_priority;
  return value;
}

// slurm.conf lines besides the nodes and partitions: GPU scheduling through cgroups. The
// inventory's slurm.options override a default in place or add a line; Slurm would
// otherwise see the same key twice.
constexpr std::pair<std::string_view, std::string_view> k_slurm_defaults[] = {
    {"AuthType", "auth/munge"},
    {"SlurmUser", "slurm"},
    {"GresTypes", "gpu"},
    {"ProctrackType", "proctrack/cgroup"},
    {"TaskPlugin", "task/cgroup,task/affinity"},
    {"SelectType", "select/cons_tres"},
    {"SelectTypeParameters", "CR_Core_Memory"},
    {"ReturnToService", "2"},
    {"StateSaveLocation", "/var/lib/slurm/slurmctld"},
    {"SlurmdSpoolDir", "/var/lib/slurm/slurmd"},
    {"SlurmctldPidFile", "/run/slurmctld.pid"},
    {"SlurmdPidFile", "/run/slurmd.pid"},
    {"SlurmctldLogFile", "/var/log/slurm/slurmctld.log"},
    {"SlurmdLogFile", "/var/log/slurm/slurmd.log"},
    // No CommunicationParameters=NoInAddrAny: it binds srun too, to the address its host name
    // resolves to (127.0.1.1 in Debian's /etc/hosts), while slurmstepd connects back to the
    // address srun's requests came from. Interactive steps then fail ("connect io: Connection
    // refused") wherever the two differ.
};

// Where the gpu-node playbook installs the health program (templates/gpuctl-health-check.mustache).
constexpr std::string_view k_health_check_program = "/usr/local/sbin/gpuctl-health-check";

TemplateValue slurm_settings(const std::map<std::string, std::string>& options) {
  auto list = TemplateValue::list();
  std::set<std::string> used;
  const auto add = [&list](std::string key, std::string value) {
    TemplateValue entry;
    entry["key"] = std::move(key);
    entry["value"] = std::move(value);
    list.push_back(std::move(entry));
  };
  for (const auto& [key, fallback] : k_slurm_defaults) {
    const auto it = options.find(std::string(key));
    if (it != options.end()) used.insert(it->first);
    add(std::string(key), it != options.end() ? it->second : std::string(fallback));
  }
  for (const auto& [key, value] : options)
    if (!used.contains(key)) add(key, value);
  return list;
}

// gres.conf's lines of a node set: one per GPU with its Cores= where they are known, else one
// for all its GPUs.
TemplateValue gres_lines(int count, const SlurmNodeHardware* hardware) {
  auto list = TemplateValue::list();
  const bool per_gpu = hardware && static_cast<int>(hardware->gpu_cores.size()) == count;
  for (int i = 0; i < (per_gpu ? count : 1); ++i) {
    TemplateValue line;
    line["file"] = per_gpu ? "/dev/nvidia" + std::to_string(i) : gpu_device_files(count);
    line["has_cores"] = per_gpu;
    if (per_gpu) line["cores"] = hardware->gpu_cores[static_cast<std::size_t>(i)];
    list.push_back(std::move(line));
  }
  return list;
}

// What makes two Slurm nodes one NodeName line.
struct NodeLineKey {
  std::string type;
  int count = 0;
  std::map<std::string, std::string> options;
  SlurmNodeHardware hardware;  // the values; their sources are the plan's to show
};

bool operator==(const NodeLineKey& a, const NodeLineKey& b) {
  return a.type == b.type && a.count == b.count && a.options == b.options && a.hardware == b.hardware;
}

// One entry per set of identical hardware, so slurm.conf and gres.conf stay one line per
// hardware kind however many nodes there are. Ordered by the first node of each set.
TemplateValue slurm_node_groups(const Inventory& inventory, const SlurmHardwareTable* table) {
  using Key = NodeLineKey;
  std::vector<std::pair<Key, std::vector<std::string>>> groups;
  std::map<std::string, std::string> address_by_name;
  for (const Node* node : slurm_compute_nodes(inventory)) {
    address_by_name[node->name] = address_of(*node);
    Key key{is_gpu_node(*node) ? gpu_type(*node) : "", node->gpu.count, slurm_node_options(*node), {}};
    if (table)
      if (const auto it = table->find(node->name); it != table->end()) {
        key.hardware = it->second;
        for (auto& value : key.hardware.values) value.source.clear();
        key.hardware.gpu_cores_source.clear();
      }
    auto it = std::ranges::find(groups, key, &std::pair<Key, std::vector<std::string>>::first);
    if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
    it->second.push_back(node->name);
  }
  auto list = TemplateValue::list();
  for (const auto& [key, names] : groups) {
    TemplateValue entry;
    const auto expression = hostlist::compress_for_slurm(names);
    entry["nodes"] = expression;
    // slurmctld reaches each slurmd at the address gpuctl reaches the node on: node names
    // need not resolve (they do not in the sandbox), and slurmd binds it (CommunicationParameters).
    const auto addresses = slurm_node_addresses(expression, address_by_name);
    entry["has_addresses"] = !addresses.empty();
    set_if(entry, "addresses", addresses);
    entry["has_gpus"] = key.count > 0;
    if (key.count > 0) {
      set_if(entry, "gpu_type", key.type);
      entry["gpu_count"] = key.count;
      entry["gpu_files"] = gpu_device_files(key.count);
      entry["gres"] = gres_lines(key.count, &key.hardware);
    }
    auto hardware = TemplateValue::list();
    for (const auto& value : key.hardware.values) {
      TemplateValue item;
      item["key"] = value.key;
      item["value"] = std::to_string(value.value);
      hardware.push_back(std::move(item));
    }
    entry["hardware"] = std::move(hardware);
    entry["options"] = key_values(key.options);
    list.push_back(std::move(entry));
  }
  return list;
}

TemplateValue slurm_value(const Inventory& inventory, const SlurmHardwareTable* hardware) {
  const SlurmSettings& slurm = inventory.cluster.slurm;
  TemplateValue value;
  value["enabled"] = slurm.enabled;
  set_if(value, "controller", slurm.controller);
  // A linear search rather than Inventory::find_node keeps this file free of the loader.
  const auto controller = std::ranges::find(inventory.nodes, slurm.controller, &Node::name);
  if (controller != inventory.nodes.end()) value["controller_address"] = address_of(*controller);
  set_if(value, "cluster_name", slurm_cluster_name(inventory));
  // gpuctl's node health program (docs/remediation.md): every interval, in every node state.
  auto options = slurm.options;
  if (slurm.health_check_interval_s > 0) {
    options["HealthCheckProgram"] = std::string(k_health_check_program);
    options["HealthCheckInterval"] = std::to_string(slurm.health_check_interval_s);
    options["HealthCheckNodeState"] = "ANY";
  }
  value["health_check"] = slurm.health_check_interval_s > 0;
  value["health_check_interval"] = slurm.health_check_interval_s;
  value["health_check_program"] = std::string(k_health_check_program);
  value["settings"] = slurm_settings(options);
  value["node_groups"] = slurm_node_groups(inventory, hardware);
  auto partitions = TemplateValue::list();
  for (const auto& partition : slurm.partitions) {
    TemplateValue entry;
    entry["name"] = partition.name;
    entry["nodes"] = hostlist::compress_for_slurm(partition.node_names);
    entry["default"] = partition.is_default;
    entry["options"] = key_values(partition.options);
    partitions.push_back(std::move(entry));
  }
  value["partitions"] = std::move(partitions);
  return value;
}

TemplateValue scrape_target(const Node& node, int port) {
  TemplateValue entry;
  entry["target"] = url_address(address_of(node)) + ":" + std::to_string(port);
  entry["node"] = node.name;
  entry["has_rack"] = !node.rack.empty();
  set_if(entry, "rack", node.rack);
  return entry;
}

// Alertmanager's matcher for a receiver's severity: one, or both gpuctl's rules use.
std::string severity_regex(const std::string& severity) { return severity == "all" ? "critical|warning" : severity; }

TemplateValue receiver_value(const AlertRoute& route) {
  TemplateValue value;
  value["severity"] = route.severity;
  value["severity_regex"] = severity_regex(route.severity);
  return value;
}

// What the alert rules and Alertmanager's file need beyond the scrape targets.
void set_alerting(TemplateValue& value, const Inventory& inventory) {
  const MonitoringSettings& monitoring = inventory.cluster.monitoring;
  const Node* server = inventory.find_node(monitoring.prometheus);
  if (server) {
    const auto host = url_address(address_of(*server));
    value["prometheus_listen"] = host + ":" + std::to_string(monitoring.prometheus_port);
    value["alertmanager_target"] = host + ":" + std::to_string(monitoring.alertmanager_port);
    value["grafana_listen_address"] = address_of(*server);
  }
  value["verify_stale_seconds"] = std::to_string(2 * monitoring.verify_interval_seconds);
  value["verify_interval_seconds"] = std::to_string(monitoring.verify_interval_seconds);
  // The application's Xids (restart the job) warn; the catalogue's IGNORE codes need nothing;
  // every other code, known or not, is the GPU's or the node's.
  const auto matching = [](std::vector<int> codes) {
    std::ranges::sort(codes);
    std::vector<std::string> terms;
    for (const int code : codes) terms.push_back(fmt::format("DCGM_FI_DEV_XID_ERRORS == {}", code));
    return util::join(terms, " or ");
  };
  auto no_action = health::xid_codes(health::XidScope::application);
  const auto informational = health::xid_codes(health::XidScope::informational);
  value["xid_application_expr"] = matching(no_action);
  no_action.insert(no_action.end(), informational.begin(), informational.end());
  value["xid_no_action_expr"] = matching(no_action);
  TemplateValue alertmanager;
  alertmanager["has_receivers"] = monitoring.webhook.declared || monitoring.email.declared || monitoring.slack.declared;
  alertmanager["webhook"] = false;
  alertmanager["email"] = false;
  alertmanager["slack"] = false;
  if (monitoring.webhook.declared) {
    auto webhook = receiver_value(monitoring.webhook);
    webhook["url"] = monitoring.webhook.url;
    webhook["bearer_token"] = monitoring.webhook.bearer_token;
    alertmanager["webhook"] = std::move(webhook);
  }
  if (monitoring.email.declared) {
    auto email = receiver_value(monitoring.email);
    email["to"] = monitoring.email.to;
    email["from"] = monitoring.email.from;
    email["smarthost"] = monitoring.email.smarthost;
    email["require_tls"] = monitoring.email.require_tls ? "true" : "false";
    email["has_auth"] = !monitoring.email.auth_username.empty();
    set_if(email, "auth_username", monitoring.email.auth_username);
    alertmanager["email"] = std::move(email);
  }
  if (monitoring.slack.declared) {
    auto slack = receiver_value(monitoring.slack);
    slack["channel"] = monitoring.slack.channel;
    alertmanager["slack"] = std::move(slack);
  }
  value["alertmanager"] = std::move(alertmanager);
  value["grafana"] = false;
  if (monitoring.grafana.declared()) {
    TemplateValue grafana;
    grafana["url"] = monitoring.grafana.url;
    value["grafana"] = std::move(grafana);
  }
  auto fields = TemplateValue::list();
  for (const auto& field : monitoring::dcgm_exporter_fields()) {
    if (field.need == monitoring::FieldNeed::alias) continue;
    TemplateValue entry;
    entry["name"] = std::string(field.name);
    entry["type"] = std::string(field.type);
    entry["help"] = std::string(field.help);
    fields.push_back(std::move(entry));
  }
  value["dcgm_fields"] = std::move(fields);
}

TemplateValue monitoring_value(const Inventory& inventory) {
  const MonitoringSettings& monitoring = inventory.cluster.monitoring;
  TemplateValue value;
  set_if(value, "prometheus", monitoring.prometheus);
  value["dcgm_exporter"] = monitoring.dcgm_exporter;
  value["node_exporter"] = monitoring.node_exporter;
  value["dcgm_exporter_port"] = monitoring.dcgm_exporter_port;
  value["node_exporter_port"] = monitoring.node_exporter_port;
  value["grafana_port"] = monitoring.grafana_port;
  auto node_targets = TemplateValue::list();
  auto dcgm_targets = TemplateValue::list();
  for (const auto& node : inventory.nodes) {
    if (monitoring.node_exporter) node_targets.push_back(scrape_target(node, monitoring.node_exporter_port));
    if (monitoring.dcgm_exporter && is_gpu_node(node))
      dcgm_targets.push_back(scrape_target(node, monitoring.dcgm_exporter_port));
  }
  value["node_exporter_targets"] = std::move(node_targets);
  value["dcgm_exporter_targets"] = std::move(dcgm_targets);
  set_alerting(value, inventory);
  return value;
}

// The health policy as the node health program needs it: the Xids that need nothing from the
// node (none, restart_app), space-separated; Xid 154 is judged by its line.
TemplateValue health_value() {
  const auto& policy = health::health_policy();
  std::vector<std::string> codes;
  for (const auto& rule : policy.xids)
    if (!rule.from_recovery_action && !health::remedy_needs_drain(rule.remedy)) codes.push_back(std::to_string(rule.code));
  TemplateValue value;
  value["policy_version"] = policy.version;
  value["no_drain_xids"] = util::join(codes, " ");
  return value;
}

}  // namespace

std::vector<const Node*> slurm_compute_nodes(const Inventory& inventory) {
  std::set<std::string> in_partition;
  for (const auto& partition : inventory.cluster.slurm.partitions)
    in_partition.insert(partition.node_names.begin(), partition.node_names.end());
  std::vector<const Node*> nodes;
  for (const auto& node : inventory.nodes)
    if (in_partition.empty() ? is_gpu_node(node) : in_partition.contains(node.name)) nodes.push_back(&node);
  return nodes;
}

TemplateValue build_cluster_context(const Inventory& inventory, const SlurmHardwareTable* hardware) {
  TemplateValue context;
  context["gpuctl"]["managed_by"] = std::string(k_managed_by);
  TemplateValue& cluster = context["cluster"];
  set_if(cluster, "name", inventory.cluster.name);
  set_if(cluster, "os_family", inventory.cluster.os_family);
  set_if(cluster, "os", inventory.cluster.os);
  context["nvidia"] = nvidia_value(inventory.cluster.nvidia);
  set_if(context["nvidia"]["repository"], "keyring_list", inventory.cluster.profile.keyring_list);
  // The package profile's rows (packages/profile.hpp); a row the source ships none of is left out.
  set_if(context["profile"], "name", inventory.cluster.profile.name);
  set_if(context["profile"], "driver_source", inventory.cluster.nvidia.driver_source);
  for (const auto& [row, package] : inventory.cluster.packages.packages) set_if(context["package"], row, package);
  for (const auto& [row, service] : inventory.cluster.packages.services) set_if(context["service"], row, service);
  for (const auto& [row, version] : inventory.cluster.packages.versions) set_if(context["version"], row, version);
  context["nccl"] = key_values(inventory.cluster.nccl);
  context["slurm"] = slurm_value(inventory, hardware);
  context["monitoring"] = monitoring_value(inventory);
  context["health"] = health_value();
  // The container toolkit's version and repositories, under the playbooks' names (containers.*).
  const auto& containers = inventory.cluster.containers;
  set_if(context["containers"], "toolkit_version", containers.toolkit_version);
  set_if(context["containers"]["repository"], "url", containers.repository_url);
  set_if(context["containers"]["repository"], "key_url", containers.key_file.empty() ? containers.key_url : std::string());
  set_if(context["containers"]["repository"], "key_file", containers.key_file);
  set_if(context["containers"]["slurm_repository"], "key_file", containers.slurm_repository_key_file);
  set_if(context["containers"]["slurm_repository"], "url", containers.slurm_repository_url);
  std::string pyxis_arguments;
  for (const auto& [key, value] : containers.pyxis_arguments)
    pyxis_arguments += fmt::format("{}{}={}", pyxis_arguments.empty() ? "" : " ", key, value);
  // Always set (the template picks the package's line or its own): declared or not.
  context["containers"]["pyxis"]["declared"] = !pyxis_arguments.empty();
  set_if(context["containers"]["pyxis"], "arguments", pyxis_arguments);
  return context;
}

TemplateValue build_node_context(const Node& node) {
  TemplateValue context;
  context["node"] = node_value(node);
  return context;
}

TemplateValue build_template_context(const Inventory& inventory, const Node& node) {
  TemplateValue context = build_cluster_context(inventory);
  context["node"] = node_value(node);
  return context;
}

}  // namespace gpuctl
