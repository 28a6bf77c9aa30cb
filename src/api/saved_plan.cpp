// What a plan binds, and the check that a saved plan is the plan made now (api/saved_plan.hpp).
#include <gpuctl/api/saved_plan.hpp>

#include <gpuctl/util/file_io.hpp>
#include <gpuctl/util/sha256.hpp>

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>
#include <set>

namespace gpuctl {
namespace {

// Adds `name` once (the first digest seen wins: every node reads the same file).
void add_input(std::map<std::string, std::string>& inputs, const std::string& name, const std::string& digest) {
  inputs.try_emplace(name, digest);
}

std::vector<BoundInput> sorted_inputs(const std::map<std::string, std::string>& inputs) {
  std::vector<BoundInput> out;
  for (const auto& [name, digest] : inputs) out.push_back({name, digest});
  return out;
}

std::string_view status_word(NodePlanStatus status) {
  switch (status) {
    case NodePlanStatus::planned: return "planned";
    case NodePlanStatus::unreachable: return "unreachable";
    case NodePlanStatus::failed: return "failed";
  }
  return "failed";
}

std::string shown(const Change& change) { return fmt::format("{} {}", action_symbol(change.action), change.summary); }

// The first field in which two changes with the same summary differ, in words.
std::string differing_field(const Change& a, const Change& b) {
  if (a.action != b.action) return "action";
  if (a.step != b.step) return "step";
  if (a.resource != b.resource) return "resource";
  if (a.content_digest != b.content_digest) return "content digest";
  if (a.diff != b.diff) return "diff";
  if (a.reason != b.reason) return "reason";
  if (a.step_index != b.step_index || a.resource_index != b.resource_index) return "position in the program";
  return {};
}

// Why a node's saved changes are not its fresh ones; empty when they are the same.
std::string changes_difference(const std::vector<Change>& saved, const std::vector<Change>& fresh) {
  const std::size_t common = std::min(saved.size(), fresh.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (shown(saved[i]) != shown(fresh[i]))
      return fmt::format("the changes differ: {} (saved) vs {} (now)", shown(saved[i]), shown(fresh[i]));
    if (const auto field = differing_field(saved[i], fresh[i]); !field.empty())
      return fmt::format("the changes differ: {}: its {} differs", shown(saved[i]), field);
  }
  if (saved.size() > common)
    return fmt::format("the changes differ: {} (saved) vs nothing (now)", shown(saved[common]));
  if (fresh.size() > common)
    return fmt::format("the changes differ: nothing (saved) vs {} (now)", shown(fresh[common]));
  return {};
}

void compare_inputs(const std::vector<BoundInput>& saved, const std::vector<BoundInput>& fresh, std::string_view kind,
                    std::vector<std::string>& differences) {
  std::map<std::string, std::pair<const std::string*, const std::string*>> by_name;
  for (const auto& input : saved) by_name[input.name].first = &input.digest;
  for (const auto& input : fresh) by_name[input.name].second = &input.digest;
  for (const auto& [name, digests] : by_name) {
    const auto [was, now] = digests;
    if (!now) differences.push_back(fmt::format("{} {} is no longer used", kind, name));
    else if (!was) differences.push_back(fmt::format("{} {} is new", kind, name));
    else if (was->empty() && *was != *now)  // a secret the store lacked when the plan was made
      differences.push_back(fmt::format("{} {} was generated after the plan was made", kind, name));
    else if (*was != *now) differences.push_back(fmt::format("{} {} changed", kind, name));
  }
}

std::string names_of(const std::vector<BoundPlaybook>& playbooks) {
  std::string out;
  for (const auto& p : playbooks) out += (out.empty() ? "" : ", ") + p.name;
  return out.empty() ? "none" : out;
}

void compare_playbooks(const std::vector<BoundPlaybook>& saved, const std::vector<BoundPlaybook>& fresh,
                       std::vector<std::string>& differences) {
  const bool same_names = std::ranges::equal(saved, fresh, {}, &BoundPlaybook::name, &BoundPlaybook::name);
  if (!same_names) {
    differences.push_back(fmt::format("the playbooks differ ({} saved, {} now)", names_of(saved), names_of(fresh)));
    return;
  }
  for (std::size_t i = 0; i < saved.size(); ++i) {
    if (saved[i].path != fresh[i].path)
      differences.push_back(fmt::format("playbook {} changed (path {} saved, {} now)", saved[i].name, saved[i].path,
                                        fresh[i].path));
    else if (saved[i].digest != fresh[i].digest)
      differences.push_back(fmt::format("playbook {} changed (path {})", saved[i].name, saved[i].path));
  }
}

void compare_setting(const std::string& saved, const std::string& fresh, std::string_view what,
                     std::vector<std::string>& differences) {
  if (saved != fresh) differences.push_back(fmt::format("{} differs ('{}' saved, '{}' now)", what, saved, fresh));
}

void compare_nodes(const Plan& saved, const Plan& fresh, std::vector<std::string>& differences) {
  std::map<std::string, const NodePlan*> fresh_nodes;
  for (const auto& node : fresh.nodes) fresh_nodes[node.node] = &node;
  std::set<std::string> saved_names;
  for (const auto& node : saved.nodes) {
    saved_names.insert(node.node);
    if (node.changes_digest != changes_digest(node.changes)) {
      differences.push_back(fmt::format("node {}: the changes array was edited (digest mismatch)", node.node));
      continue;
    }
    const auto it = fresh_nodes.find(node.node);
    if (it == fresh_nodes.end()) {
      differences.push_back(fmt::format("node {} is in the saved plan but not selected now", node.node));
      continue;
    }
    const NodePlan& now = *it->second;
    if (node.status != now.status) {
      differences.push_back(fmt::format("node {}: {} (saved) vs {} (now){}", node.node, status_word(node.status),
                                        status_word(now.status), now.error.empty() ? "" : ": " + now.error));
    } else if (const auto why = changes_difference(node.changes, now.changes); !why.empty()) {
      differences.push_back(fmt::format("node {}: {}", node.node, why));
    } else if (node.state_fingerprint != now.state_fingerprint) {
      differences.push_back(fmt::format("node {}: its state changed since the plan was made", node.node));
    }
  }
  for (const auto& node : fresh.nodes)
    if (!saved_names.contains(node.node))
      differences.push_back(fmt::format("node {} is selected now but not in the saved plan", node.node));
}

// slurm.conf's hardware values: the rendered files differ too, but this names the node and value.
void compare_slurm_hardware(const SlurmHardwareTable& saved, const SlurmHardwareTable& fresh,
                            std::vector<std::string>& differences) {
  for (const auto& [node, hardware] : saved) {
    const auto now = fresh.find(node);
    if (now == fresh.end()) {
      differences.push_back(fmt::format("Slurm node {} has no hardware values now", node));
      continue;
    }
    if (now->second == hardware) continue;
    std::string what = "its GPU cores";
    for (std::size_t i = 0; i < hardware.values.size() && i < now->second.values.size(); ++i)
      if (hardware.values[i] != now->second.values[i]) {
        what = fmt::format("{}={} ({}) saved, {}={} ({}) now", hardware.values[i].key, hardware.values[i].value,
                           hardware.values[i].source, now->second.values[i].key, now->second.values[i].value,
                           now->second.values[i].source);
        break;
      }
    differences.push_back(fmt::format("the hardware slurm.conf gives node {} changed: {}", node, what));
  }
  for (const auto& [node, hardware] : fresh)
    if (!saved.contains(node)) differences.push_back(fmt::format("Slurm node {} was not in the saved plan's hardware", node));
}

}  // namespace

std::vector<BoundInput> template_digests(const std::string& templates_dir) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> digests;
  std::error_code ec;
  for (fs::recursive_directory_iterator it(templates_dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    const auto content = util::read_local_file(it->path().string(), "template");
    // An unreadable template has no digest: it then differs from any readable one.
    add_input(digests, fs::relative(it->path(), templates_dir).string(),
              content ? util::sha256_hex(*content) : std::string("unreadable"));
  }
  return sorted_inputs(digests);
}

void bind_plan_inputs(Plan& plan, const std::vector<Playbook>& playbooks,
                      const std::vector<std::string>& playbook_names, const std::string& templates_dir,
                      const std::vector<const NodeProgram*>& programs) {
  plan.gpuctl_version = GPUCTL_VERSION;
  plan.playbooks.clear();
  for (std::size_t i = 0; i < playbooks.size(); ++i)
    plan.playbooks.push_back(
        {i < playbook_names.size() ? playbook_names[i] : playbooks[i].path, playbooks[i].path, playbooks[i].digest});
  plan.templates_dir = templates_dir;
  plan.templates = template_digests(templates_dir);
  std::map<std::string, std::string> sources, secrets;
  for (const auto* program : programs)
    for (const auto& step : program->steps)
      for (const auto& resolved : step.resources) {
        const auto& file = resolved.resource.file;
        if (resolved.resource.kind != ResourceKind::file) continue;
        if (resolved.secret) add_input(secrets, file.secret, resolved.content_digest);
        else if (!file.source.empty()) add_input(sources, file.source, resolved.content_digest);
      }
  plan.source_files = sorted_inputs(sources);
  plan.secrets = sorted_inputs(secrets);
}

namespace {

// The differences of the inputs a run reads from local files, before any node.
void compare_local_inputs(const Plan& saved, const Plan& fresh, std::vector<std::string>& differences) {
  if (saved.gpuctl_version != fresh.gpuctl_version)
    differences.push_back(fmt::format("it was made by gpuctl {}; this is gpuctl {}", saved.gpuctl_version,
                                      fresh.gpuctl_version));
  if (saved.inventory_path != fresh.inventory_path)
    differences.push_back(fmt::format("the inventory is another file ({} saved, {} now)", saved.inventory_path,
                                      fresh.inventory_path));
  else if (saved.inventory_digest != fresh.inventory_digest)
    differences.push_back(fmt::format("the inventory changed ({})", saved.inventory_path));
  compare_setting(saved.limit, fresh.limit, "the node selection (--limit)", differences);
  compare_setting(saved.connection, fresh.connection, "the connection override (--connection)", differences);
  compare_playbooks(saved.playbooks, fresh.playbooks, differences);
  compare_setting(saved.templates_dir, fresh.templates_dir, "the templates directory", differences);
  compare_inputs(saved.templates, fresh.templates, "template", differences);
}

Result<void> refusal(const std::vector<std::string>& differences) {
  if (differences.empty()) return {};
  std::string message = "the saved plan is not what gpuctl would do now: ";
  for (std::size_t i = 0; i < differences.size() && i < k_listed_differences; ++i)
    message += (i ? "; " : "") + differences[i];
  if (differences.size() > k_listed_differences)
    message += fmt::format("; and {} more", differences.size() - k_listed_differences);
  return fail(ErrorCode::stale_plan, std::move(message), {},
              "nothing was applied; run gpuctl plan again, review it, and apply the new plan");
}

// Length-prefixed, so that no two different sequences of fields digest alike.
void add_field(std::string& out, std::string_view field) { out += fmt::format("{}:{};", field.size(), field); }

}  // namespace

Result<void> check_saved_plan_inputs(const Plan& saved, const Plan& local) {
  std::vector<std::string> differences;
  compare_local_inputs(saved, local, differences);
  return refusal(differences);
}

std::string plan_digest(const Plan& plan) {
  std::string text;
  for (const auto* field : {&plan.gpuctl_version, &plan.inventory_path, &plan.inventory_digest, &plan.limit,
                            &plan.connection, &plan.templates_dir})
    add_field(text, *field);
  for (const auto& p : plan.playbooks) add_field(text, p.name), add_field(text, p.path), add_field(text, p.digest);
  for (const auto* inputs : {&plan.templates, &plan.source_files, &plan.secrets}) {
    add_field(text, std::to_string(inputs->size()));
    for (const auto& input : *inputs) add_field(text, input.name), add_field(text, input.digest);
  }
  for (const auto& [node, hardware] : plan.slurm_hardware) {
    add_field(text, node);
    for (const auto& value : hardware.values)
      add_field(text, value.key), add_field(text, std::to_string(value.value)), add_field(text, value.source);
    for (const auto& cores : hardware.gpu_cores) add_field(text, cores);
    add_field(text, hardware.gpu_cores_source);
  }
  for (const auto& node : plan.nodes) {
    add_field(text, node.node);
    add_field(text, status_word(node.status));
    add_field(text, node.error);
    add_field(text, node.state_fingerprint);
    add_field(text, changes_digest(node.changes));
  }
  return util::sha256_hex(text);
}

Result<void> check_saved_plan(const Plan& saved, const Plan& fresh) {
  std::vector<std::string> differences;
  compare_local_inputs(saved, fresh, differences);
  compare_inputs(saved.source_files, fresh.source_files, "source file", differences);
  compare_inputs(saved.secrets, fresh.secrets, "secret", differences);
  compare_slurm_hardware(saved.slurm_hardware, fresh.slurm_hardware, differences);
  compare_nodes(saved, fresh, differences);
  return refusal(differences);
}

}  // namespace gpuctl
