#include "ssh_session.hpp"

#include <fmt/format.h>

#include <filesystem>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <cstdlib>
#include <mutex>
#include <pwd.h>
#include <unistd.h>

namespace gpuctl::ssh_detail {
namespace {

// Serializes appends to known_hosts files by concurrent accept-new connections.
std::mutex g_known_hosts_mutex;

void initialize_once() {
  static std::once_flag once;
  std::call_once(once, [] {
    ssh_init();
    // A peer closing a socket or pipe must be an error value, not a process-killing signal.
    std::signal(SIGPIPE, SIG_IGN);
  });
}

std::string owned(char* text) {
  if (text == nullptr) return {};
  std::string out(text);
  ssh_string_free_char(text);
  return out;
}

std::string get_option(ssh_session session, ssh_options_e option) {
  char* value = nullptr;
  if (ssh_options_get(session, option, &value) != SSH_OK) return {};
  return owned(value);
}

std::string home_directory() {
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') return home;
  if (const passwd* entry = ::getpwuid(::getuid()); entry != nullptr) return entry->pw_dir;
  return "/";
}

// "SHA256:..." like OpenSSH prints it.
std::string sha256_fingerprint(ssh_key key) {
  unsigned char* hash = nullptr;
  size_t length = 0;
  if (ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &length) != SSH_OK) return "SHA256:?";
  std::string out = owned(ssh_get_fingerprint_hash(SSH_PUBLICKEY_HASH_SHA256, hash, length));
  ssh_clean_pubkey_hash(&hash);
  return out;
}

std::string pin_hint(const std::string& node, const ServerKey& key) {
  // known_hosts writes "[addr]:port" for non-22 ports; ssh-keyscan wants "-p port addr".
  std::string keyscan = key.host_entry;
  if (const auto close = key.host_entry.find("]:"); key.host_entry.starts_with('[') && close != std::string::npos)
    keyscan = fmt::format("-p {} {}", key.host_entry.substr(close + 2), key.host_entry.substr(1, close - 1));
  return fmt::format("if this key is right, pin it with `gpuctl hostkeys accept INVENTORY --limit {}` or "
                     "`ssh-keyscan {} >> {}`",
                     node, keyscan, key.known_hosts_file);
}

// Removes every line that matches `host` (plain or hashed, any key type) from the file,
// writing a temp file next to it and renaming it over, so a crash never truncates it.
Result<void> forget_host(const std::string& node, const std::string& file, const std::string& host) {
  std::ifstream in(file);
  if (!in) return std::unexpected(ssh_error(node, ErrorCode::io, "cannot read " + file));
  std::ostringstream kept;
  std::string line;
  while (std::getline(in, line)) {
    ssh_knownhosts_entry* entry = nullptr;
    const int rc = line.empty() || line.front() == '#' ? SSH_AGAIN
                                                       : ssh_known_hosts_parse_line(host.c_str(), line.c_str(), &entry);
    if (entry != nullptr) ssh_knownhosts_entry_free(entry);
    if (rc != SSH_OK) kept << line << '\n';
  }
  in.close();
  const std::string temp = file + ".gpuctl-" + std::to_string(::getpid());
  {
    std::ofstream out(temp, std::ios::trunc);
    out << kept.str();
    out.flush();
    if (!out) {
      std::remove(temp.c_str());
      return std::unexpected(ssh_error(node, ErrorCode::io, "cannot write " + temp));
    }
  }
  if (std::rename(temp.c_str(), file.c_str()) != 0) {
    std::remove(temp.c_str());
    return std::unexpected(ssh_error(node, ErrorCode::io, "cannot replace " + file));
  }
  return {};
}

}  // namespace

Error ssh_error(const std::string& node, ErrorCode code, std::string message, std::string hint) {
  Error error{code, std::move(message), {}, std::move(hint)};
  error.where.node = node;
  return error;
}

