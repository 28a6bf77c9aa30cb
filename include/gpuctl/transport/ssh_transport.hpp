#pragma once
// SSH to a node with libssh: one session per node, a new channel per command, so a run pays
// the connection cost once. Honours ~/.ssh/config (Host, HostName, Port, User, IdentityFile,
// ProxyJump), then the inventory's settings on top (a port other than 22, a user other than
// root, identity_file, known_hosts, timeouts). Authenticates with ssh-agent, then the
// inventory's identity_file, then ~/.ssh's default identities. Verifies the host key against
// known_hosts with OpenSSH's `strict` or `accept-new` semantics. Does network and file I/O.

#include <gpuctl/core/error.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/transport/transport.hpp>

#include <memory>
#include <string>

namespace gpuctl {

// Connects, verifies the host key and authenticates within settings.connect_timeout_s per
// step. Errors: ErrorCode::transport (refused, no route, protocol), ::timeout (no answer,
// including a listener that never sends a banner), ::host_key (unknown in strict mode,
// changed in any mode; the message shows the SHA256 fingerprint and how to pin it), ::auth.
// The returned transport's run() reads with a deadline (CommandOptions::timeout), sends
// keepalives while a command is silent, and wraps `become` commands in `sudo -n` when the
// login user is not root.
Result<std::unique_ptr<Transport>> connect_ssh(const std::string& node, const ConnectionSettings& settings);

enum class HostKeyState { known, unknown, changed };
std::string_view to_string(HostKeyState state);

// A node's host key as offered in the handshake, compared with known_hosts.
struct HostKeyInfo {
  std::string node;
  std::string host_entry;        // known_hosts host field: "10.0.0.1" or "[10.0.0.1]:2222"
  std::string key_type;          // e.g. "ssh-ed25519"
  std::string fingerprint;       // "SHA256:..."
  std::string known_hosts_file;
  HostKeyState state = HostKeyState::unknown;
};

// Handshake only (no authentication): which key the node offers and whether known_hosts
// matches. Errors: ErrorCode::transport / ::timeout / ::io (unreadable known_hosts).
Result<HostKeyInfo> scan_host_key(const std::string& node, const ConnectionSettings& settings);

enum class ChangedKeyPolicy { refuse, replace };

// Records the node's key when unknown. A changed key is refused (ErrorCode::host_key) unless
// `changed == replace`: then every known_hosts line for the host is removed first (hashed
// entries included) and the new key recorded. Returns the state *before* the change.
Result<HostKeyInfo> accept_host_key(const std::string& node, const ConnectionSettings& settings,
                                    ChangedKeyPolicy changed);

}  // namespace gpuctl
