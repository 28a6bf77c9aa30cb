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

// The Xids a training cluster sees; every other code is `unknown`.
constexpr std::array k_catalog{
    Entry{8, {XidScope::application, "GPU stopped processing (idle timeout)", k_restart_app}},
    Entry{13, {XidScope::application, "graphics engine exception (usually the application's fault)", k_restart_app}},
    Entry{31, {XidScope::application, "GPU memory page fault (usually an illegal address in the application)", k_restart_app}},
    Entry{43, {XidScope::application, "GPU stopped processing after an application error", k_restart_app}},
    Entry{45, {XidScope::application, "preemptive cleanup after an earlier error or a killed job", k_restart_app}},
    Entry{48, {XidScope::gpu, "double-bit ECC error (DBE)", k_reset_gpu}},
    Entry{61, {XidScope::gpu, "internal micro-controller breakpoint", k_reset_gpu}},
    Entry{62, {XidScope::gpu, "internal micro-controller halt", k_reset_gpu}},
    Entry{63, {XidScope::gpu, "a row remap or page retirement is pending",
               "drain the node and reset the GPU to apply it (the row_remap check shows the count)"}},
    Entry{64, {XidScope::gpu, "row remap or page retirement failed",
               "drain the node and have the GPU serviced (RMA) if it repeats after a reset"}},
    Entry{74, {XidScope::gpu, "NVLink error", k_reset_gpu}},
    Entry{79, {XidScope::gpu, "GPU has fallen off the bus",
               "drain the node and reboot it (a reset cannot reach the GPU); reseat or RMA if it repeats"}},
    Entry{92, {XidScope::gpu, "high single-bit ECC error rate", "drain the node and contact support if it persists"}},
    Entry{94, {XidScope::application, "contained ECC error (the GPU isolated it)", k_restart_app}},
    Entry{95, {XidScope::gpu, "uncontained ECC error", k_reset_gpu}},
    Entry{109, {XidScope::application, "context switch timeout", k_restart_app}},
    Entry{119, {XidScope::gpu, "GSP RPC timeout", k_reset_gpu}},
    Entry{120, {XidScope::gpu, "GSP error", k_reset_gpu}},
    Entry{140, {XidScope::gpu, "unrecovered ECC error", k_reset_gpu}},
    Entry{154, {XidScope::gpu, "GPU recovery action changed (the line names it: reset, reboot or drain)",
                "follow the recovery action in the line; then run gpuctl verify"}},
};

}  // namespace

XidAction xid_action(int code) {
  for (const auto& entry : k_catalog)
    if (entry.code == code) return entry.action;
  return {XidScope::unknown, "not in gpuctl's table",
          "look the code up in NVIDIA's Xid catalogue (docs.nvidia.com/deploy/xid-errors); drain the node until then"};
}

std::vector<int> application_xid_codes() {
  std::vector<int> codes;
  for (const auto& entry : k_catalog)
    if (entry.action.scope == XidScope::application) codes.push_back(entry.code);
  std::ranges::sort(codes);
  return codes;
}

}  // namespace gpuctl::health
