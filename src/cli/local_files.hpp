#pragma once
// Writing the CLI's own output files (saved plans, reports) atomically: a temp file in the
// same directory, then rename, so a reader never sees half a file.

#include <gpuctl/core/error.hpp>

#include <string>

namespace gpuctl::cli {

Result<void> write_local_file_atomically(const std::string& path, const std::string& content);

}  // namespace gpuctl::cli
