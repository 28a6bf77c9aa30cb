#pragma once
// Reading a whole local file (on the control host), with an error that names what the file
// was for: "cannot read template /x/y: No such file or directory".

#include <gpuctl/core/error.hpp>

#include <string>
#include <string_view>

namespace gpuctl::util {

// ErrorCode::not_found when the file cannot be opened, io when reading fails. `what` names
// the kind of file ("playbook", "template", "source file").
Result<std::string> read_local_file(const std::string& path, std::string_view what = "file");

}  // namespace gpuctl::util
