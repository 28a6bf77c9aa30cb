// Decoding of the `cluster` section (docs/inventory.md): NVIDIA versions and repository, NCCL
// settings, Slurm and monitoring. Every value is checked against the grammar of the place it
// ends up in: a package name, an apt source line, slurm.conf, nccl.conf, a directory name.
#include "formats.hpp"
#include "schema_fields.hpp"

#include <gpuctl/inventory/hostlist.hpp>

#include <fmt/format.h>

#include <charconv>

#include <algorithm>

namespace gpuctl::inventory_detail {
namespace {

using Keys = std::vector<std::string>;

const Keys k_cluster_keys{"name", "os_family", "os", "nvidia", "nccl", "slurm", "monitoring", "containers"};
const Keys k_containers_keys{"toolkit_version", "repository", "slurm_repository", "pyxis"};
// The arguments pyxis reads from its plugstack line (NVIDIA/pyxis config.c), in its order; it
// refuses any other, and then slurmd does not start, so validate knows them all.
const Keys k_pyxis_keys{"runtime_path", "execute_entrypoint", "container_scope", "sbatch_support", "use_enroot_load"};
const Keys k_containers_repository_keys{"url", "key_url", "key_file"};
const Keys k_slurm_repository_keys{"url", "key_file"};
const Keys k_nvidia_keys{"driver_branch", "driver_version", "cuda", "open_kernel_module", "driver_source",
                         "unpackaged_driver", "repository"};
const Keys k_repository_keys{"url", "key_url", "key_file", "pin_priority", "existing"};
const Keys k_unpackaged_driver{"adopt", "install"};
const Keys k_existing_repository{"adopt", "replace"};
const Keys k_slurm_keys{"controller", "cluster_name", "partitions", "options", "memory_reserve", "health_check_interval"};
const Keys k_partition_keys{"name", "nodes", "default", "options"};
const Keys k_monitoring_keys{"prometheus", "dcgm_exporter", "node_exporter", "ports", "verify_interval", "alertmanager", "grafana"};
const Keys k_ports_keys{"dcgm_exporter", "node_exporter", "prometheus", "alertmanager", "grafana"};
const Keys k_alertmanager_keys{"webhook", "email", "slack"};
const Keys k_webhook_keys{"url", "bearer_token", "severity"};
const Keys k_email_keys{"to", "from", "smarthost", "auth_username", "require_tls", "severity"};
const Keys k_slack_keys{"channel", "severity"};
const Keys k_severities{"critical", "warning", "all"};
const Keys k_grafana_keys{"repository"};
const Keys k_grafana_repository_keys{"url", "key_url", "key_file"};
const Keys k_os_families{"debian", "rhel"};

// A version: a quoted string (Decoder::version) that `g` accepts; "" when it is not.
std::string version(Decoder& d, const YamlNode& node, std::string_view what, const Grammar& g) {
  auto text = d.version(node, fmt::format("'{}'", what));
  if (!text || !accepted(d, node, *text, what, g)) return "";
  return *text;
}

void decode_repository(Decoder& d, const YamlNode& node, RepositorySettings& out) {
  auto r = d.map(node, "'cluster.nvidia.repository'", k_repository_keys);
  if (!r) return;
  if (const auto* n = r->get("url")) out.url = checked(d, *n, "repository.url", grammar::url).value_or("");
  else d.error(node, "'cluster.nvidia.repository' needs a 'url'");
  if (const auto* n = r->get("key_url")) out.key_url = checked(d, *n, "key_url", grammar::url).value_or("");
  if (const auto* n = r->get("key_file")) out.key_file = checked(d, *n, "key_file", grammar::local_file).value_or("");
  if (r->get("key_url") && r->get("key_file"))
    d.error(*r->get("key_file"), "give either 'key_url' or 'key_file' for the repository, not both");
  if (const auto* n = r->get("pin_priority")) out.pin_priority = d.integer(*n, "'pin_priority'", -1000, 1001).value_or(600);
  if (const auto* n = r->get("existing")) out.existing = d.choice(*n, "'repository.existing'", k_existing_repository).value_or("adopt");
}

void decode_nvidia(Decoder& d, const YamlNode& node, NvidiaSettings& out) {
  auto view = d.map(node, "'cluster.nvidia'", k_nvidia_keys);
  if (!view) return;
  if (const auto* n = view->get("driver_branch")) out.driver_branch = version(d, *n, "driver_branch", grammar::driver_branch);
  if (const auto* n = view->get("driver_version")) out.driver_version = version(d, *n, "driver_version", grammar::driver_version);
  if (const auto* n = view->get("cuda")) out.cuda_version = version(d, *n, "cuda", grammar::cuda_version);
  if (const auto* n = view->get("open_kernel_module"))
    out.open_kernel_module = d.boolean(*n, "'open_kernel_module'").value_or(out.open_kernel_module);
  if (const auto* n = view->get("driver_source"))
    out.driver_source = d.choice(*n, "'driver_source'", profile_driver_sources()).value_or(out.driver_source);
  if (const auto* n = view->get("unpackaged_driver"))
    out.unpackaged_driver = d.choice(*n, "'unpackaged_driver'", k_unpackaged_driver).value_or(out.unpackaged_driver);
  if (!out.driver_branch.empty() && !out.driver_version.empty() &&
      !out.driver_version.starts_with(out.driver_branch + "."))
    d.error(*view->get("driver_version"),
            fmt::format("driver_version '{}' is not of driver_branch '{}'", out.driver_version, out.driver_branch),
            fmt::format("a {} driver version looks like {}.x.y", out.driver_branch, out.driver_branch));
  if (const auto* repo = view->get("repository")) decode_repository(d, *repo, out.repository);
}

// NCCL reads /etc/nccl.conf as KEY=VALUE lines (formats.hpp).
std::map<std::string, std::string> decode_nccl(Decoder& d, const YamlNode& node, RawInventory& raw) {
  std::map<std::string, std::string> out;
  for (auto& entry : scalar_map(d, node, "'cluster.nccl'")) {
    const auto at = [&](Pos pos, std::string message, std::string fix) {
      d.error_at(pos.line, pos.column, std::move(message), std::move(fix));
    };
    if (!entry.key.starts_with("NCCL_"))
      at(entry.key_pos, fmt::format("'{}' in 'cluster.nccl' is not an NCCL setting", entry.key),
         fmt::format("NCCL settings start with NCCL_, e.g. NCCL_{}", entry.key));
    else if (auto why = check_nccl_key(entry.key))
      at(entry.key_pos, fmt::format("key '{}' in 'cluster.nccl' {}", entry.key, *why), std::string(grammar::nccl_key.fix));
    else if (auto bad = check_nccl_value(entry.value))
      at(entry.value_pos, fmt::format("value '{}' of '{}' in 'cluster.nccl' {}", entry.value, entry.key, *bad),
         std::string(grammar::nccl_value.fix));
    else {
      if (entry.key == "NCCL_IB_HCA") raw.nccl_ib_hca_pos = entry.value_pos;
      if (entry.key == "NCCL_SOCKET_IFNAME") raw.nccl_socket_ifname_pos = entry.value_pos;
      out.emplace(std::move(entry.key), std::move(entry.value));
    }
  }
  return out;
}

// Options written as Key=Value words of slurm.conf; `reserved` are keys gpuctl writes there itself.
std::map<std::string, std::string> slurm_options(Decoder& d, const YamlNode& node, std::string_view what,
                                                 std::span<const std::string_view> reserved, std::string_view instead) {
  std::map<std::string, std::string> out;
  for (auto& entry : scalar_map(d, node, what)) {
    if (auto why = check_slurm_key(entry.key)) {
      d.error_at(entry.key_pos.line, entry.key_pos.column, fmt::format("key '{}' in {} {}", entry.key, what, *why),
                 std::string(grammar::slurm_key.fix));
    } else if (auto name = reserved_slurm_key(entry.key, reserved)) {
      d.error_at(entry.key_pos.line, entry.key_pos.column,
                 fmt::format("'{}' in {} would set {}, which gpuctl writes itself", entry.key, what, *name), std::string(instead));
    } else if (auto bad = check_slurm_value(entry.value)) {
      d.error_at(entry.value_pos.line, entry.value_pos.column,
                 fmt::format("value '{}' of '{}' in {} {}", entry.value, entry.key, what, *bad),
                 std::string(grammar::slurm_value.fix));
    } else {
      out.emplace(std::move(entry.key), std::move(entry.value));
    }
  }
  return out;
}

void decode_partition(Decoder& d, const YamlNode& item, RawInventory& raw) {
  auto p = d.map(item, "a Slurm partition", k_partition_keys);
  if (!p) return;
  RawPartition rp;
  rp.pos = pos_of(item);
  if (const auto* n = p->get("name")) rp.partition.name = checked(d, *n, "partition name", grammar::name).value_or("");
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
  if (const auto* n = p->get("options"))
    rp.partition.options = slurm_options(d, *n, fmt::format("'options' of {}", what), k_slurm_partition_keys,
                                         "set the partition's 'nodes' and 'default' instead");
  raw.partitions.push_back(std::move(rp));
}

// "5%" (0-50) or an amount in MiB or GiB ("16384MiB", "16GiB"): what RealMemory leaves of a
// node's memory (plan/slurm_hardware.hpp).
void decode_memory_reserve(Decoder& d, const YamlNode& node, SlurmSettings& slurm) {
  const auto text = d.string(node, "'slurm.memory_reserve'");
  if (!text) return;
  const auto number = [](std::string_view digits) -> std::optional<std::int64_t> {
    std::int64_t value = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (digits.empty() || ec != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
    return value;
  };
  const std::string_view t = *text;
  if (t.ends_with('%')) {
    if (const auto percent = number(t.substr(0, t.size() - 1)); percent && *percent >= 0 && *percent <= 50) {
      slurm.memory_reserve_percent = static_cast<int>(*percent);
      slurm.memory_reserve_mib = 0;
      return;
    }
  } else {
    for (const auto& [unit, factor] : {std::pair{std::string_view("GiB"), 1024}, {std::string_view("MiB"), 1}})
      if (t.ends_with(unit))
        if (const auto amount = number(t.substr(0, t.size() - unit.size())); amount && *amount > 0 && *amount <= (1LL << 32)) {
          slurm.memory_reserve_mib = *amount * factor;
          return;
        }
  }
  d.error(node, fmt::format("'slurm.memory_reserve' '{}' is not a percentage of 0-50 or an amount of memory", t),
          "write a share of each node's memory, e.g. \"5%\", or an amount, e.g. \"16GiB\" or \"16384MiB\"");
}

std::optional<int> duration_seconds(Decoder& d, const YamlNode& node, std::string_view what, long min_seconds = 60);

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
    slurm.cluster_name = checked(d, *n, "slurm.cluster_name", grammar::name).value_or("");
  if (const auto* n = view->get("memory_reserve")) decode_memory_reserve(d, *n, slurm);
  // Slurm runs gpuctl's node health program this often on every node (docs/remediation.md).
  if (const auto* n = view->get("health_check_interval"))
    slurm.health_check_interval_s = duration_seconds(d, *n, "slurm.health_check_interval", 10).value_or(0);
  if (const auto* n = view->get("options"))
    slurm.options = slurm_options(d, *n, "'slurm.options'", k_slurm_file_keys,
                                  "gpuctl writes it from slurm.controller, slurm.cluster_name, the hosts and the partitions");
  if (slurm.health_check_interval_s > 0)
    for (const char* key : {"HealthCheckProgram", "HealthCheckInterval", "HealthCheckNodeState"})
      if (slurm.options.contains(key))
        d.error(*view->get("health_check_interval"),
                fmt::format("slurm.options sets {} and slurm.health_check_interval asks for gpuctl's health program", key),
                "keep one: drop the option, or drop health_check_interval to run your own program");
  const auto* parts = view->get("partitions");
  if (!parts) return;
  if (!parts->is_sequence()) {
    d.error(*parts, "'slurm.partitions' must be a list of partitions", "write '- name: gpu' items");
    return;
  }
  for (const auto& item : parts->items) decode_partition(d, item, raw);
}

// A duration as Prometheus and systemd timers write them: a whole number of s, m, h or d, at
// least `min_seconds` (a minute unless said) and at most 30 days; nullopt (reported) otherwise.
std::optional<int> duration_seconds(Decoder& d, const YamlNode& node, std::string_view what, long min_seconds) {
  auto text = d.string(node, fmt::format("'{}'", what));
  if (!text) return std::nullopt;
  static constexpr std::pair<char, long> k_units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}};
  const auto unit = std::ranges::find_if(k_units, [&](const auto& u) { return !text->empty() && text->back() == u.first; });
  long count = 0;
  const auto digits = std::string_view(*text).substr(0, text->empty() ? 0 : text->size() - 1);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), count);
  if (unit == std::end(k_units) || digits.empty() || ec != std::errc{} || end != digits.data() + digits.size() ||
      count * unit->second < min_seconds || count * unit->second > 30L * 86400) {
    d.error(node,
            fmt::format("'{}' must be a duration from {} to 30d, not '{}'", what,
                        min_seconds % 60 == 0 ? fmt::format("{}m", min_seconds / 60) : fmt::format("{}s", min_seconds), *text),
            "write e.g. 1h, 15m or 90m");
    return std::nullopt;
  }
  return static_cast<int>(count * unit->second);
}

