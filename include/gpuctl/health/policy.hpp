#pragma once
// gpuctl's health policy (src/health/health-policy.yaml, embedded at build time): for each
// Xid, SXid severity and failing health check, what it means and what gpuctl does about it.
// verify judges Xids by it, the alert rules are rendered from it, `gpuctl remediate` and the
// node health program act on it. Pure: parsed once from the embedded text.

#include <gpuctl/core/error.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl::health {

// What gpuctl does about a fault, mildest first: the order is the escalation (a node's remedy is
// the most severe its faults call for). contact_support and investigate leave the node drained.
enum class Remedy {
  none,             // a record: nothing to do
  restart_app,      // the job's fault: the node is fine
  reset_gpu,        // nvidia-smi -r with the GPU's clients stopped
  reboot,           // a reset cannot reach the GPU
  contact_support,  // RMA / NVIDIA support: stays drained
  investigate,      // no rule: stays drained until a person looks
};
std::string_view to_string(Remedy remedy);
std::optional<Remedy> parse_remedy(std::string_view text);
// True for the remedies after which the node can go back to work without a person.
bool remedy_is_automatic(Remedy remedy);
// True when the node is unfit for jobs until the remedy is done (reset and worse).
bool remedy_needs_drain(Remedy remedy);

struct PolicySource {
  std::string key;      // "xid"
  std::string title;
  std::string url;
  std::string checked;  // the date the entries were compared with the source
};

struct XidRule {
  int code = 0;
  std::string bucket;   // the catalogue's "Resolution Bucket (Immediate Action)": RESET_GPU
  Remedy remedy = Remedy::investigate;
  bool from_recovery_action = false;  // Xid 154: the line names the action
  std::string meaning;
};

struct RecoveryActionRule {
  int value = 0;
  std::string name;     // "GPU Reset"
  Remedy remedy = Remedy::investigate;
};

struct HealthPolicy {
  std::string version;
  std::vector<PolicySource> sources;
  std::vector<XidRule> xids;                  // ascending by code
  std::vector<RecoveryActionRule> recovery_actions;
  Remedy sxid_fatal = Remedy::reset_gpu;
  Remedy sxid_non_fatal = Remedy::none;
  int remedy_diag_level = 2;  // DCGM's diagnostic after a reset or reboot (0: none)
  std::map<std::string, Remedy, std::less<>> checks;  // "row_remap_pending" -> reset_gpu; "other"

  const XidRule* find_xid(int code) const;
  // Xid 154's "... to 0xN (Name)": the rule of N; nullptr when the text names no known value.
  const RecoveryActionRule* recovery_action_in(std::string_view xid_message) const;
  // The remedy of one Xid line (code and the text after it); unknown codes: investigate.
  Remedy xid_remedy(int code, std::string_view message) const;
  // The remedy of a check condition by its key in `checks`, "other" when absent.
  Remedy check_remedy(std::string_view key) const;
};

// Parses a policy document; errors name the entry and field.
Result<HealthPolicy> parse_health_policy(std::string_view yaml_text);

// The embedded policy, parsed on first use (a build whose policy does not parse aborts with
// the error: the unit tests parse it first).
const HealthPolicy& health_policy();
std::string_view embedded_health_policy_text();

}  // namespace gpuctl::health
