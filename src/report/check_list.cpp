// The check catalog as `verify --list` shows it (report/check_list.hpp).
#include <gpuctl/report/check_list.hpp>

#include <gpuctl/facts/collect.hpp>
#include <gpuctl/health/policy.hpp>
#include <gpuctl/verify/catalog.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>

namespace gpuctl {
namespace {

// What a non-pass cites, in words: the spec's own, else its first fact's readable command.
std::string cited_source(const CheckSpec& spec) {
  if (!spec.source.empty()) return std::string(spec.source);
  return spec.facts.empty() ? std::string() : facts::probe_command(spec.facts.front());
}

// The health policy: what remediate and the health program do about each fault.
std::string render_health_policy() {
  const auto& policy = health::health_policy();
  std::string out = fmt::format("\nhealth policy {} (what gpuctl remediate and the node health program do; "
                                "docs/remediation.md):\n",
                                policy.version);
  for (const auto& rule : policy.xids)
    out += fmt::format("  Xid {:<4} {:<20} {:<16} {}\n", rule.code, rule.bucket,
                       rule.from_recovery_action ? "(the line's)" : health::to_string(rule.remedy), rule.meaning);
  out += "  Xid other (not listed)        investigate      look the code up; the node stays drained\n";
  for (const auto& action : policy.recovery_actions)
    out += fmt::format("  Xid 154 recovery action 0x{:x} ({}): {}\n", action.value, action.name, health::to_string(action.remedy));
  out += fmt::format("  SXid fatal: {}; non-fatal: {}\n", health::to_string(policy.sxid_fatal),
                     health::to_string(policy.sxid_non_fatal));
  for (const auto& [key, remedy] : policy.checks) out += fmt::format("  {}: {}\n", key, health::to_string(remedy));
  out += fmt::format("  after a reset or reboot: DCGM diagnostic -r {}, then verify\n", policy.remedy_diag_level);
  for (const auto& source : policy.sources)
    out += fmt::format("  source ({}): {}, {} (checked {})\n", source.key, source.title, source.url, source.checked);
  return out;
}

nlohmann::ordered_json health_policy_json() {
  const auto& policy = health::health_policy();
  nlohmann::ordered_json xids = nlohmann::ordered_json::array();
  for (const auto& rule : policy.xids)
    xids.push_back({{"code", rule.code},
                    {"bucket", rule.bucket},
                    {"remedy", rule.from_recovery_action ? std::string("recovery_action") : std::string(health::to_string(rule.remedy))},
                    {"meaning", rule.meaning}});
  nlohmann::ordered_json actions = nlohmann::ordered_json::array();
  for (const auto& action : policy.recovery_actions)
    actions.push_back({{"value", action.value}, {"name", action.name}, {"remedy", std::string(health::to_string(action.remedy))}});
  nlohmann::ordered_json checks = nlohmann::ordered_json::object();
  for (const auto& [key, remedy] : policy.checks) checks[key] = std::string(health::to_string(remedy));
  nlohmann::ordered_json sources = nlohmann::ordered_json::array();
  for (const auto& source : policy.sources)
    sources.push_back({{"key", source.key}, {"title", source.title}, {"url", source.url}, {"checked", source.checked}});
  return {{"version", policy.version},
          {"xid", std::move(xids)},
          {"recovery_action", std::move(actions)},
          {"sxid", {{"fatal", std::string(health::to_string(policy.sxid_fatal))},
                    {"non_fatal", std::string(health::to_string(policy.sxid_non_fatal))}}},
          {"checks", std::move(checks)},
          {"after_remedy_dcgm_diag_level", policy.remedy_diag_level},
          {"sources", std::move(sources)}};
}

}  // namespace

std::string render_check_list() {
  const auto catalog = check_catalog();
  std::size_t width = 0;
  for (const auto* spec : catalog) width = std::max(width, spec->name.size());
  std::string out;
  std::optional<CheckSection> section;
  for (const auto* spec : catalog) {
    if (spec->section != section) {
      out += fmt::format("{}{}:\n", section ? "\n" : "", to_string(spec->section));
      section = spec->section;
    }
    out += fmt::format("  {:<{}}  {}{}\n", spec->name, width, spec->description,
                       spec->judge ? "" : " (added by verify, not listed in playbooks)");
  }
  out += fmt::format("\n{} checks. A playbook step lists the ones that prove it under `checks:`; docs/verify.md says "
                     "what each reads, when it fails and when it cannot run.\n",
                     catalog.size());
  return out + render_health_policy();
}

std::string check_list_to_json() {
  nlohmann::ordered_json checks = nlohmann::ordered_json::array();
  for (const auto* spec : check_catalog()) {
    nlohmann::ordered_json facts = nlohmann::ordered_json::array();
    for (const auto fact : spec->facts) facts.push_back(std::string(fact));
    checks.push_back({{"name", std::string(spec->name)},
                      {"description", std::string(spec->description)},
                      {"section", std::string(to_string(spec->section))},
                      {"facts", std::move(facts)},
                      {"runner", spec->runner == NodeRunner::none ? nlohmann::ordered_json(nullptr)
                                                                  : nlohmann::ordered_json(std::string(to_string(spec->runner)))},
                      {"source", cited_source(*spec)},
                      {"in_playbooks", spec->judge != nullptr}});
  }
  nlohmann::ordered_json doc{{"format_version", 1}, {"checks", std::move(checks)}, {"health_policy", health_policy_json()}};
  return doc.dump(2) + "\n";
}

}  // namespace gpuctl