// A receiver's map, with its route marked declared and its severity read.
std::optional<MapView> receiver(Decoder& d, const YamlNode& node, std::string_view kind, const Keys& keys, AlertRoute& route) {
  auto view = d.map(node, fmt::format("'alertmanager.{}'", kind), keys);
  if (!view) return std::nullopt;
  route.declared = true;
  if (const auto* n = view->get("severity")) route.severity = d.choice(*n, "'severity'", k_severities).value_or("all");
  return view;
}

// A receiver's required field, reported at the receiver when missing.
std::string required(Decoder& d, const YamlNode& at, const MapView& view, std::string_view key, std::string_view receiver,
                     const Grammar& g) {
  const auto* n = view.get(std::string(key));
  if (!n) {
    d.error(at, fmt::format("the {} receiver needs '{}'", receiver, key), std::string(g.fix));
    return "";
  }
  return checked(d, *n, fmt::format("{}.{}", receiver, key), g).value_or("");
}

void decode_alertmanager(Decoder& d, const YamlNode& node, MonitoringSettings& m) {
  auto view = d.map(node, "'monitoring.alertmanager'", k_alertmanager_keys);
  if (!view) return;
  if (const auto* n = view->get("webhook")) {
    const auto declared = receiver(d, *n, "webhook", k_webhook_keys, m.webhook);
    if (!declared) return;
    const auto& r = *declared;
    m.webhook.url = required(d, *n, r, "url", "webhook", grammar::url);
    // Alertmanager 0.23-0.25 read a webhook URL only from its config, which plans show: a
    // credential belongs in the bearer token (a file), never in the URL.
    if (m.webhook.url.starts_with("file:")) d.error(*r.get("url"), "the webhook's url must be http:// or https://");
    const auto authority = m.webhook.url.substr(0, m.webhook.url.find_first_of("/?", m.webhook.url.find("//") + 2));
    if (authority.find('@') != std::string::npos)
      d.error(*r.get("url"), "the webhook's url carries a user or password, which every plan would show",
              "remove it and set bearer_token: true (the token comes from the secret store)");
    if (const auto* b = r.get("bearer_token")) m.webhook.bearer_token = d.boolean(*b, "'webhook.bearer_token'").value_or(false);
  }
  if (const auto* n = view->get("email")) {
    const auto declared = receiver(d, *n, "email", k_email_keys, m.email);
    if (!declared) return;
    const auto& r = *declared;
    m.email.to = required(d, *n, r, "to", "email", grammar::email);
    m.email.from = required(d, *n, r, "from", "email", grammar::email);
    m.email.smarthost = required(d, *n, r, "smarthost", "email", grammar::host_port);
    if (const auto* u = r.get("auth_username")) m.email.auth_username = checked(d, *u, "email.auth_username", grammar::email_user).value_or("");
    if (const auto* t = r.get("require_tls")) m.email.require_tls = d.boolean(*t, "'email.require_tls'").value_or(true);
  }
  if (const auto* n = view->get("slack")) {
    const auto declared = receiver(d, *n, "slack", k_slack_keys, m.slack);
    if (!declared) return;
    const auto& r = *declared;
    m.slack.channel = required(d, *n, r, "channel", "slack", grammar::chat_channel);
  }
}

