// The health policy (include/gpuctl/health/policy.hpp): the embedded document and its reader.
#include <gpuctl/health/policy.hpp>

#include "yaml/decoder.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fmt/format.h>

namespace gpuctl::health {
namespace {

constexpr std::string_view k_policy_text =
#include "gpuctl_health_policy.inc"
    ;

constexpr std::array<std::pair<Remedy, std::string_view>, 6> k_remedies{{
    {Remedy::none, "none"},
    {Remedy::restart_app, "restart_app"},
    {Remedy::reset_gpu, "reset_gpu"},
    {Remedy::reboot, "reboot"},
    {Remedy::contact_support, "contact_support"},
    {Remedy::investigate, "investigate"},
}};

std::vector<std::string> remedy_names() {
  std::vector<std::string> names;
  for (const auto& [remedy, name] : k_remedies) names.emplace_back(name);
  return names;
}

const std::vector<std::string> k_check_keys{"row_remap_pending", "row_remap_failure", "ecc_uncorrected_volatile",
                                            "gpu_missing", "gpu_unreadable", "fabric_not_completed", "dcgm_diag",
                                            "other"};

class PolicyReader {
 public:
  explicit PolicyReader(std::vector<Diagnostic>& diagnostics) : m_decode("health-policy.yaml", diagnostics) {}

  void read(const yaml::YamlNode& root, HealthPolicy& policy) {
    static const std::vector<std::string> top{"policy",          "version", "sources",      "xid",
                                              "recovery_action", "sxid",    "after_remedy", "checks"};
    const auto map = m_decode.map(root, "the health policy", top);
    if (!map) return;
    if (const auto* version = map->get("version")) policy.version = m_decode.version(*version, "version").value_or("");
    if (policy.version.empty()) m_decode.error(root, "the health policy has no version");
    if (const auto* sources = map->get("sources")) read_sources(*sources, policy);
    if (const auto* xids = map->get("xid")) read_xids(*xids, policy);
    if (const auto* actions = map->get("recovery_action")) read_recovery_actions(*actions, policy);
    if (const auto* sxid = map->get("sxid")) read_sxid(*sxid, policy);
    if (const auto* checks = map->get("checks")) read_checks(*checks, policy);
    if (const auto* after = map->get("after_remedy")) {
      static const std::vector<std::string> keys{"dcgm_diag_level"};
      const auto after_map = m_decode.map(*after, "after_remedy", keys);
      if (after_map && after_map->get("dcgm_diag_level"))
        policy.remedy_diag_level = m_decode.integer(*after_map->get("dcgm_diag_level"), "dcgm_diag_level", 0, 4).value_or(2);
    }
    if (!policy.checks.contains("other")) m_decode.error(root, "checks: needs 'other', the remedy of any other failure");
  }

 private:
  std::optional<Remedy> remedy(const yaml::YamlNode& node, std::string_view what, bool allow_recovery = false) {
    static const auto names = remedy_names();
    if (allow_recovery && node.is_scalar() && node.value == "recovery_action") return std::nullopt;
    const auto name = m_decode.choice(node, what, names);
    return name ? parse_remedy(*name) : std::nullopt;
  }

  void read_sources(const yaml::YamlNode& node, HealthPolicy& policy) {
    const auto map = m_decode.map(node, "sources", {});
    if (!map) return;
    static const std::vector<std::string> keys{"title", "url", "checked"};
    for (const auto& entry : map->entries()) {
      const auto source = m_decode.map(*entry.value, fmt::format("source '{}'", entry.key), keys);
      if (!source) continue;
      PolicySource out{entry.key, {}, {}, {}};
      if (const auto* v = source->get("title")) out.title = m_decode.string(*v, "title").value_or("");
      if (const auto* v = source->get("url")) out.url = m_decode.string(*v, "url").value_or("");
      if (const auto* v = source->get("checked")) out.checked = m_decode.string(*v, "checked").value_or("");
      if (out.title.empty() || !out.url.starts_with("https://") || out.checked.empty())
        m_decode.error(*entry.value, fmt::format("source '{}' needs a title, an https url and the date it was checked", entry.key));
      policy.sources.push_back(std::move(out));
    }
  }

  void read_xids(const yaml::YamlNode& node, HealthPolicy& policy) {
    if (!node.is_sequence()) return m_decode.error(node, "xid: must be a list of {code, bucket, action, meaning}");
    static const std::vector<std::string> keys{"code", "bucket", "action", "meaning"};
    for (const auto& item : node.items) {
      const auto map = m_decode.map(item, "an xid entry", keys);
      if (!map) continue;
      XidRule rule;
      const auto* code = map->get("code");
      const auto* action = map->get("action");
      const auto* bucket = map->get("bucket");
      const auto* meaning = map->get("meaning");
      if (!code || !action || !bucket || !meaning) {
        m_decode.error(item, "an xid entry needs code, bucket, action and meaning");
        continue;
      }
      rule.code = m_decode.integer(*code, "code", 1, 65535).value_or(0);
      rule.bucket = m_decode.string(*bucket, "bucket").value_or("");
      rule.meaning = m_decode.string(*meaning, "meaning").value_or("");
      rule.from_recovery_action = action->is_scalar() && action->value == "recovery_action";
      if (auto parsed = remedy(*action, fmt::format("action of Xid {}", rule.code), true)) rule.remedy = *parsed;
      if (policy.find_xid(rule.code)) m_decode.error(*code, fmt::format("Xid {} is listed twice", rule.code));
      policy.xids.push_back(std::move(rule));
    }
    std::ranges::sort(policy.xids, {}, &XidRule::code);
  }

