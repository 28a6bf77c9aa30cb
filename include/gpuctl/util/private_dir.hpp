#pragma once
// gpuctl's own local directories (the state directory, the secret store, run logs). gpuctl
// creates what is missing with mode 0700 and never changes the mode of a directory it did not
// create: an existing directory that breaks the rules is refused with the fix, so pointing
// GPUCTL_STATE_DIR at a shared directory cannot make gpuctl chmod it.

#include <gpuctl/core/error.hpp>

#include <string>
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