void decode_grafana(Decoder& d, const YamlNode& node, GrafanaSettings& g) {
  auto view = d.map(node, "'monitoring.grafana'", k_grafana_keys);
  if (!view) return;
  const auto* repository = view->get("repository");
  if (!repository) {
    d.error(node, "'monitoring.grafana' needs a 'repository'", "write repository: {url: https://apt.grafana.com, key_url: https://apt.grafana.com/gpg.key}");
    return;
  }
  auto r = d.map(*repository, "'grafana.repository'", k_grafana_repository_keys);
  if (!r) return;
  if (const auto* n = r->get("url")) g.url = checked(d, *n, "grafana.repository.url", grammar::url).value_or("");
  else d.error(*repository, "'grafana.repository' needs a 'url'", "write url: https://apt.grafana.com (or your mirror)");
  if (const auto* n = r->get("key_url")) g.key_url = checked(d, *n, "grafana.repository.key_url", grammar::url).value_or("");
  if (const auto* n = r->get("key_file")) g.key_file = checked(d, *n, "grafana.repository.key_file", grammar::local_file).value_or("");
  if (r->get("key_url") && r->get("key_file"))
    d.error(*r->get("key_file"), "give either 'key_url' or 'key_file' for the Grafana repository, not both");
  else if (!r->get("key_url") && !r->get("key_file"))
    d.error(*repository, "'grafana.repository' needs its signing key", "write key_url: https://apt.grafana.com/gpg.key, or key_file: /path/to/grafana.asc");
}

