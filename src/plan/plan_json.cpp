// The plan's JSON view (documented in docs/plan-format.md), and the canonical digest of a
// node's changes that a saved plan carries. nlohmann_json stays in this file.
#include <gpuctl/plan/render.hpp>

#include <gpuctl/util/sha256.hpp>

#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

namespace gpuctl {
namespace {

using nlohmann::json;

// A saved plan's numbers are read exactly or not at all: nlohmann's get<int>() of 4294967298 or
// of 2.5 would give 2, and a plan of another format (or with another index) would pass.
constexpr std::int64_t k_max_index = 1'000'000;
constexpr std::int64_t k_max_hardware_value = std::int64_t{1} << 50;

std::int64_t whole_number(const json& value, std::string_view name, std::int64_t low, std::int64_t high) {
  if (!value.is_number_integer())
    throw json::type_error::create(302, fmt::format("{} is {}, not a whole number", name, value.dump()), &value);
  const bool negative = value.is_number_unsigned() ? false : value.get<std::int64_t>() < 0;
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(high))
    throw json::out_of_range::create(406, fmt::format("{} {} is out of range ({}..{})", name, value.dump(), low, high), &value);
  const auto number = negative ? value.get<std::int64_t>() : static_cast<std::int64_t>(value.get<std::uint64_t>());
  if (number < low || number > high)
    throw json::out_of_range::create(406, fmt::format("{} {} is out of range ({}..{})", name, value.dump(), low, high), &value);
  return number;
}


const std::map<std::string, Action>& actions_by_name() {
  static const std::map<std::string, Action> names{{"create", Action::create}, {"update", Action::update},
                                                   {"remove", Action::remove}, {"run", Action::run},
                                                   {"restart", Action::restart}, {"reboot", Action::reboot}};
  return names;
}

const std::map<std::string, NodePlanStatus>& statuses_by_name() {
  static const std::map<std::string, NodePlanStatus> names{{"planned", NodePlanStatus::planned},
                                                           {"unreachable", NodePlanStatus::unreachable},
                                                           {"failed", NodePlanStatus::failed}};
  return names;
}

std::string_view status_name(NodePlanStatus status) {
  for (const auto& [name, value] : statuses_by_name())
    if (value == status) return name;
  return "failed";
}

json inputs_to_json(const std::vector<BoundInput>& inputs, const char* key) {
  json out = json::array();
  for (const auto& input : inputs) out.push_back({{key, input.name}, {"digest", input.digest}});
  return out;
}

std::vector<BoundInput> inputs_from_json(const json& array, const char* key) {
  std::vector<BoundInput> inputs;
  for (const auto& item : array) inputs.push_back({item.at(key).get<std::string>(), item.at("digest").get<std::string>()});
  return inputs;
}

json node_to_json(const NodePlan& node) {
  json changes = json::array();
  for (const auto& c : node.changes)
    changes.push_back({{"action", action_name(c.action)}, {"symbol", action_symbol(c.action)}, {"step", c.step},
                       {"resource", c.resource}, {"summary", c.summary}, {"reason", c.reason}, {"diff", c.diff},
                       {"step_index", c.step_index}, {"resource_index", c.resource_index},
                       {"content_digest", c.content_digest}});
  return {{"node", node.node}, {"address", node.address}, {"status", status_name(node.status)},
          {"error", node.error.empty() ? json(nullptr) : json(node.error)},
          {"state_fingerprint", node.state_fingerprint}, {"changes", std::move(changes)}, {"notes", node.notes},
          {"changes_digest", changes_digest(node.changes)}};
}

Result<NodePlan> node_from_json(const json& n, const std::string& path) {
  NodePlan node;
  node.node = n.at("node").get<std::string>();
  if (const auto address = n.find("address"); address != n.end() && address->is_string()) node.address = address->get<std::string>();
  // The text view folds nodes by their address: only a host name or IP address, as the
  // inventory's grammar allows, is one (an edited plan's other words are refused, not masked).
  if (node.address.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:") != std::string::npos)
    return fail(ErrorCode::parse, fmt::format("node '{}': address '{}' is not a host name or IP address", node.node, node.address),
                Location{path, 0, 0, node.node, {}});
  const auto status = statuses_by_name().find(n.at("status").get<std::string>());
  if (status == statuses_by_name().end())
    return fail(ErrorCode::parse, fmt::format("unknown node status '{}'", n.at("status").get<std::string>()),
                Location{path, 0, 0, node.node, {}});
  node.status = status->second;
  if (!n.at("error").is_null()) node.error = n.at("error").get<std::string>();
  node.state_fingerprint = n.at("state_fingerprint").get<std::string>();
  node.changes_digest = n.at("changes_digest").get<std::string>();
  if (const auto notes = n.find("notes"); notes != n.end() && notes->is_array())
    for (const auto& note : *notes)
      if (note.is_string()) node.notes.push_back(note.get<std::string>());
  for (const auto& c : n.at("changes")) {
    Change change;
    const auto it = actions_by_name().find(c.at("action").get<std::string>());
    if (it == actions_by_name().end())
      return fail(ErrorCode::parse, fmt::format("unknown action '{}'", c.at("action").get<std::string>()),
                  Location{path, 0, 0, node.node, {}});
    change.action = it->second;
    change.step = c.at("step").get<std::string>();
    change.resource = c.at("resource").get<std::string>();
    change.summary = c.at("summary").get<std::string>();
    change.reason = c.at("reason").get<std::string>();
    change.diff = c.at("diff").get<std::string>();
    change.step_index = static_cast<std::size_t>(whole_number(c.at("step_index"), "step_index", 0, k_max_index));
    change.resource_index = static_cast<std::size_t>(whole_number(c.at("resource_index"), "resource_index", 0, k_max_index));
    change.content_digest = c.at("content_digest").get<std::string>();
    node.changes.push_back(std::move(change));
  }
  return node;
}

Result<void> check_format_version(const json& document, const std::string& path) {
  const int version = static_cast<int>(whole_number(document.at("format_version"), "format_version", 0, 1'000'000));
  if (version == Plan::k_format_version) return {};
  const Location where{path, 0, 0, {}, {}};
  if (version < Plan::k_format_version)
    return fail(ErrorCode::parse,
                fmt::format("plan made by an older gpuctl (format_version {}; this gpuctl reads {}, which binds "
                            "more of what decides the changes); run gpuctl plan again",
                            version, Plan::k_format_version),
                where, "gpuctl plan INVENTORY -o FILE");
  return fail(ErrorCode::parse,
              fmt::format("plan made by a newer gpuctl (format_version {}; this gpuctl reads {})", version,
                          Plan::k_format_version),
              where, "apply it with the gpuctl that made it, or run gpuctl plan again with this one");
}

}  // namespace

std::string changes_digest(const std::vector<Change>& changes) {
  // Each field as "<length>:<bytes>", so no choice of field contents can make two different
  // change lists serialise alike.
  util::Sha256 hasher;
  const auto field = [&hasher](std::string_view value) {
    hasher.update(fmt::format("{}:", value.size()));
    hasher.update(value);
  };
  field("gpuctl changes v1");
  for (const auto& c : changes) {
    field(action_name(c.action));
    field(c.step);
    field(c.resource);
    field(c.summary);
    field(c.reason);
    field(c.diff);
    field(std::to_string(c.step_index));
    field(std::to_string(c.resource_index));
    field(c.content_digest);
  }
  return hasher.hex_digest();
}

json slurm_hardware_to_json(const SlurmHardwareTable& table) {
  json out = json::array();
  for (const auto& [node, hardware] : table) {
    json values = json::object();
    for (const auto& value : hardware.values) values[value.key] = {{"value", value.value}, {"source", value.source}};
    out.push_back({{"node", node},
                   {"values", std::move(values)},
                   {"gpu_cores", hardware.gpu_cores},
                   {"gpu_cores_source", hardware.gpu_cores_source}});
  }
  return out;
}

SlurmHardwareTable slurm_hardware_from_json(const json& array) {
  SlurmHardwareTable table;
  for (const auto& entry : array) {
    SlurmNodeHardware hardware;
    const auto& values = entry.at("values");
    for (const auto key : k_slurm_hardware_keys)
      if (values.contains(key))
        hardware.values.push_back({std::string(key), whole_number(values.at(key).at("value"), key, 1, k_max_hardware_value),
                                   values.at(key).at("source").get<std::string>()});
    hardware.gpu_cores = entry.at("gpu_cores").get<std::vector<std::string>>();
    hardware.gpu_cores_source = entry.at("gpu_cores_source").get<std::string>();
    table[entry.at("node").get<std::string>()] = std::move(hardware);
  }
  return table;
}

std::string plan_to_json(const Plan& plan) {
  json nodes = json::array();
  int with_changes = 0, changes = 0;
  for (const auto& node : plan.nodes) {
    with_changes += node.changes.empty() ? 0 : 1;
    changes += static_cast<int>(node.changes.size());
    nodes.push_back(node_to_json(node));
  }
  json playbooks = json::array();
  for (const auto& p : plan.playbooks) playbooks.push_back({{"name", p.name}, {"path", p.path}, {"digest", p.digest}});
  const json document{
      {"format_version", Plan::k_format_version},
      {"created_at", plan.created_at},
      {"gpuctl_version", plan.gpuctl_version},
      {"inventory", {{"path", plan.inventory_path}, {"digest", plan.inventory_digest}}},
      {"limit", plan.limit},
      {"connection", plan.connection},
      {"playbooks", std::move(playbooks)},
      {"templates", {{"dir", plan.templates_dir}, {"files", inputs_to_json(plan.templates, "name")}}},
      {"source_files", inputs_to_json(plan.source_files, "path")},
      {"secrets", inputs_to_json(plan.secrets, "name")},
      {"slurm_hardware", slurm_hardware_to_json(plan.slurm_hardware)},
      {"summary", {{"nodes", plan.nodes.size()}, {"nodes_with_changes", with_changes}, {"changes", changes},
                   {"has_errors", plan.has_errors()}}},
      {"nodes", std::move(nodes)}};
  // A diff shows a node's file as it is: bytes that are not UTF-8 become U+FFFD, not an exception.
  return document.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

Result<Plan> plan_from_json(std::string_view text, const std::string& path) {
  try {
    const auto document = json::parse(text);
    if (auto version = check_format_version(document, path); !version) return std::unexpected(version.error());
    Plan plan;
    plan.created_at = document.at("created_at").get<std::string>();
    plan.gpuctl_version = document.at("gpuctl_version").get<std::string>();
    plan.inventory_path = document.at("inventory").at("path").get<std::string>();
    plan.inventory_digest = document.at("inventory").at("digest").get<std::string>();
    plan.limit = document.at("limit").get<std::string>();
    plan.connection = document.at("connection").get<std::string>();
    if (plan.connection != "" && plan.connection != "ssh" && plan.connection != "local")
      return fail(ErrorCode::parse, fmt::format("connection '{}' is not '', 'ssh' or 'local'", plan.connection),
                  Location{path, 0, 0, {}, {}});
    for (const auto& p : document.at("playbooks"))
      plan.playbooks.push_back(
          {p.at("name").get<std::string>(), p.at("path").get<std::string>(), p.at("digest").get<std::string>()});
    plan.templates_dir = document.at("templates").at("dir").get<std::string>();
    plan.templates = inputs_from_json(document.at("templates").at("files"), "name");
    plan.source_files = inputs_from_json(document.at("source_files"), "path");
    plan.secrets = inputs_from_json(document.at("secrets"), "name");
    if (document.contains("slurm_hardware")) plan.slurm_hardware = slurm_hardware_from_json(document.at("slurm_hardware"));
    for (const auto& n : document.at("nodes")) {
      auto node = node_from_json(n, path);
      if (!node) return std::unexpected(node.error());
      plan.nodes.push_back(std::move(*node));
    }
    return plan;
  } catch (const json::exception& e) {
    return fail(ErrorCode::parse, fmt::format("not a gpuctl plan: {}", e.what()), Location{path, 0, 0, {}, {}},
                "give a file written by `gpuctl plan -o FILE`");
  }
}

}  // namespace gpuctl
