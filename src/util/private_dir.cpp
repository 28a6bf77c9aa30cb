#include <gpuctl/util/private_dir.hpp>

#include <algorithm>
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

bool is_team_group(gid_t group) {
  if (group == ::getegid()) return true;
  const int count = ::getgroups(0, nullptr);
  if (count <= 0) return false;
  std::vector<gid_t> groups(static_cast<std::size_t>(count));
  const int got = ::getgroups(count, groups.data());
  return got > 0 && std::find(groups.begin(), groups.begin() + got, group) != groups.begin() + got;
}

bool is_team_mode(const struct stat& st) {
  return S_ISDIR(st.st_mode) && (st.st_mode & S_ISGID) != 0 && (st.st_mode & 0070) == 0070 &&
         (st.st_mode & 0002) == 0 && is_team_group(st.st_gid);
}

std::optional<gid_t> team_group_of(const std::string& dir) {
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !is_team_mode(st)) return std::nullopt;
  return st.st_gid;
}

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
  // A team's directory: its group's members share it, whoever created it (team_group_of).
  if (is_team_mode(st)) {
    if (rule == DirectoryRule::private_to_owner && (st.st_mode & 007) != 0)
      return std::unexpected(refused(fmt::format("{} {} is a team directory open to others (mode {:04o}); gpuctl "
                                                 "does not change it",
                                                 what, dir, st.st_mode & 07777),
                                     fmt::format("chmod o-rwx {} if only the team should read it, or {}", dir,
                                                 elsewhere)));
    return {};
  }
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
  // Created 0700 (less under a stricter umask); in a team's directory 2770, the team's like its
  // parent: the only chmod gpuctl makes is of a directory it has just created.
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    const auto team = team_group_of(it->parent_path().string());
    if (::mkdir(it->c_str(), 0700) != 0) {
      if (errno == EEXIST) continue;
      return fail(ErrorCode::io, fmt::format("cannot create {} {}: {}", what, it->string(), std::strerror(errno)), {},
                  std::string(elsewhere));
    }
    struct stat made {};
    if (team && ::lstat(it->c_str(), &made) == 0 && made.st_gid == *team && ::chmod(it->c_str(), 02770) != 0)
      return fail(ErrorCode::io, fmt::format("cannot share {} {} with its team: {}", what, it->string(),
                                             std::strerror(errno)));
  }
  return check_own_directory(dir, rule, what, elsewhere);
}

}  // namespace gpuctl::util
