#include "local_files.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuctl::cli {

Result<void> write_local_file_atomically(const std::string& path, const std::string& content) {
  const auto directory = std::filesystem::path(path).parent_path();
  auto temp = (directory.empty() ? std::filesystem::path(".") : directory) / ".gpuctl.XXXXXX";
  std::string temp_path = temp.string();
  const int fd = ::mkstemp(temp_path.data());
  if (fd < 0) return fail(ErrorCode::io, fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  std::size_t written = 0;
  while (written < content.size()) {
    const auto n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<std::size_t>(n);
  }
  const bool ok = written == content.size() && ::fsync(fd) == 0 && ::fchmod(fd, 0644) == 0;
  ::close(fd);
  if (!ok || std::rename(temp_path.c_str(), path.c_str()) != 0) {
    const auto reason = std::strerror(errno);
    ::unlink(temp_path.c_str());
    return fail(ErrorCode::io, fmt::format("cannot write {}: {}", path, reason));
  }
  return {};
}

}  // namespace gpuctl::cli
