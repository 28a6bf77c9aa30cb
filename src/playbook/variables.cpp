#include <gpuctl/playbook/variables.hpp>

#include <gpuctl/playbook/shell_text.hpp>
#include <gpuctl/template/context.hpp>
#include <gpuctl/util/strings.hpp>

#include <charconv>
#include <fmt/format.h>

namespace gpuctl {
namespace {

std::string bool_text(bool value) { return value ? "true" : "false"; }

std::string dashed(std::string version) {
  for (auto& c : version)
    if (c == '.') c = '-';
  return version;
}

std::optional<double> as_number(std::string_view text) {
  double value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || text.empty()) return std::nullopt;
  return value;
}

bool truthy(std::string_view value) { return !value.empty() && value != "false" && value != "0"; }

std::vector<std::string> names_of(const Variables& variables) {
  std::vector<std::string> names;
  for (const auto& [name, value] : variables) names.push_back(name);
  return names;
}

Error unknown_variable(std::string_view name, const Variables& variables) {
  const auto names = names_of(variables);
  const auto suggestion = util::closest_match(name, names);
  return Error{ErrorCode::validation, fmt::format("unknown variable '{}'", name), {},
               suggestion ? fmt::format("did you mean '{}'?", *suggestion) : "see docs/playbooks.md for the variables"};
}

Result<bool> evaluate_clause(std::string_view clause, const Variables& variables) {
  auto words = util::split(util::trim(clause), ' ');
  std::erase_if(words, [](const std::string& w) { return w.empty(); });
  bool negate = false;
  if (!words.empty() && words.front() == "not") {
    negate = true;
    words.erase(words.begin());
  }
  if (words.size() != 1 && words.size() != 3)
    return fail(ErrorCode::validation, fmt::format("cannot read condition '{}'", util::trim(clause)), {},
                "write NAME, not NAME, or NAME OP VALUE with OP one of == != < <= > >=");
  const auto it = variables.find(words[0]);
  if (it == variables.end()) return std::unexpected(unknown_variable(words[0], variables));
  bool result = false;
  if (words.size() == 1) {
    result = truthy(it->second);
  } else {
    const std::string& op = words[1];
    const std::string& rhs = words[2];
    const auto left = as_number(it->second);
    const auto right = as_number(rhs);
    int order = 0;
    if (left && right) order = *left < *right ? -1 : (*left > *right ? 1 : 0);
    else order = it->second.compare(rhs) < 0 ? -1 : (it->second == rhs ? 0 : 1);
    if (op == "==") result = order == 0;
    else if (op == "!=") result = order != 0;
    else if (op == "<") result = order < 0;
    else if (op == "<=") result = order <= 0;
    else if (op == ">") result = order > 0;
    else if (op == ">=") result = order >= 0;
    else return fail(ErrorCode::validation, fmt::format("unknown operator '{}' in condition", op), {},
                     "use one of == != < <= > >=");
  }
  return negate ? !result : result;
}

// Splits on a whole-word separator (" and " / " or ").
std::vector<std::string> split_word(std::string_view text, std::string_view word) {
  std::vector<std::string> parts;
  const std::string separator = fmt::format(" {} ", word);
  std::size_t start = 0;
  while (true) {
    const auto at = text.find(separator, start);
    parts.emplace_back(text.substr(start, at == std::string_view::npos ? at : at - start));
    if (at == std::string_view::npos) return parts;
    start = at + separator.size();
  }
}

}  // namespace