Result<SessionPtr> open_session(const std::string& node, const ConnectionSettings& settings) {
  initialize_once();
  SessionPtr session(ssh_new());
  if (!session) return std::unexpected(ssh_error(node, ErrorCode::internal, "ssh_new failed"));
  ssh_session s = session.get();
  const std::string address = settings.address.empty() ? node : settings.address;
  ssh_options_set(s, SSH_OPTIONS_HOST, address.c_str());
  // ~/.ssh/config first (Host matches the address), then the inventory's settings on top.
  // The schema's defaults (port 22, user root) leave ~/.ssh/config's values in place.
  // "~" is $HOME (then the passwd entry), also for the default identities and known_hosts, so a
  // run can be pointed at another SSH setup; libssh alone would only use the passwd entry.
  const std::string ssh_dir = home_directory() + "/.ssh";
  ssh_options_set(s, SSH_OPTIONS_SSH_DIR, ssh_dir.c_str());
  for (const std::string& config : {ssh_dir + "/config", std::string("/etc/ssh/ssh_config")})
    if (ssh_options_parse_config(s, config.c_str()) != SSH_OK)
      return std::unexpected(ssh_error(node, ErrorCode::invalid_argument,
                                       fmt::format("cannot use {}: {}", config, ssh_get_error(s))));
  if (settings.port != 22) ssh_options_set(s, SSH_OPTIONS_PORT, &settings.port);
  if (!settings.user.empty() && settings.user != "root") ssh_options_set(s, SSH_OPTIONS_USER, settings.user.c_str());
  if (get_option(s, SSH_OPTIONS_USER).empty()) ssh_options_set(s, SSH_OPTIONS_USER, "root");
  const std::string known_hosts =
      settings.known_hosts_file.empty() ? ssh_dir + "/known_hosts" : settings.known_hosts_file;
  ssh_options_set(s, SSH_OPTIONS_KNOWNHOSTS, known_hosts.c_str());
  const long timeout = std::max(settings.connect_timeout_s, 1);
  ssh_options_set(s, SSH_OPTIONS_TIMEOUT, &timeout);
  const int on = 1;
  ssh_options_set(s, SSH_OPTIONS_NODELAY, &on);
  // Never set SSH_OPTIONS_STRICTHOSTKEYCHECK to 0: libssh 0.10 then reports every server as
  // known (ssh_session_is_known_server returns OK), silently disabling our check.
  // curve25519 is ~6x cheaper than the DH groups; keep the others for old servers.
  ssh_options_set(s, SSH_OPTIONS_KEY_EXCHANGE,
                  "curve25519-sha256,curve25519-sha256@libssh.org,ecdh-sha2-nistp256,ecdh-sha2-nistp384,"
                  "ecdh-sha2-nistp521,diffie-hellman-group16-sha512,diffie-hellman-group14-sha256");
  const int no_password = 0;
  ssh_options_set(s, SSH_OPTIONS_PASSWORD_AUTH, &no_password);
  ssh_options_set(s, SSH_OPTIONS_KBDINT_AUTH, &no_password);
  ssh_options_set(s, SSH_OPTIONS_GSSAPI_AUTH, &no_password);

  // In blocking mode libssh bounds TCP connect, banner and key exchange by SSH_OPTIONS_TIMEOUT,
  // so a listener that never speaks fails within the timeout (tested end to end).
  if (ssh_connect(s) != SSH_OK) {
    const std::string message = ssh_get_error(s);
    const bool timed_out = message.find("imeout") != std::string::npos;
    return std::unexpected(ssh_error(node, timed_out ? ErrorCode::timeout : ErrorCode::transport,
                                     fmt::format("cannot connect to {}: {}", address, message),
                                     timed_out ? "is the node up and sshd answering? raise connect_timeout for slow links"
                                               : ""));
  }
  return session;
}

std::string session_user(ssh_session session) {
  std::string user = get_option(session, SSH_OPTIONS_USER);
  return user.empty() ? "root" : user;
}

Result<ServerKey> server_key(ssh_session session, const std::string& node) {
  ssh_key key = nullptr;
  if (ssh_get_server_publickey(session, &key) != SSH_OK)
    return std::unexpected(ssh_error(node, ErrorCode::transport, std::string("no server host key: ") + ssh_get_error(session)));
  ServerKey out;
  out.type = ssh_key_type_to_char(ssh_key_type(key));
  out.fingerprint = sha256_fingerprint(key);
  ssh_key_free(key);
  char* entry = nullptr;
  if (ssh_session_export_known_hosts_entry(session, &entry) == SSH_OK) {
    const std::string line = owned(entry);
    out.host_entry = line.substr(0, line.find(' '));
  }
  out.known_hosts_file = get_option(session, SSH_OPTIONS_KNOWNHOSTS);
  switch (ssh_session_is_known_server(session)) {
    case SSH_KNOWN_HOSTS_OK: out.state = KnownState::known; break;
    case SSH_KNOWN_HOSTS_UNKNOWN:
    case SSH_KNOWN_HOSTS_NOT_FOUND: out.state = KnownState::unknown; break;
    // OTHER: known_hosts holds a key of another type for this host. OpenSSH would still ask;
    // a fleet tool must not silently trust it, so it counts as changed.
    case SSH_KNOWN_HOSTS_CHANGED:
    case SSH_KNOWN_HOSTS_OTHER: out.state = KnownState::changed; break;
    case SSH_KNOWN_HOSTS_ERROR:
      return std::unexpected(ssh_error(node, ErrorCode::io,
                                       fmt::format("cannot read {}: {}", out.known_hosts_file, ssh_get_error(session))));
  }
  return out;
}

