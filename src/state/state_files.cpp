#include "state_files.hpp"

#include <gpuctl/util/private_dir.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuctl::state {
namespace {

constexpr std::string_view k_elsewhere = "choose another place with --state PATH or GPUCTL_STATE_DIR";

Error refused(const std::string& path, std::string problem, std::string fix) {
  return Error{ErrorCode::validation, fmt::format("state database {} {}", path, problem), {}, std::move(fix)};
}

Result<void> check_state_file(const struct stat& st, const std::string& path) {
  if (S_ISLNK(st.st_mode))
    return std::unexpected(refused(path, "is a symbolic link; gpuctl does not follow links to its database",
                                   fmt::format("name the database itself (readlink -f {}) with --state, or {}", path,
                                               k_elsewhere)));
  if (!S_ISREG(st.st_mode))
    return std::unexpected(refused(path, "is not a regular file", std::string(k_elsewhere)));
  if (st.st_uid != ::geteuid())
    return std::unexpected(refused(path, fmt::format("belongs to uid {}, not to you (uid {})", st.st_uid, ::geteuid()),
                                   std::string(k_elsewhere)));
  if ((st.st_mode & 077) != 0)
    return std::unexpected(refused(path,
                                   fmt::format("is open to group or others (mode {:04o}); gpuctl does not change it",
                                               st.st_mode & 07777),
                                   fmt::format("chmod 600 {} if it is yours alone, or {}", path, k_elsewhere)));
  return {};
}

}  // namespace

Result<void> prepare_state_directory(const std::string& dir) {
  return util::prepare_own_directory(dir, util::DirectoryRule::no_other_writers, "state directory", k_elsewhere);
}

Result<void> prepare_state_file(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0)
    if (auto ok = check_state_file(st, path); !ok) return ok;  // before open: no open of a FIFO or device
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd < 0 && errno == ELOOP) {  // became a link after the lstat
    st.st_mode = S_IFLNK;
    return check_state_file(st, path);
  }
  if (fd < 0)
    return fail(ErrorCode::io, fmt::format("cannot open {}: {}", path, std::strerror(errno)), {},
                std::string(k_elsewhere));
  const bool stat_ok = ::fstat(fd, &st) == 0;
  ::close(fd);
  if (!stat_ok) return fail(ErrorCode::io, fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  return check_state_file(st, path);
}

}  // namespace gpuctl::state