Variables node_variables(const Inventory& inventory, const Node& node) {
  const auto& cluster = inventory.cluster;
  Variables v;
  // The node's part of the template context under the same names (template/context.hpp):
  // node.name, node.address, node.url_address, node.rack, node.is_gpu_node, node.gpu.*,
  // node.ib_hcas_csv, node.labels.<key>. One derivation, so a name means one thing.
  flatten_scalars(build_node_context(node), "", v);
  // A template fails on an absent value; a playbook reads it as empty text (`when: node.rack`).
  for (const char* name : {"node.rack", "node.gpu.model", "node.gpu.type", "node.gpu.power_watts", "node.ib.link_layer",
                           "node.containers.runtime", "node.containers.runtime_package", "node.containers.runtime_service"})
    v.try_emplace(name);
  v["cluster.name"] = cluster.name;
  v["cluster.os_family"] = cluster.os_family;
  v["cluster.os"] = cluster.os;
  // The package profile's rows (packages/profile.hpp): "" where the source ships none.
  v["profile.name"] = cluster.profile.name;
  v["profile.driver_source"] = cluster.nvidia.driver_source;
  for (const auto& row : profile_row_names()) {
    v["package." + row] = cluster.packages.package(row);
    v["service." + row] = cluster.packages.service(row);
    v["version." + row] = cluster.packages.version(row);
  }
  v["nvidia.unpackaged_driver"] = cluster.nvidia.unpackaged_driver;
  v["nvidia.repository.existing"] = cluster.nvidia.repository.existing;
  v["nvidia.repository.keyring_list"] = cluster.profile.keyring_list;
  v["nvidia.driver_branch"] = cluster.nvidia.driver_branch;
  v["nvidia.driver_version"] = cluster.nvidia.driver_version;
  v["nvidia.cuda"] = cluster.nvidia.cuda_version;
  v["nvidia.cuda_dashed"] = dashed(cluster.nvidia.cuda_version);
  v["nvidia.open_kernel_module"] = bool_text(cluster.nvidia.open_kernel_module);
  v["nvidia.repository.url"] = cluster.nvidia.repository.url;
  v["nvidia.repository.key_url"] = cluster.nvidia.repository.key_url;
  v["nvidia.repository.key_file"] = cluster.nvidia.repository.key_file;
  v["nvidia.repository.key_path"] = cuda_key_path(cluster.nvidia.repository);
  v["slurm.enabled"] = bool_text(cluster.slurm.enabled);
  v["slurm.controller"] = cluster.slurm.controller;
  v["slurm.cluster_name"] = slurm_cluster_name(inventory);
  v["slurm.health_check"] = bool_text(cluster.slurm.enabled && cluster.slurm.health_check_interval_s > 0);
  v["is_slurm_controller"] = bool_text(cluster.slurm.enabled && cluster.slurm.controller == node.name);
  v["monitoring.prometheus"] = cluster.monitoring.prometheus;
  v["monitoring.dcgm_exporter"] = bool_text(cluster.monitoring.dcgm_exporter);
  v["monitoring.node_exporter"] = bool_text(cluster.monitoring.node_exporter);
  v["is_prometheus"] = bool_text(!cluster.monitoring.prometheus.empty() && cluster.monitoring.prometheus == node.name);
  const auto& m = cluster.monitoring;
  v["monitoring.alertmanager.webhook"] = bool_text(m.webhook.declared);
  v["monitoring.alertmanager.webhook.bearer_token"] = bool_text(m.webhook.declared && m.webhook.bearer_token);
  v["monitoring.alertmanager.email"] = bool_text(m.email.declared);
  v["monitoring.alertmanager.email.auth"] = bool_text(m.email.declared && !m.email.auth_username.empty());
  v["monitoring.alertmanager.slack"] = bool_text(m.slack.declared);
  v["monitoring.grafana"] = bool_text(m.grafana.declared());
  v["monitoring.grafana.url"] = m.grafana.url;
  v["monitoring.grafana.key_url"] = m.grafana.key_url;
  v["monitoring.grafana.key_file"] = m.grafana.key_file;
  const auto& containers = cluster.containers;
  v["containers.toolkit_version"] = containers.toolkit_version;
  v["containers.repository.url"] = containers.repository_url;
  v["containers.repository.key_url"] = containers.key_file.empty() ? containers.key_url : std::string();
  v["containers.repository.key_file"] = containers.key_file;
  v["containers.slurm_repository.url"] = containers.slurm_repository_url;
  v["containers.slurm_repository.key_file"] = containers.slurm_repository_key_file;
  // Short forms of node.gpu.model, node.gpu.count, node.is_gpu_node and node.labels.<key>,
  // which playbooks have always used; the same values.
  v["gpu.model"] = v["node.gpu.model"];
  v["gpu.count"] = v["node.gpu.count"];
  v["is_gpu_node"] = v["node.is_gpu_node"];
  for (const auto& [key, value] : node.labels) v["labels." + key] = value;
  return v;
}

Result<std::string> substitute(std::string_view text, const Variables& variables) {
  std::string out;
  std::size_t pos = 0;
  while (true) {
    const auto open = text.find("{{", pos);
    if (open == std::string_view::npos) break;
    const auto close = text.find("}}", open + 2);
    if (close == std::string_view::npos)
      return fail(ErrorCode::validation, fmt::format("unclosed '{{{{' in '{}'", text));
    out.append(text.substr(pos, open - pos));
    const auto name = std::string(util::trim(text.substr(open + 2, close - open - 2)));
    const auto it = variables.find(name);
    if (it == variables.end()) return std::unexpected(unknown_variable(name, variables));
    out += it->second;
    pos = close + 2;
  }
  out.append(text.substr(pos));
  return out;
}

Result<std::string> substitute_shell(std::string_view command, const Variables& variables) {
  auto references = find_shell_references(command);
  if (!references) return std::unexpected(references.error());
  std::string out;
  std::size_t pos = 0;
  for (const auto& reference : *references) {
    out.append(command.substr(pos, reference.begin - pos));
    const auto it = variables.find(reference.name);
    if (it == variables.end()) return std::unexpected(unknown_variable(reference.name, variables));
    if (it->second.find('\0') != std::string::npos)
      return fail(ErrorCode::validation, fmt::format("the value of '{}' contains a NUL byte, which no shell command can hold",
                                                     reference.name));
    out += quote_for_shell(it->second, reference.quoting);
    pos = reference.end;
  }
  out.append(command.substr(pos));
  return out;
}

Result<bool> evaluate_condition(std::string_view condition, const Variables& variables) {
  if (util::trim(condition).empty()) return true;
  // Every clause is evaluated (no short-circuit) so a typo is an error on every node, not only
  // on the nodes where the earlier alternatives happen to be false.
  bool any = false;
  for (const auto& alternative : split_word(condition, "or")) {
    bool all = true;
    for (const auto& clause : split_word(alternative, "and")) {
      auto value = evaluate_clause(clause, variables);
      if (!value) return value;
      all = all && *value;
    }
    any = any || all;
  }
  return any;
}

}  // namespace gpuctl
