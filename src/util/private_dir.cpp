#include <gpuctl/util/private_dir.hpp>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace gpuctl::util {
namespace {

namespace fs = std::filesystem;

Error refused(std::string message, std::string fix) {
  return Error{ErrorCode::validation, std::move(message), {}, std::move(fix)};
}

}  // namespace

Result<void> check_own_directory(const std::string& dir, DirectoryRule rule, std::string_view what,
                                 std::string_view elsewhere) {
  struct stat st {};
  const bool follow = rule == DirectoryRule::no_other_writers;
  if ((follow ? ::stat(dir.c_str(), &st) : ::lstat(dir.c_str(), &st)) != 0)
    return fail(ErrorCode::io, fmt::format("cannot use {} {}: {}", what, dir, std::strerror(errno)), {},
                std::string(elsewhere));
  if (S_ISLNK(st.st_mode))
    return std::unexpected(refused(fmt::format("{} {} is a symbolic link; gpuctl does not follow links here", what, dir),
                                   fmt::format("replace the link by a directory of your own (mkdir -m 700 {}), or {}",
                                               dir, elsewhere)));
  if (!S_ISDIR(st.st_mode))
    return std::unexpected(refused(fmt::format("{} {} is not a directory", what, dir),
                                   fmt::format("remove it, or {}", elsewhere)));
  if (st.st_uid != ::geteuid())
    return std::unexpected(refused(fmt::format("{} {} belongs to uid {}, not to you (uid {}); gpuctl keeps its "
                                               "state only in a directory of your own",
                                               what, dir, st.st_uid, ::geteuid()),
                                   std::string(elsewhere)));
  const mode_t mode = st.st_mode & 07777;
  if (rule == DirectoryRule::no_other_writers && (mode & 022) != 0)
    return std::unexpected(refused(fmt::format("{} {} is writable by group or others (mode {:04o}): another user "
                                               "could replace its files; gpuctl does not change it",
                                               what, dir, mode),
                                   fmt::format("chmod go-w {} if it is yours alone, or {}", dir, elsewhere)));
  if (rule == DirectoryRule::private_to_owner && (mode & 077) != 0)
    return std::unexpected(refused(fmt::format("{} {} is open to group or others (mode {:04o}); gpuctl does not "
                                               "change it",
                                               what, dir, mode),
                                   fmt::format("chmod 700 {} if it is yours alone, or {}", dir, elsewhere)));
  return {};
}

Result<void> prepare_own_directory(const std::string& dir, DirectoryRule rule, std::string_view what,
                                   std::string_view elsewhere) {
  std::vector<fs::path> missing;
  struct stat st {};
  auto target = fs::absolute(dir).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();  // "dir/"
  for (fs::path p = target; !p.empty(); p = p.parent_path()) {
    if (::lstat(p.c_str(), &st) == 0 || errno != ENOENT) break;
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  // Created 0700 (less under a stricter umask) and never chmodded: mkdir sets the mode itself.
  for (auto it = missing.rbegin(); it != missing.rend(); ++it)
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST)
      return fail(ErrorCode::io, fmt::format("cannot create {} {}: {}", what, it->string(), std::strerror(errno)), {},
                  std::string(elsewhere));
  return check_own_directory(dir, rule, what, elsewhere);
}

}  // namespace gpuctl::util
