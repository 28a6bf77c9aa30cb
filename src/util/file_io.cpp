#include <gpuctl/util/file_io.hpp>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace gpuctl::util {

Result<std::string> read_local_file(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorCode::not_found, fmt::format("cannot read {} {}: {}", what, path, std::strerror(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return fail(ErrorCode::io, fmt::format("error reading {} {}", what, path));
  return text.str();
}

}  // namespace gpuctl::util
