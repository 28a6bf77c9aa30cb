#include "check_result.hpp"
#include "check_sources.hpp"
#include "gpu_model.hpp"
#include "xid_catalog.hpp"

#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <initializer_list>
#include <map>
#include <optional>
#include <tuple>

namespace gpuctl::verify_detail {

// HW slowdown (thermal or power brake) halves the clocks or worse: a job there runs at half
// speed and holds back every rank it talks to. SW thermal capping is the driver keeping the GPU
// under its maximum operating temperature: cooling, not the GPU, needs looking at.
CheckResult check_clock_slowdown(const CheckInput& in) {
  const auto& gpus = in.state.facts.clock_events;
  if (!gpus.present()) return cannot_run(absent_reason(gpus, "clock event reasons"));
  std::vector<std::string> slowed, unknown;
  for (const auto& gpu : *gpus.value) {
    const std::pair<const std::optional<bool>*, std::string_view> reasons[] = {
        {&gpu.hw_thermal_slowdown, "HW thermal slowdown"},
        {&gpu.hw_power_brake_slowdown, "HW power brake slowdown"},
        {&gpu.hw_slowdown, "HW slowdown"},
        {&gpu.sw_thermal_slowdown, "SW thermal slowdown"}};
    std::vector<std::string> active, unanswered;
    for (const auto& [value, name] : reasons) {
      if (!*value) unanswered.emplace_back(name);
      else if (**value) active.emplace_back(name);
    }
    // HW slowdown is also set whenever one of its two causes is: name the cause only.
    if (active.size() > 1 && active.back() == "HW slowdown") active.pop_back();
    if (!active.empty()) slowed.push_back(fmt::format("GPU {}: {}", gpu.pci_bus_id, util::join(active, ", ")));
    else if (!unanswered.empty()) unknown.push_back(fmt::format("GPU {}: {} not reported", gpu.pci_bus_id, util::join(unanswered, ", ")));
  }
  if (!slowed.empty())
    return failed(util::join(slowed, "; "), "no clock slowdown",
                  "thermal: check the airflow, fans and inlet temperature; power brake: the power supply asserted it "
                  "(check PSUs and the PDU); drain the node until the clocks are back");
  if (!unknown.empty()) return cannot_run(util::join(unknown, "; "));
  return pass(fmt::format("none on {} GPUs", gpus.value->size()), "no clock slowdown");
}

CheckResult check_gpu_temperature(const CheckInput& in) {
  const auto& limit = in.node.gpu.max_temperature_c;
  if (!limit) return skipped("no gpu.max_temperature_c in the inventory");
  const auto& gpus = in.state.facts.gpus;
  if (!gpus.present()) return cannot_run(absent_reason(gpus, "GPUs"));
  std::vector<std::string> hot, unknown;
  int hottest = 0;
  for (const auto& gpu : *gpus.value) {
    if (!gpu.temperature_c) {
      unknown.push_back(fmt::format("GPU {}: temperature not reported", gpu.index));
      continue;
    }
    hottest = std::max(hottest, *gpu.temperature_c);
    if (*gpu.temperature_c > *limit) hot.push_back(fmt::format("GPU {} at {} C", gpu.index, *gpu.temperature_c));
  }
  const auto expected = fmt::format("<= {} C", *limit);
  if (!hot.empty())
    return failed(util::join(hot, ", "), expected, "check the airflow, fans and inlet temperature before it slows down");
  if (!unknown.empty()) return cannot_run(util::join(unknown, "; "));
  return pass(fmt::format("hottest {} C", hottest), expected);
}

// Hopper and later report each GPU's registration with the NVSwitch fabric; only "Completed"
// with status "Success" lets CUDA use the NVLink fabric. "Not Started" is the fabric manager
// not running; "In Progress" that it has not finished (or is stuck).
// The GPUs of NVSwitch boards before Hopper (HGX-2's V100, HGX A100 and A800): the driver
// reports no fabric registration for them (NVML's nvmlDeviceGetGpuFabricInfo is for Hopper and
// later), so their "N/A" is what a healthy board says, not a value gpuctl failed to read.
static bool reports_no_fabric_state(std::string_view gpu_name) {
  const auto model = normalise_gpu_name(gpu_name).model;
  return model == "v100" || model == "a100" || model == "a800";
}

// The fabric's health after a completed registration (`nvidia-smi -q`, Fabric > Health). The
// Summary (R570 on) is the driver's verdict; without one (R550/R560, or "N/A") the conditions
// are read one by one. "N/A" / "Not Supported" throughout: this driver or board reports no
// health, so the registration judges alone. A value gpuctl does not know is unknown, never clear.
namespace {

struct FabricHealth {
  std::vector<std::string> faults;   // "Summary Unhealthy", "Route Unhealthy True"
  std::vector<std::string> unknown;  // "Bandwidth [Unknown Error]"
  bool reported = false;             // some health value was given
};

FabricHealth judge_fabric_health(const GpuFabric& gpu) {
  FabricHealth out;
  const auto is = [](std::string_view value, std::initializer_list<std::string_view> words) {
    const auto lower = util::to_lower(value);
    return std::ranges::any_of(words, [&](std::string_view word) { return lower == word; });
  };
  for (const auto& [key, value] : gpu.health) {
    if (is_not_applicable(value)) continue;
    const auto text = key + " " + value;
    std::optional<bool> clear;  // nullopt: a value gpuctl does not know
    if (key == "Summary") clear = is(value, {"healthy"}) ? std::optional(true)
                                  : is(value, {"unhealthy", "limited capacity"}) ? std::optional(false) : std::nullopt;
    else if (key == "Bandwidth") clear = is(value, {"full"}) ? std::optional(true)
                                       : is(value, {"degraded"}) ? std::optional(false) : std::nullopt;
    else if (key == "Route Recovery in progress" || key == "Route Unhealthy" || key == "Access Timeout Recovery")
      clear = is(value, {"false", "no"}) ? std::optional(true) : is(value, {"true", "yes"}) ? std::optional(false) : std::nullopt;
    else if (key == "Incorrect Configuration") clear = is(value, {"none"});
    else continue;  // "Partition Assigned" and later additions: information, not health
    out.reported = true;
    if (!clear) out.unknown.push_back(text);
    else if (!*clear) out.faults.push_back(text);
  }
  return out;
}

}  // namespace

CheckResult check_fabric_state(const CheckInput& in) {
  if (!has_nvswitch(in.node.gpu)) return skipped("no NVSwitch on this node (gpu.nvswitch, or not an 8-GPU HGX board)");
  const auto& gpus = in.state.facts.fabric;
  if (!gpus.present()) return cannot_run(absent_reason(gpus, "fabric state"));
  std::map<std::string, std::string> name_by_bus;
  if (in.state.facts.gpus.present())
    for (const auto& gpu : *in.state.facts.gpus.value) name_by_bus[gpu.pci_bus_id] = gpu.name;
  std::vector<std::string> bad, unhealthy, unknown;
  std::string older_model;  // a pre-Hopper GPU's name, when such GPUs report no state
  std::size_t older = 0, health_reported = 0;
  for (const auto& gpu : *gpus.value) {
    const auto name = name_by_bus.find(gpu.pci_bus_id);
    if (!gpu.state_reported && name != name_by_bus.end() && reports_no_fabric_state(name->second)) {
      older_model = name->second;
      ++older;
    } else if (!gpu.state_reported) unknown.push_back(fmt::format("GPU {}: fabric state {}", gpu.pci_bus_id, gpu.state));
    else if (gpu.state != "Completed" || gpu.status != "Success")
      bad.push_back(fmt::format("GPU {}: {}{}", gpu.pci_bus_id, gpu.state, gpu.state == "Completed" ? ", " + gpu.status : ""));
    else {
      const auto health = judge_fabric_health(gpu);
      if (health.reported) ++health_reported;
      if (!health.faults.empty())
        unhealthy.push_back(fmt::format("GPU {}: Completed, Success, but {}", gpu.pci_bus_id, util::join(health.faults, ", ")));
      if (!health.unknown.empty())
        unknown.push_back(fmt::format("GPU {}: fabric health {}", gpu.pci_bus_id, util::join(health.unknown, ", ")));
    }
  }
  const std::string expected = "Completed, Success and a healthy fabric on every GPU";
  if (!bad.empty() || !unhealthy.empty()) {
    std::vector<std::string> fixes;
    if (!bad.empty())
      fixes.emplace_back("Not Started: the fabric manager is not running (fabricmanager_active); In Progress: it has not "
                         "finished, see its log (/var/log/fabricmanager.log); a failed status: restart it, then reset the GPUs");
    if (!unhealthy.empty())
      fixes.emplace_back("the GPU joined the fabric but the driver reports it unhealthy (NVLink bandwidth or routes degraded): "
                         "drain the node, see the fabric manager's log and `nvidia-smi nvlink -s`, then restart the fabric "
                         "manager and reset the GPUs; a fault that returns is the board's (NVLink/NVSwitch): contact support");
    bad.insert(bad.end(), unhealthy.begin(), unhealthy.end());
    return failed(util::join(bad, "; "), expected, util::join(fixes, "; ") + fabricmanager_log_says(in.state.facts));
  }
  // A GPU that reports no fabric on an NVSwitch board is a board or driver gpuctl cannot read: an error.
  if (!unknown.empty())
    return cannot_run(util::join(unknown, "; ") +
                      " (an NVSwitch board reports a fabric state on Hopper and later; an unknown value is never healthy)");
  if (older == gpus.value->size() && older > 0)
    return skipped(fmt::format("{} reports no fabric registration (NVIDIA's GPUs report it from Hopper on): "
                               "fabricmanager_active and fabricmanager_version prove the fabric manager",
                               older_model));
  const auto judged = gpus.value->size() - older;
  auto result = pass(fmt::format("Completed, Success on {} GPUs{}", judged,
                                 health_reported == judged ? ", fabric healthy" : ""),
                     expected);
  if (health_reported < judged)
    result.detail = fmt::format("{} of {} GPUs report no fabric health (N/A: this driver or board does not): the "
                                "registration alone was judged",
                                judged - health_reported, judged);
  return result;
}

namespace {
bool xid_is_nvswitch(const std::vector<XidEvent>& events, const std::pair<int, std::string>& key) {
  for (const auto& event : events)
    if (event.code == key.first && event.pci == key.second) return event.nvswitch;
  return false;
}
}  // namespace

// Xids since boot, as far back as the kernel's ring buffer reaches. Application-side Xids are
// listed but pass (the job's fault; the GPU is fine); any other fails with what to do.
CheckResult check_xid_events(const CheckInput& in) {
  const auto& events = in.state.facts.xid_events;
  if (!events.present()) return cannot_run(absent_reason(events, "kernel log"));
  // Counted per (code, GPU), in first-seen order: a storm of one Xid is one line.
  std::vector<std::pair<int, std::string>> order;
  std::map<std::pair<int, std::string>, int> counts;
  // NVSwitch SXids apart (their codes are another namespace), per (code, switch, severity).
  std::vector<const XidEvent*> sxid_order;
  std::map<std::tuple<int, std::string, bool>, int> sxid_counts;
  // Logged before gpuctl reset that GPU (remediate): dealt with, listed once per (code, GPU).
  std::map<std::pair<int, std::string>, double> cleared;
  for (const auto& event : *events.value) {
    if (event.cleared_by_reset_at) {
      cleared[{event.code, event.pci}] = *event.cleared_by_reset_at;
      continue;
    }
    if (event.nvswitch) {
      if (sxid_counts[{event.code, event.pci, event.fatal.value_or(true)}]++ == 0) sxid_order.push_back(&event);
    } else if (counts[{event.code, event.pci}]++ == 0) {
      order.emplace_back(event.code, event.pci);
    }
  }
  std::vector<std::string> serious, benign, actions;
  bool informational = false;
  // A fatal SXid stalls the NVLink traffic through that switch (the fabric manager user guide,
  // "Fatal NVSwitch SXid Errors"): the GPUs and NVSwitches need a reset. Non-fatal ones are listed.
  for (const auto* event : sxid_order) {
    const bool fatal = event->fatal.value_or(true);
    const auto count = sxid_counts[{event->code, event->pci, fatal}];
    const auto text = fmt::format("SXid {} on NVSwitch {}{} ({}{}{})", event->code, event->pci,
                                  count > 1 ? fmt::format(" x{}", count) : "", fatal ? "fatal" : "non-fatal",
                                  event->message.empty() ? "" : ": ", event->message);
    if (!fatal) {
      benign.push_back(text);
      informational = true;
      continue;
    }
    serious.push_back(text);
    const std::string hint =
        "fatal SXid: drain the node and reset the GPUs and NVSwitches (stop the fabric manager, nvidia-smi -r, start it; "
        "or reboot), then run gpuctl verify; the same switch again: contact support";
    if (std::ranges::find(actions, hint) == actions.end()) actions.push_back(hint);
  }
  for (const auto& key : order) {
    const auto action = xid_action(key.first);
    const auto count = counts[key];
    const auto text = fmt::format("Xid {} on {}{} ({})", key.first, key.second, count > 1 ? fmt::format(" x{}", count) : "",
                                  action.meaning);
    // The catalogue's RESTART_APP and IGNORE: the node is fine, the Xid is listed.
    if (action.scope == XidScope::application || action.scope == XidScope::informational) {
      informational = informational || action.scope == XidScope::informational;
      benign.push_back(text);
      continue;
    }
    serious.push_back(text);
    const auto hint = fmt::format("Xid {}: {}", key.first, action.action);
    if (std::ranges::find(actions, hint) == actions.end()) actions.push_back(hint);
  }
  for (const auto& [key, at] : cleared)
    benign.push_back(fmt::format("{} {} on {} before gpuctl reset it ({:.0f} s after boot)",
                                 xid_is_nvswitch(*events.value, key) ? "SXid" : "Xid", key.first, key.second, at));
  const std::string expected = "no Xid that needs the GPU looked at, since boot";
  if (!serious.empty())
    return failed(util::join(serious, "; ") + (benign.empty() ? "" : "; also " + util::join(benign, "; ")), expected,
                  util::join(actions, "; "));
  if (!benign.empty())
    return pass(util::join(benign, "; ") +
                    (informational ? " (application-side or informational)" : cleared.empty() ? " (application-side)" : ""),
                expected);
  return pass("none since boot", expected);
}

namespace {

const CheckRegistration k_clocks{{
    .name = "clock_slowdown",
    .description = "no GPU's clocks held down by HW slowdown (thermal, power brake) or SW thermal capping",
    .section = CheckSection::health,
    .facts = {"clock_events"},
    .judge = check_clock_slowdown,
}};

const CheckRegistration k_temperature{{
    .name = "gpu_temperature",
    .description = "every GPU at or below gpu.max_temperature_c",
    .section = CheckSection::health,
    .facts = {"gpus"},
    .judge = check_gpu_temperature,
}};

const CheckRegistration k_xids{{
    .name = "xid_events",
    .description = "no Xid since boot that needs the GPU looked at, no fatal NVSwitch SXid (the others are listed)",
    .section = CheckSection::health,
    .facts = {"kernel_xids"},
    .judge = check_xid_events,
}};

const CheckRegistration k_fabric{{
    .name = "fabric_state",
    .description = "NVSwitch boards: every GPU's fabric registration Completed, Success, its fabric health healthy",
    .section = CheckSection::fabric,
    .facts = {"fabric", "gpus", "fabricmanager_log"},
    .judge = check_fabric_state,
}};

}  // namespace
}  // namespace gpuctl::verify_detail
