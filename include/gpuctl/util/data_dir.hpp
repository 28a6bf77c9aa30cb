#pragma once
// Where gpuctl's shipped data (playbooks/, templates/) lives. Reads the environment and the
// file system.

#include <string>

namespace gpuctl::util {

// The first existing directory of: $<env_variable>; <dir of the running binary>/../share/gpuctl/<name>,
// only where that tree is trusted (trusted_tree); the installed prefix's share/gpuctl/<name>;
// the source tree's <name> (a build that is run from its build directory). Falls back to the
// source tree path when none exists.
std::string data_dir(const std::string& name, const char* env_variable);

// True when `dir` and every directory above it up to and including `top` are owned by root or
// by the user gpuctl runs as, and writable by no one else (no group or other write bit): a copy
// of the binary in a tree someone else writes must not take that tree's playbooks.
bool trusted_tree(const std::string& dir, const std::string& top);

}  // namespace gpuctl::util
