#pragma once
// Where gpuctl's shipped data (playbooks/, templates/) lives. Reads the environment and the
// file system.

#include <string>

namespace gpuctl::util {

// The first existing directory of: $<env_variable>; <dir of the running binary>/../share/gpuctl/<name>;
// the installed prefix's share/gpuctl/<name>; the source tree's <name> (a build that is run
// from its build directory). Falls back to the source tree path when none exists.
std::string data_dir(const std::string& name, const char* env_variable);

}  // namespace gpuctl::util
