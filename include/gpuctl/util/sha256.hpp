#pragma once
// SHA-256 (FIPS 180-4), for fingerprints of inventories, playbooks, templates and node state.

#include <string>
#include <string_view>

namespace gpuctl::util {

// Lower-case hex digest of `data`.
std::string sha256_hex(std::string_view data);

}  // namespace gpuctl::util
