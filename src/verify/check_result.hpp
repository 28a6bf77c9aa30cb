#pragma once
// Building check results (private to src/verify): shared by the check files.

#include <gpuctl/facts/facts.hpp>
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

// A systemd service running, as the state probe read it; no answer from systemd is an error.
inline CheckResult service_active(const CheckInput& in, const std::string& service) {
  const auto it = in.state.services.find(service);
  if (it == in.state.services.end() || !it->second.known) return cannot_run(fmt::format("systemd did not report {}", service));
  if (!it->second.running) return failed(fmt::format("{} not running", service), "running");
  return pass("running", "running");
}

template <typename T>
std::string absent_reason(const Fact<T>& fact, std::string_view what) {
  return fmt::format("{} unknown: {}", what, fact.absent_reason.empty() ? "not gathered" : fact.absent_reason);
}

}  // namespace gpuctl::verify_detail
