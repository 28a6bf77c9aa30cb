// The Xid view of the health policy (include/gpuctl/health/xid_catalog.hpp): each code's scope
// and the admin's words for its remedy, from src/health/health-policy.yaml.
#include <gpuctl/health/policy.hpp>
#include <gpuctl/health/xid_catalog.hpp>

#include <algorithm>
#include <vector>

namespace gpuctl::health {
namespace {

XidScope scope_of(const XidRule& rule) {
  if (rule.from_recovery_action) return XidScope::gpu;
  switch (rule.remedy) {
    case Remedy::none: return XidScope::informational;
    case Remedy::restart_app: return XidScope::application;
    case Remedy::reset_gpu:
    case Remedy::reboot:
    case Remedy::contact_support: return XidScope::gpu;
    case Remedy::investigate: return XidScope::unknown;
  }
  return XidScope::unknown;
}

std::string_view advice(const XidRule& rule) {
  if (rule.from_recovery_action) return "follow the recovery action in the line (gpuctl remediate does); then run gpuctl verify";
  if (rule.code == 45) return "nothing for this one: follow the Xid it followed; seen alone on an NVSwitch board, restart the fabric manager";
  if (rule.code == 63) return "nothing for the Xid; row_remap says whether a reset is due";
  switch (rule.remedy) {
    case Remedy::none: return "nothing now; contact support if it keeps coming";
    case Remedy::restart_app: return "restart the application; the GPU needs nothing unless it repeats";
    case Remedy::reset_gpu:
      return "gpuctl remediate NODE (drain, reset the GPU with nvidia-smi -r, diagnose, verify, resume); "
             "contact support (RMA) if it repeats after a reset";
    case Remedy::reboot:
      return "gpuctl remediate NODE (drain and reboot: a reset cannot reach the GPU); reseat or RMA if it repeats";
    case Remedy::contact_support: return "drain the node and contact NVIDIA support with an nvidia-bug-report.sh";
    case Remedy::investigate: break;
  }
  return "look the code up in NVIDIA's Xid catalogue; the node stays drained until then";
}

}  // namespace

XidAction xid_action(int code) {
  if (const auto* rule = health_policy().find_xid(code)) return {scope_of(*rule), rule->meaning, advice(*rule)};
  return {XidScope::unknown, "not in gpuctl's health policy",
          "look the code up in NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors); drain the node until then"};
}

std::vector<int> xid_codes(XidScope scope) {
  std::vector<int> codes;
  for (const auto& rule : health_policy().xids)
    if (scope_of(rule) == scope) codes.push_back(rule.code);
  std::ranges::sort(codes);
  return codes;
}

}  // namespace gpuctl::health