// containers.pyxis: pyxis's plugstack arguments, each in the form pyxis parses (booleans as
// true/false), in pyxis's order; the values reach a plugin line split on whitespace.
void decode_pyxis(Decoder& d, const YamlNode& node, ContainerSettings& c) {
  auto view = d.map(node, "'containers.pyxis'", k_pyxis_keys);
  if (!view) return;
  c.pyxis_arguments.clear();
  for (const auto& key : k_pyxis_keys) {  // pyxis's order, whatever the file's
    const auto* n = view->get(key);
    if (!n) continue;
    const auto what = fmt::format("containers.pyxis.{}", key);
    std::optional<std::string> value;
    if (key == "runtime_path") value = checked(d, *n, what, grammar::directory);
    else if (key == "container_scope") {
      value = d.string(*n, fmt::format("'{}'", what));
      if (value && *value != "job" && *value != "global") {
        d.error(*n, fmt::format("'{}' is '{}'", what, *value), "write job (containers named per job) or global (pyxis's default)");
        value.reset();
      }
    } else if (auto b = d.boolean(*n, fmt::format("'{}'", what))) value = *b ? "true" : "false";
    if (value) c.pyxis_arguments.emplace_back(key, *value);
  }
}

// cluster.containers (docs/containers.md): the toolkit's version and NVIDIA's repository (or a mirror).
void decode_containers(Decoder& d, const YamlNode& node, ContainerSettings& c) {
  auto view = d.map(node, "'cluster.containers'", k_containers_keys);
  if (!view) return;
  if (const auto* n = view->get("toolkit_version"))
    c.toolkit_version = version(d, *n, "containers.toolkit_version", grammar::toolkit_version);
  else d.error(node, "'cluster.containers' needs a 'toolkit_version'", "write toolkit_version: \"1.17.8\"");
  if (const auto* repository = view->get("repository")) {
    auto r = d.map(*repository, "'containers.repository'", k_containers_repository_keys);
    if (!r) return;
    if (const auto* n = r->get("url")) c.repository_url = checked(d, *n, "containers.repository.url", grammar::url).value_or("");
    else d.error(*repository, "'containers.repository' needs a 'url'", "NVIDIA's is https://nvidia.github.io/libnvidia-container/stable/deb/amd64");
    c.key_url.clear();
    if (const auto* n = r->get("key_url")) c.key_url = checked(d, *n, "containers.repository.key_url", grammar::url).value_or("");
    if (const auto* n = r->get("key_file")) c.key_file = checked(d, *n, "containers.repository.key_file", grammar::local_file).value_or("");
    if (r->get("key_url") && r->get("key_file"))
      d.error(*r->get("key_file"), "give either 'key_url' or 'key_file' for the container toolkit's repository, not both");
    else if (!r->get("key_url") && !r->get("key_file"))
      d.error(*repository, "'containers.repository' needs its signing key",
              "write key_url: https://nvidia.github.io/libnvidia-container/gpgkey, or key_file: /path/to/key.asc");
  }
  if (const auto* repository = view->get("slurm_repository")) {
    auto r = d.map(*repository, "'containers.slurm_repository'", k_slurm_repository_keys);
    if (!r) return;
    if (const auto* n = r->get("url")) c.slurm_repository_url = checked(d, *n, "containers.slurm_repository.url", grammar::url).value_or("");
    else d.error(*repository, "'containers.slurm_repository' needs a 'url'", "an apt repository with enroot and pyxis built for your Slurm");
    if (const auto* n = r->get("key_file"))
      c.slurm_repository_key_file = checked(d, *n, "containers.slurm_repository.key_file", grammar::local_file).value_or("");
    else d.error(*repository, "'containers.slurm_repository' needs its signing key", "write key_file: /path/to/key.asc");
  }
  if (const auto* pyxis = view->get("pyxis")) decode_pyxis(d, *pyxis, c);
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
      const auto port = [&](std::string_view key, int& out) {
        if (const auto* p = ports->get(std::string(key))) out = d.integer(*p, fmt::format("'ports.{}'", key), 1, 65535).value_or(out);
      };
      port("dcgm_exporter", m.dcgm_exporter_port);
      port("node_exporter", m.node_exporter_port);
      port("prometheus", m.prometheus_port);
      port("alertmanager", m.alertmanager_port);
      port("grafana", m.grafana_port);
      // The servers of the Prometheus node (and its node_exporter) share its address.
      const std::pair<std::string_view, int> on_server[] = {{"node_exporter", m.node_exporter_port},
                                                            {"prometheus", m.prometheus_port},
                                                            {"alertmanager", m.alertmanager_port},
                                                            {"grafana", m.grafana_port}};
      for (std::size_t i = 0; i < std::size(on_server); ++i)
        for (std::size_t j = i + 1; j < std::size(on_server); ++j)
          if (on_server[i].second == on_server[j].second)
            d.error(*n, fmt::format("ports.{} and ports.{} are both {}: they listen on one address of the Prometheus node",
                                    on_server[i].first, on_server[j].first, on_server[i].second),
                    "give each its own port");
    }
  }
  if (const auto* n = view->get("verify_interval"))
    m.verify_interval_seconds = duration_seconds(d, *n, "monitoring.verify_interval").value_or(m.verify_interval_seconds);
  if (const auto* n = view->get("alertmanager")) decode_alertmanager(d, *n, m);
  if (const auto* n = view->get("grafana")) decode_grafana(d, *n, m.grafana);
  const bool wants_server = m.webhook.declared || m.email.declared || m.slack.declared || m.grafana.declared();
  if (wants_server && m.prometheus.empty())
    d.error(node, "alert receivers and Grafana run beside Prometheus, and 'monitoring.prometheus' names no node",
            "write prometheus: NODE (the node that runs Prometheus, Alertmanager and Grafana)");
}

