// NVIDIA's Xid catalogue as gpuctl acts on it (include/gpuctl/health/xid_catalog.hpp).
#include <gpuctl/health/xid_catalog.hpp>

#include <algorithm>
#include <array>
#include <vector>

namespace gpuctl::health {
namespace {

struct Entry {
  int code;
  XidAction action;
};

constexpr std::string_view k_restart_app = "restart the application; the GPU needs nothing unless it repeats";
constexpr std::string_view k_reset_gpu = "drain the node, reset the GPU (nvidia-smi -r) or reboot, then run gpuctl verify";
constexpr std::string_view k_reset_then_support =
    "drain the node, reset the GPU (nvidia-smi -r) or reboot; contact support (RMA) if it repeats after a reset";

// The Xids a training cluster sees; every other code is `unknown`. Each scope and action is the
// catalogue's "Resolution Bucket (Immediate Action)" for the code (RESTART_APP, IGNORE,
// RESET_GPU, RESTART_BM, CONTACT_SUPPORT, the WORKFLOW_XID_* pages), checked 2026-12-07 against
// https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html.
constexpr std::array k_catalog{
    Entry{8, {XidScope::application, "GPU stopped processing (idle timeout)", k_restart_app}},            // RESTART_APP
    Entry{13, {XidScope::application, "graphics engine exception (usually the application's fault)", k_restart_app}},  // RESTART_APP
    Entry{31, {XidScope::application, "GPU memory page fault (usually an illegal address in the application)", k_restart_app}},  // RESTART_APP
    Entry{43, {XidScope::application, "GPU stopped processing after an application error", k_restart_app}},  // IGNORE
    // WORKFLOW_XID_45: with another Xid follow that one; alone, restart the fabric manager.
    Entry{45, {XidScope::application, "preemptive cleanup after an earlier error or a killed job",
               "nothing for this one: follow the Xid it followed; seen alone on an NVSwitch board, restart the fabric manager"}},
    Entry{48, {XidScope::gpu, "double-bit ECC error (DBE)", k_reset_gpu}},  // WORKFLOW_XID_48: reset or reboot
    // Unused on Ampere and later: the catalogue's bucket is CONTACT_SUPPORT.
    Entry{61, {XidScope::gpu, "internal micro-controller breakpoint (unused on Ampere and later)",
               "drain the node and contact NVIDIA support with an nvidia-bug-report.sh"}},
    Entry{62, {XidScope::gpu, "internal micro-controller halt", k_reset_gpu}},  // RESET_GPU
    // IGNORE: the remap itself is the row_remap check's (pending: reset to apply).
    Entry{63, {XidScope::informational, "row remapping event (the row_remap check judges a pending remap)",
               "nothing for the Xid; row_remap says whether a reset is due"}},
    Entry{64, {XidScope::gpu, "row remap or page retirement failed", k_reset_then_support}},  // RESET_GPU
    Entry{74, {XidScope::gpu, "NVLink error", k_reset_gpu}},  // WORKFLOW_NVLINK_ERR: reset or reboot to clear
    Entry{79, {XidScope::gpu, "GPU has fallen off the bus",  // RESTART_BM
               "drain the node and reboot it (a reset cannot reach the GPU); reseat or RMA if it repeats"}},
    Entry{92, {XidScope::informational, "high single-bit ECC error rate (corrected)",  // IGNORE
               "nothing now; contact support if it keeps coming"}},
    Entry{94, {XidScope::application, "contained ECC error (the GPU isolated it)",  // RESTART_APP
               "restart the application; reset the GPU when convenient"}},
    Entry{95, {XidScope::gpu, "uncontained ECC error", k_reset_gpu}},      // RESET_GPU
    Entry{109, {XidScope::gpu, "context switch timeout", k_reset_gpu}},    // RESET_GPU
    Entry{119, {XidScope::gpu, "GSP RPC timeout", k_reset_gpu}},           // RESET_GPU
    Entry{120, {XidScope::gpu, "GSP error", k_reset_gpu}},                 // RESET_GPU
    Entry{140, {XidScope::gpu, "unrecovered ECC error", k_reset_then_support}},  // RESET_GPU
    Entry{154, {XidScope::gpu, "GPU recovery action changed (the line names it: reset, reboot or drain)",  // XID_154
                "follow the recovery action in the line; then run gpuctl verify"}},
};

}  // namespace

XidAction xid_action(int code) {
  for (const auto& entry : k_catalog)
    if (entry.code == code) return entry.action;
  return {XidScope::unknown, "not in gpuctl's table",
          "look the code up in NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors); drain the node until then"};
}

std::vector<int> xid_codes(XidScope scope) {
  std::vector<int> codes;
  for (const auto& entry : k_catalog)
    if (entry.action.scope == scope) codes.push_back(entry.code);
  std::ranges::sort(codes);
  return codes;
}

}  // namespace gpuctl::health
