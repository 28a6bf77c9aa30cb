#include "state_files.hpp"

#include <gpuctl/util/private_dir.hpp>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fmt/format.h>
#include <optional>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuctl::state {
namespace {

constexpr std::string_view k_elsewhere = "choose another place with --state PATH or GPUCTL_STATE_DIR";

Error refused(const std::string& path, std::string problem, std::string fix) {
  return Error{ErrorCode::validation, fmt::format("state database {} {}", path, problem), {}, std::move(fix)};
}

// The team of the directory `path` is in, when it is a team's (util::team_group_of).
std::optional<gid_t> team_of_file(const std::string& path) {
  const auto dir = std::filesystem::path(path).parent_path();
  return util::team_group_of(dir.empty() ? "." : dir.string());
}

Result<void> check_state_file(const struct stat& st, const std::string& path) {
  const auto team = team_of_file(path);
  if (S_ISLNK(st.st_mode))
    return std::unexpected(refused(path, "is a symbolic link; gpuctl does not follow links to its database",
                                   fmt::format("name the database itself (readlink -f {}) with --state, or {}", path,
                                               k_elsewhere)));
  if (!S_ISREG(st.st_mode))
    return std::unexpected(refused(path, "is not a regular file", std::string(k_elsewhere)));
  // In a team's directory: the team's database, whichever member created it.
  if (team && st.st_gid == *team) {
    if ((st.st_mode & 007) != 0)
      return std::unexpected(refused(path,
                                     fmt::format("is open to others (mode {:04o}); gpuctl does not change it",
                                                 st.st_mode & 07777),
                                     fmt::format("chmod o-rwx {} if only the team should use it", path)));
    return {};
  }
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
  // O_EXCL first, to know whether this run creates the file: only then may its mode be set
  // (0660 in a team's directory, so every member can write the history; SQLite gives its
  // -wal and -shm files the database's mode).
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0600);
  if (fd >= 0) {
    if (const auto team = team_of_file(path); team && ::fchmod(fd, 0660) != 0) {
      ::close(fd);
      return fail(ErrorCode::io, fmt::format("cannot share {} with its team: {}", path, std::strerror(errno)));
    }
  } else if (errno == EEXIST) {
    fd = ::open(path.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  }
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
