#pragma once
// Which node command each check reads, so a failed check can show it with its output
// (private to src/verify).

#include <gpuctl/verify/checks.hpp>

namespace gpuctl {

// Fills result.command and result.output from the gathered state for the check named
// result.name; leaves them empty for a check with no known source. Pure.
void cite_source(CheckResult& result, const CheckInput& input);

// The DCGM exporter's service in the inventory's package profile (nvidia-dcgm-exporter for
// NVIDIA's package), "dcgm-exporter" where the profile names none.
std::string dcgm_exporter_service(const Inventory& inventory);

}  // namespace gpuctl
