#pragma once
// Wall-clock time stamps for records and plans. Reads the system clock.

#include <string>

namespace gpuctl::util {

// Now, in UTC, as ISO 8601 to the second: "2026-12-02T18:34:29Z".
std::string utc_timestamp();

}  // namespace gpuctl::util
