#pragma once
// Private to src/transport/ssh_*: the libssh session wrapper shared by SshTransport and the
// host key commands. The only header (with ssh_*.cpp) that includes libssh.

#include <gpuctl/core/error.hpp>
#include <gpuctl/inventory/inventory.hpp>

#include <libssh/libssh.h>

#include <memory>
#include <string>

namespace gpuctl::ssh_detail {

struct SessionDeleter {
  void operator()(ssh_session session) const {
    ssh_disconnect(session);
    ssh_free(session);
  }
};
using SessionPtr = std::unique_ptr<ssh_session_struct, SessionDeleter>;

enum class KnownState { known, unknown, changed };

// The server's host key as seen during the handshake.
struct ServerKey {
  std::string type;          // "ssh-ed25519"
  std::string fingerprint;   // "SHA256:..."
  std::string host_entry;    // the known_hosts host field: "addr" or "[addr]:port"
  std::string known_hosts_file;
  KnownState state = KnownState::unknown;
};

// Creates a session with ~/.ssh/config applied for `settings.address`, then the inventory's
// settings on top, and connects (TCP + banner + key exchange) within the connect timeout.
// No host key check and no authentication yet. Errors: ErrorCode::transport or ::timeout.
Result<SessionPtr> open_session(const std::string& node, const ConnectionSettings& settings);

// The server key of a connected session and how it compares with known_hosts.
Result<ServerKey> server_key(ssh_session session, const std::string& node);

// Enforces `policy` (OpenSSH's strict / accept-new). Records an unknown key in accept-new.
// Errors: ErrorCode::host_key with the fingerprint and how to pin it.
Result<ServerKey> verify_host_key(ssh_session session, const std::string& node, HostKeyPolicy policy);

enum class PreviousKeys { keep, remove };

// Records the session's server key in known_hosts (appends), first removing every line for
// the host when `previous == remove`. Serialized process-wide so parallel accepts and
// rewrites never lose each other's lines.
Result<void> record_host_key(ssh_session session, const std::string& node, PreviousKeys previous);

// ssh-agent, then the inventory's identity file, then the default and configured identities.
// Errors: ErrorCode::auth.
Result<void> authenticate(ssh_session session, const std::string& node, const ConnectionSettings& settings);

// The login user after ~/.ssh/config ("root" when unknown).
std::string session_user(ssh_session session);

Error ssh_error(const std::string& node, ErrorCode code, std::string message, std::string hint = {});

}  // namespace gpuctl::ssh_detail
