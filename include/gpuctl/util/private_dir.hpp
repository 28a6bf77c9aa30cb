#pragma once
// gpuctl's own local directories (the state directory, the secret store, run logs). gpuctl
// creates what is missing with mode 0700 and never changes the mode of a directory it did not
// create: an existing directory that breaks the rules is refused with the fix, so pointing
// GPUCTL_STATE_DIR at a shared directory cannot make gpuctl chmod it.

#include <gpuctl/core/error.hpp>

#include <optional>
#include <string>
#include <sys/stat.h>
#include <sys/types.h>
#include <string_view>

namespace gpuctl::util {

enum class DirectoryRule {
  // Owned by the current user and writable by no one else (group/other read is allowed): the
  // state directory, where no other user may replace the database. A symlink to such a
  // directory is accepted (its target is what is checked).
  no_other_writers,
  // Owned by the current user, not a symlink, no access at all for group or others: the secret
  // store and run logs.
  private_to_owner,
};

// A team's shared state directory (docs/configuration.md): setgid, group rwx, not writable by
// others, and its group one of the caller's (effective or supplementary). Its members share
// what is in it whoever created it: gpuctl creates its subdirectories there 2770, and both
// rules below accept a team directory (private_to_owner: no access for others either).
// Safe to accept from any owner: only a member of the group or root can give a directory
// that group, and only they can create entries in one.
bool is_team_mode(const struct stat& st);
bool is_team_group(gid_t group);
// The group of `dir` when it is a team directory (links followed).
std::optional<gid_t> team_group_of(const std::string& dir);

// Creates the missing directories of `dir` (parents included) with mkdir(0700), then checks
// `dir` itself against `rule`. `what` names the directory in errors ("state directory");
// `elsewhere` is the fix's other way out ("choose another with GPUCTL_STATE_DIR").
// Errors: io (cannot create), validation (an existing directory breaks the rule).
Result<void> prepare_own_directory(const std::string& dir, DirectoryRule rule, std::string_view what,
                                   std::string_view elsewhere);

// Checks an existing directory against `rule` without creating anything (same errors).
Result<void> check_own_directory(const std::string& dir, DirectoryRule rule, std::string_view what,
                                 std::string_view elsewhere);

}  // namespace gpuctl::util