// The package profile cluster.os and nvidia.driver_source name, resolved for this inventory's
// driver and CUDA; a choice the profile cannot serve is an error at the line that made it.
void attach_profile(Decoder& d, const YamlNode& cluster, const YamlNode* nvidia, ClusterSettings& c) {
  const auto view_of = [](const YamlNode* map, std::string_view key) -> const YamlNode* {
    if (!map || !map->is_map()) return nullptr;
    for (const auto& entry : map->entries)
      if (entry.first.value == key) return &entry.second;
    return nullptr;
  };
  const YamlNode* os_node = view_of(&cluster, "os");
  const YamlNode* source_node = view_of(nvidia, "driver_source");
  const YamlNode& choice_at = source_node ? *source_node : (os_node ? *os_node : cluster);
  auto profile = load_profile(profile_name(c.os, c.nvidia.driver_source));
  if (!profile) {
    d.error(choice_at, profile.error().message, profile.error().hint);
    return;
  }
  c.profile = std::move(*profile);
  auto packages = resolve_packages(c.profile, {c.nvidia.driver_branch, c.nvidia.driver_version, c.nvidia.cuda_version,
                                               c.nvidia.open_kernel_module, c.containers.toolkit_version});
  if (!packages) {
    const YamlNode* module_node = view_of(nvidia, "open_kernel_module");
    d.error(module_node ? *module_node : choice_at, packages.error().message, packages.error().hint);
    return;
  }
  c.packages = std::move(*packages);
  const YamlNode* repository = view_of(nvidia, "repository");
  if (c.nvidia.driver_source == "distribution" && repository)
    d.error(*repository,
            fmt::format("'repository' is NVIDIA's CUDA repository, but driver_source is distribution ({})", c.profile.description),
            "remove 'repository', or set driver_source: cuda-repository");
  // NVIDIA's repository for this OS unless the inventory names a mirror.
  if (c.nvidia.driver_source == "cuda-repository" && !repository) {
    c.nvidia.repository.url = c.profile.repository_url;
    c.nvidia.repository.key_url = c.profile.repository_key_url;
  }
}

}  // namespace

