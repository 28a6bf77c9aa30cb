#pragma once
// The local secret store: cluster-wide secrets gpuctl generates once and pushes to nodes
// (the munge key). Files are 0600 in a 0700 directory. Does file I/O; never logs content.

#include <gpuctl/core/error.hpp>

#include <string>

namespace gpuctl {

// Returns the secret `name` from `secrets_dir`, generating it (from /dev/urandom) the first
// time. Errors: the directory or file cannot be created or read, or has loose permissions.
Result<std::string> load_or_create_secret(const std::string& secrets_dir, const std::string& name);

// Default: $GPUCTL_STATE_DIR/secrets/<cluster>, else ~/.local/state/gpuctl/secrets/<cluster>.
std::string default_secrets_dir(const std::string& cluster_name);

// Root of gpuctl's local state: $GPUCTL_STATE_DIR, else $XDG_STATE_HOME/gpuctl, else ~/.local/state/gpuctl.
std::string default_state_dir();

}  // namespace gpuctl
