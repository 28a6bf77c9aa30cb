#pragma once
// Building check results (private to src/verify): shared by the check files.

#include <gpuctl/facts/facts.hpp>
#include <gpuctl/plan/node_state.hpp>
#include <gpuctl/verify/checks.hpp>

#include <fmt/format.h>
#include <string>
#include <string_view>

namespace gpuctl::verify_detail {

inline CheckResult pass(std::string observed, std::string expected) {
  return {{}, CheckStatus::pass, std::move(observed), std::move(expected), {}};
}
inline CheckResult failed(std::string observed, std::string expected, std::string detail = {}) {
  return {{}, CheckStatus::fail, std::move(observed), std::move(expected), std::move(detail)};
}
inline CheckResult cannot_run(std::string why) { return {{}, CheckStatus::error, {}, {}, std::move(why)}; }
inline CheckResult skipped(std::string why) { return {{}, CheckStatus::skipped, {}, {}, std::move(why)}; }

// Why a service does not run, in systemd's words where `systemctl show` gave them: not
// installed (LoadState=not-found), masked, failed (with its Result), or inactive and enabled or
// never enabled. "not running" where only the unit files were read (no manager).
inline std::string service_down_words(const ObservedService& service) {
  if (service.load_state == "not-found") return "not installed (LoadState=not-found: no such unit)";
  if (service.load_state == "masked") return "masked (LoadState=masked)";
  if (service.active_state == "failed")
    return fmt::format("failed (ActiveState=failed{})", service.result.empty() ? "" : ", Result=" + service.result);
  if (service.active_state.empty()) return "not running";
  if (!service.enabled)
    return fmt::format("{}, never enabled (UnitFileState={})", service.active_state,
                       service.unit_file_state.empty() ? "?" : service.unit_file_state);
  return fmt::format("{} (enabled, but not started or stopped since)", service.active_state);
}

// A systemd service running, as the state probe read it; no answer from systemd is an error.
inline CheckResult service_active(const CheckInput& in, const std::string& service) {
  const auto it = in.state.services.find(service);
  if (it == in.state.services.end() || !it->second.known) return cannot_run(fmt::format("systemd did not report {}", service));
  if (!it->second.running) return failed(fmt::format("{} {}", service, service_down_words(it->second)), "running");
  return pass("running", "running");
}

template <typename T>
std::string absent_reason(const Fact<T>& fact, std::string_view what) {
  return fmt::format("{} unknown: {}", what, fact.absent_reason.empty() ? "not gathered" : fact.absent_reason);
}

}  // namespace gpuctl::verify_detail