void decode_cluster(Decoder& d, const YamlNode& node, RawInventory& raw) {
  raw.cluster_pos = pos_of(node);
  auto view = d.map(node, "'cluster'", k_cluster_keys);
  if (!view) return;
  auto& c = raw.cluster;
  // The name becomes a directory of the secrets store and Slurm's ClusterName by default.
  if (const auto* n = view->get("name")) c.name = checked(d, *n, "cluster name", grammar::name).value_or("");
  else d.error(node, "'cluster' needs a 'name'");
  if (const auto* n = view->get("os_family")) c.os_family = d.choice(*n, "'os_family'", k_os_families).value_or("debian");
  if (const auto* n = view->get("os")) c.os = d.choice(*n, "'os'", profile_os_names()).value_or(c.os);
  if (const auto* n = view->get("nvidia")) decode_nvidia(d, *n, c.nvidia);
  if (const auto* n = view->get("nccl")) c.nccl = decode_nccl(d, *n, raw);
  if (const auto* n = view->get("slurm")) decode_slurm(d, *n, raw);
  if (const auto* n = view->get("monitoring")) decode_monitoring(d, *n, raw);
  if (const auto* n = view->get("containers")) decode_containers(d, *n, c.containers);
  attach_profile(d, node, view->get("nvidia"), c);
  if (c.monitoring.dcgm_exporter && !c.profile.name.empty() && c.packages.package("dcgm_exporter").empty()) {
    const auto* row = c.profile.find_row("dcgm_exporter");
    const auto* monitoring = view->get("monitoring");
    d.error(monitoring ? *monitoring : node,
            fmt::format("monitoring.dcgm_exporter is on, but {} has no DCGM exporter package ({})", c.profile.description,
                        row ? row->note : "none"),
            "set monitoring.dcgm_exporter: false, or use driver_source: cuda-repository");
  }
  // auth_password_file came in Alertmanager 0.25; Ubuntu 22.04 ships 0.23, which would need
  // the password in alertmanager.yml, where every plan shows it.
  if (!c.monitoring.email.auth_username.empty() && c.os == "ubuntu2204")
    d.error(*view->get("monitoring"), "Ubuntu 22.04's Alertmanager (0.23) cannot read the SMTP password from a file",
            "use a smarthost that needs no login (a local relay), or the webhook or slack receiver");
}

}  // namespace gpuctl::inventory_detail
