// Running the checks a program names, through the catalog (verify/catalog.hpp).
#include <gpuctl/verify/checks.hpp>

#include "check_result.hpp"
#include "check_sources.hpp"

#include <gpuctl/verify/catalog.hpp>

#include <fmt/format.h>

namespace gpuctl {

std::string_view to_string(CheckStatus status) {
  switch (status) {
    case CheckStatus::pass: return "pass";
    case CheckStatus::fail: return "fail";
    case CheckStatus::error: return "error";
    case CheckStatus::skipped: return "skipped";
  }
  return "error";
}

std::string_view grid_label(CheckStatus status) {
  switch (status) {
    case CheckStatus::pass: return "PASS";
    case CheckStatus::fail: return "FAIL";
    case CheckStatus::error: return "ERR";
    case CheckStatus::skipped: return "skip";
  }
  return "?";
}

const std::vector<CheckInfo>& known_checks() {
  static const std::vector<CheckInfo> info = [] {
    std::vector<CheckInfo> list;
    for (const auto* spec : check_catalog())
      if (spec->judge) list.push_back({std::string(spec->name), std::string(spec->description)});
    return list;
  }();
  return info;
}

std::string check_description(std::string_view name) {
  const auto* spec = find_check(name);
  return spec ? std::string(spec->description) : std::string();
}

std::vector<CheckResult> run_checks(const std::vector<std::string>& names, const CheckInput& input) {
  std::vector<CheckResult> results;
  for (const auto& name : names) {
    const auto* spec = find_check(name);
    CheckResult result = spec && spec->judge ? spec->judge(input)
                                             : verify_detail::cannot_run(fmt::format("unknown check '{}'", name));
    result.name = name;
    if (result.status == CheckStatus::fail || result.status == CheckStatus::error) verify_detail::cite_source(result, input);
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace gpuctl
