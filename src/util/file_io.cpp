#include <gpuctl/util/file_io.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuctl::util {
namespace {

std::string_view file_type_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

std::string size_text(std::size_t bytes) {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) == 0) return fmt::format("{} MiB", bytes / (1024 * 1024));
  if (bytes >= 1024 && bytes % 1024 == 0) return fmt::format("{} KiB", bytes / 1024);
  return fmt::format("{} bytes", bytes);
}

Error refused(const std::string& path, std::string_view what, std::string problem, std::string fix) {
  return Error{ErrorCode::validation, fmt::format("{} {} {}", what, path, problem), {}, std::move(fix)};
}

Error not_regular(const std::string& path, std::string_view what, mode_t mode) {
  if (S_ISLNK(mode))
    return refused(path, what, "is a symbolic link; gpuctl does not follow links for files it copies to nodes",
                   fmt::format("name the file itself (readlink -f {})", path));
  return refused(path, what, fmt::format("is {}, not a regular file", file_type_name(mode)),
                 "name a regular file holding the content to copy");
}

// Closes the descriptor on every path out.
struct FileDescriptor {
  int fd;
  ~FileDescriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

Result<std::string> read_regular_file(const std::string& path, std::string_view what, std::size_t max_bytes) {
  // lstat first so that opening never happens on a device (opening some has side effects); the
  // fstat after open decides, as the path may change in between.
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0)
    return fail(ErrorCode::not_found, fmt::format("cannot read {} {}: {}", what, path, std::strerror(errno)), {},
                "check the path (relative paths are taken from the directory gpuctl runs in)");
  if (!S_ISREG(st.st_mode)) return std::unexpected(not_regular(path, what, st.st_mode));

  const FileDescriptor file{::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)};
  if (file.fd < 0) {
    if (errno == ELOOP) return std::unexpected(not_regular(path, what, S_IFLNK));
    return fail(ErrorCode::not_found, fmt::format("cannot read {} {}: {}", what, path, std::strerror(errno)));
  }
  if (::fstat(file.fd, &st) != 0)
    return fail(ErrorCode::io, fmt::format("cannot read {} {}: {}", what, path, std::strerror(errno)));
  if (!S_ISREG(st.st_mode)) return std::unexpected(not_regular(path, what, st.st_mode));
  const auto too_large = [&] {
    return refused(path, what, fmt::format("is larger than the limit of {}", size_text(max_bytes)),
                   fmt::format("check that {} is the file you mean", path));
  };
  if (static_cast<std::size_t>(st.st_size) > max_bytes) return std::unexpected(too_large());

  std::string data;
  char buffer[8192];
  for (;;) {
    const auto n = ::read(file.fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(ErrorCode::io, fmt::format("cannot read {} {}: {}", what, path, std::strerror(errno)));
    if (n == 0) return data;
    if (data.size() + static_cast<std::size_t>(n) > max_bytes) return std::unexpected(too_large());
    data.append(buffer, static_cast<std::size_t>(n));
  }
}


Result<std::string> read_local_file(const std::string& path, std::string_view what, std::size_t max_bytes) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0)
    return fail(ErrorCode::not_found, fmt::format("cannot read {} {}: {}", what, path, std::strerror(errno)));
  if (!S_ISLNK(link.st_mode)) return read_regular_file(path, what, max_bytes);
  // A link: what it reaches must be a regular file others may read too.
  struct stat target {};
  if (::stat(path.c_str(), &target) != 0)
    return fail(ErrorCode::not_found, fmt::format("cannot read {} {}: {}", what, path, std::strerror(errno)));
  if (!S_ISREG(target.st_mode))
    return std::unexpected(refused(path, what, fmt::format("is a symbolic link to {}, not a regular file", file_type_name(target.st_mode)),
                                   "name a regular file"));
  if ((target.st_mode & S_IROTH) == 0)
    return std::unexpected(refused(path, what,
                                   "is a symbolic link to a file that not every user may read; gpuctl follows links "
                                   "only to world-readable files, so that a link cannot have an error quote a private file",
                                   fmt::format("name the file itself (readlink -f {})", path)));
  std::error_code ec;
  const auto real = std::filesystem::canonical(path, ec);
  if (ec) return fail(ErrorCode::not_found, fmt::format("cannot read {} {}: {}", what, path, ec.message()));
  return read_regular_file(real.string(), what, max_bytes);
}

}  // namespace gpuctl::util
