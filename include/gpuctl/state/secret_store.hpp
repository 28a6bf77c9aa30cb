#pragma once
// The local secret store: cluster-wide secrets gpuctl generates once and pushes to nodes
// (the munge key), at <state dir>/secrets/<cluster>/<name> or $GPUCTL_SECRETS_DIR/<cluster>/<name>.
// Files are 0600 in 0700 directories gpuctl creates itself; it changes the mode of nothing it
// did not create, follows no symlink and adopts no file it did not create. Does file I/O; never logs content.
// The planner never calls it: api/ hands a program's resolution a provider bound to one
// secrets directory (ProgramSources::secret_store, plan/program.hpp).

#include <gpuctl/core/error.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace gpuctl::state {

// Returns the secret `name` from `secrets_dir`, generating it (from /dev/urandom) the first
// time. Missing directories are created 0700. Refused (validation, with the fix; nothing is
// changed): `name` or the last component of `secrets_dir` not a plain name, a "." or ".."
// component in `secrets_dir`; `secrets_dir` a symlink, not the current user's or open to
// group/others; its parent or grandparent (the state directory) not the current user's or
// writable by group/others; a secret file that is a symlink, not a regular file, owned by
// another user or open to group/others. Errors (io): a directory or file cannot be created or read.
Result<std::string> load_or_create_secret(const std::string& secrets_dir, const std::string& name);

// The secret `name` from `secrets_dir` as load_or_create_secret would read it (same checks),
// or an empty optional when there is none; creates nothing (plan and verify).
Result<std::optional<std::string>> load_secret(const std::string& secrets_dir, const std::string& name);

// $GPUCTL_SECRETS_DIR/<cluster>, else <state dir>/secrets/<cluster> ("default" for an empty
// name), absolute and lexically normal. GPUCTL_SECRETS_DIR keeps the cluster's keys in one
// place whatever state directory a run uses (a CI job with its own state directory then
// neither mints nor misses the cluster's munge key).
// Refused (validation): a cluster name that is not a plain name (is_plain_secret_name), e.g. "../../x".
Result<std::string> default_secrets_dir(const std::string& cluster_name);

// A name that is one path component of its own: letters, digits, '_', '-', '.', ':', not
// starting with '.', at most 255 bytes.
bool is_plain_secret_name(std::string_view name);

// Root of gpuctl's local state: $GPUCTL_STATE_DIR, else $XDG_STATE_HOME/gpuctl, else ~/.local/state/gpuctl.
std::string default_state_dir();

}  // namespace gpuctl::state