Result<void> record_host_key(ssh_session session, const std::string& node, PreviousKeys previous) {
  std::lock_guard lock(g_known_hosts_mutex);
  if (previous == PreviousKeys::remove) {
    char* entry = nullptr;
    if (ssh_session_export_known_hosts_entry(session, &entry) != SSH_OK)
      return std::unexpected(ssh_error(node, ErrorCode::internal, "cannot format the host key"));
    const std::string line = owned(entry);
    if (auto forgotten = forget_host(node, get_option(session, SSH_OPTIONS_KNOWNHOSTS), line.substr(0, line.find(' ')));
        !forgotten)
      return forgotten;
  }
  // libssh creates the file's missing directories: an inventory's known_hosts path must not
  // make gpuctl create directories anywhere. Only the SSH directory itself (~/.ssh) is created,
  // as OpenSSH does; any other file's directory must exist already.
  const std::filesystem::path file = get_option(session, SSH_OPTIONS_KNOWNHOSTS);
  std::error_code ec;
  const auto dir = file.parent_path();
  if (!std::filesystem::is_directory(dir, ec) && dir != std::filesystem::path(home_directory()) / ".ssh")
    return std::unexpected(ssh_error(node, ErrorCode::io,
                                     fmt::format("cannot record host key: the directory of known_hosts {} does not "
                                                 "exist, and gpuctl creates none for it; create it, or name a "
                                                 "known_hosts file in an existing directory",
                                                 file.string())));
  if (ssh_session_update_known_hosts(session) != SSH_OK)
    return std::unexpected(ssh_error(node, ErrorCode::io,
                                     std::string("cannot record host key: ") + ssh_get_error(session)));
  return {};
}

Result<ServerKey> verify_host_key(ssh_session session, const std::string& node, HostKeyPolicy policy) {
  auto key = server_key(session, node);
  if (!key) return key;
  switch (key->state) {
    case KnownState::known: return key;
    case KnownState::changed:
      return std::unexpected(ssh_error(
          node, ErrorCode::host_key,
          fmt::format("HOST KEY CHANGED for {}: the server offers {} {} which does not match {}; "
                      "this may be a man-in-the-middle attack or a reinstalled node",
                      key->host_entry, key->type, key->fingerprint, key->known_hosts_file),
          fmt::format("if the node was reinstalled, check the fingerprint out of band, then run "
                      "`gpuctl hostkeys accept INVENTORY --limit {} --replace-changed`",
                      node)));
    case KnownState::unknown:
      if (policy == HostKeyPolicy::accept_new) {
        if (auto recorded = record_host_key(session, node, PreviousKeys::keep); !recorded) return std::unexpected(recorded.error());
        return key;
      }
      return std::unexpected(ssh_error(node, ErrorCode::host_key,
                                       fmt::format("unknown host key for {}: {} {} is not in {} (host_key_checking: strict)",
                                                   key->host_entry, key->type, key->fingerprint, key->known_hosts_file),
                                       pin_hint(node, *key)));
  }
  return key;
}

Result<void> authenticate(ssh_session session, const std::string& node, const ConnectionSettings& settings) {
  std::vector<std::string> tried;
  const char* agent = std::getenv("SSH_AUTH_SOCK");
  if (agent != nullptr && *agent != '\0') {
    if (ssh_userauth_agent(session, nullptr) == SSH_AUTH_SUCCESS) return {};
    tried.emplace_back("ssh-agent");
  }
  if (!settings.identity_file.empty()) {
    ssh_key key = nullptr;
    if (ssh_pki_import_privkey_file(settings.identity_file.c_str(), nullptr, nullptr, nullptr, &key) != SSH_OK)
      return std::unexpected(ssh_error(node, ErrorCode::auth,
                                       fmt::format("cannot load identity_file {} (missing, unreadable, or passphrase-protected)",
                                                   settings.identity_file),
                                       "load passphrase-protected keys into ssh-agent instead"));
    const int rc = ssh_userauth_publickey(session, nullptr, key);
    ssh_key_free(key);
    if (rc == SSH_AUTH_SUCCESS) return {};
    tried.push_back(settings.identity_file);
  }
  // The agent again (cheap) plus ~/.ssh/id_* and IdentityFile lines from ~/.ssh/config.
  if (ssh_userauth_publickey_auto(session, nullptr, nullptr) == SSH_AUTH_SUCCESS) return {};
  tried.emplace_back("default identities");
  std::string list;
  for (const auto& t : tried) list += (list.empty() ? "" : ", ") + t;
  return std::unexpected(ssh_error(node, ErrorCode::auth,
                                   fmt::format("authentication failed for {}@{} (tried {}): {}", session_user(session),
                                               get_option(session, SSH_OPTIONS_HOST), list, ssh_get_error(session)),
                                   "check the user, identity_file, or that the key is in the node's authorized_keys"));
}

}  // namespace gpuctl::ssh_detail
