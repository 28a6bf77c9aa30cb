#pragma once
// Which node command each check reads, so a failed check can show it with its output
// (private to src/verify).

#include <gpuctl/verify/checks.hpp>

namespace gpuctl {

// Fills result.command and result.output from the gathered state for the check named
// result.name; leaves them empty for a check with no known source. Pure.
void cite_source(CheckResult& result, const CheckInput& input);

}  // namespace gpuctl
