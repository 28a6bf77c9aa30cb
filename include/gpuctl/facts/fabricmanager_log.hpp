#pragma once
// The fabric manager's own log on an NVSwitch node: the [ERROR] and [FATAL] lines of
// /var/log/fabricmanager.log (or fabricmanager.cfg's LOG_FILE_NAME), where it says why it
// stopped or which NVSwitch/NVLink error it saw. Declared by src/facts/fabricmanager_log.cpp;
// read by verify's fabricmanager_active and fabric_state to say why. Pure parser.

#include <gpuctl/core/error.hpp>
#include <gpuctl/facts/facts.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace gpuctl::facts {

struct FabricManagerLog {
  std::string path;                 // the log file the probe read
  bool exists = false;              // false: no such file (no fabric manager ever ran here)
  std::vector<std::string> errors;  // the last [ERROR]/[FATAL] lines, oldest first, as logged
};

inline constexpr FactKey<FabricManagerLog> k_fabricmanager_log{"fabricmanager_log"};

// The probe's output: "@@fmlog PATH", then "@@fmlog-absent", "@@fmlog-unreadable", or the log's
// error lines ("[Jul 23 2024 07:53:55] [ERROR] [tid 841] detected NVSwitch fatal error 20034 ...",
// the user guide's format). Error: no "@@fmlog" line, or the file was not readable (not root).
Result<FabricManagerLog> parse_fabricmanager_log(std::string_view text);

}  // namespace gpuctl::facts