  void read_recovery_actions(const yaml::YamlNode& node, HealthPolicy& policy) {
    if (!node.is_sequence()) return m_decode.error(node, "recovery_action: must be a list of {value, name, action}");
    static const std::vector<std::string> keys{"value", "name", "action"};
    for (const auto& item : node.items) {
      const auto map = m_decode.map(item, "a recovery_action entry", keys);
      if (!map || !map->get("value") || !map->get("name") || !map->get("action")) {
        m_decode.error(item, "a recovery_action entry needs value, name and action");
        continue;
      }
      RecoveryActionRule rule;
      rule.value = m_decode.integer(*map->get("value"), "value", 0, 255).value_or(0);
      rule.name = m_decode.string(*map->get("name"), "name").value_or("");
      if (auto parsed = remedy(*map->get("action"), "recovery action")) rule.remedy = *parsed;
      policy.recovery_actions.push_back(std::move(rule));
    }
  }

  void read_sxid(const yaml::YamlNode& node, HealthPolicy& policy) {
    static const std::vector<std::string> keys{"fatal", "non_fatal"};
    const auto map = m_decode.map(node, "sxid", keys);
    if (!map) return;
    if (const auto* v = map->get("fatal"); v) policy.sxid_fatal = remedy(*v, "sxid fatal").value_or(Remedy::investigate);
    if (const auto* v = map->get("non_fatal"); v)
      policy.sxid_non_fatal = remedy(*v, "sxid non_fatal").value_or(Remedy::investigate);
  }

  void read_checks(const yaml::YamlNode& node, HealthPolicy& policy) {
    const auto map = m_decode.map(node, "checks", k_check_keys);
    if (!map) return;
    for (const auto& entry : map->entries())
      if (auto parsed = remedy(*entry.value, fmt::format("checks.{}", entry.key))) policy.checks[entry.key] = *parsed;
  }

  yaml::Decoder m_decode;
};

}  // namespace

std::string_view to_string(Remedy remedy) {
  for (const auto& [value, name] : k_remedies)
    if (value == remedy) return name;
  return "investigate";
}

std::optional<Remedy> parse_remedy(std::string_view text) {
  for (const auto& [value, name] : k_remedies)
    if (name == text) return value;
  return std::nullopt;
}

bool remedy_is_automatic(Remedy remedy) { return remedy <= Remedy::reboot; }
bool remedy_needs_drain(Remedy remedy) { return remedy >= Remedy::reset_gpu; }

const XidRule* HealthPolicy::find_xid(int code) const {
  const auto it = std::ranges::find(xids, code, &XidRule::code);
  return it == xids.end() ? nullptr : &*it;
}

const RecoveryActionRule* HealthPolicy::recovery_action_in(std::string_view message) const {
  // "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"
  const auto to = message.rfind(" to 0x");
  if (to == std::string_view::npos) return nullptr;
  int value = 0;
  std::size_t at = to + 6;
  bool digits = false;
  for (; at < message.size(); ++at) {
    const char c = message[at];
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0) break;
    if (value > 0xfff) return nullptr;
    value = value * 16 + digit;
    digits = true;
  }
  if (!digits) return nullptr;
  const auto it = std::ranges::find(recovery_actions, value, &RecoveryActionRule::value);
  return it == recovery_actions.end() ? nullptr : &*it;
}

Remedy HealthPolicy::xid_remedy(int code, std::string_view message) const {
  const auto* rule = find_xid(code);
  if (!rule) return Remedy::investigate;
  if (!rule->from_recovery_action) return rule->remedy;
  const auto* action = recovery_action_in(message);
  return action ? action->remedy : Remedy::investigate;
}

Remedy HealthPolicy::check_remedy(std::string_view key) const {
  if (const auto it = checks.find(key); it != checks.end()) return it->second;
  const auto other = checks.find("other");
  return other == checks.end() ? Remedy::investigate : other->second;
}

Result<HealthPolicy> parse_health_policy(std::string_view yaml_text) {
  auto parsed = yaml::parse_yaml(yaml_text, "health-policy.yaml", "health policy");
  std::vector<Diagnostic> diagnostics = std::move(parsed.errors);
  HealthPolicy policy;
  if (diagnostics.empty()) PolicyReader(diagnostics).read(parsed.root, policy);
  for (const auto& diagnostic : diagnostics)
    if (diagnostic.severity == Severity::error) return fail(ErrorCode::parse, diagnostic.to_string());
  return policy;
}

std::string_view embedded_health_policy_text() { return k_policy_text; }

const HealthPolicy& health_policy() {
  static const HealthPolicy policy = [] {
    auto parsed = parse_health_policy(k_policy_text);
    if (!parsed) {
      std::fprintf(stderr, "gpuctl: the embedded health policy does not parse: %s\n", parsed.error().to_string().c_str());
      std::abort();
    }
    return std::move(*parsed);
  }();
  return policy;
}

}  // namespace gpuctl::health
