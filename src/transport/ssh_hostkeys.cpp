// `gpuctl hostkeys`: seeing and pinning host keys deliberately, outside a run.
#include "ssh_session.hpp"

#include <gpuctl/transport/ssh_transport.hpp>

#include <fmt/format.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace gpuctl {
namespace {

using namespace ssh_detail;

HostKeyInfo to_info(const std::string& node, const ServerKey& key) {
  HostKeyInfo info;
  info.node = node;
  info.host_entry = key.host_entry;
  info.key_type = key.type;
  info.fingerprint = key.fingerprint;
  info.known_hosts_file = key.known_hosts_file;
  info.state = key.state == KnownState::known     ? HostKeyState::known
               : key.state == KnownState::unknown ? HostKeyState::unknown
                                                  : HostKeyState::changed;
  return info;
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

std::string_view to_string(HostKeyState state) {
  switch (state) {
    case HostKeyState::known: return "known";
    case HostKeyState::unknown: return "unknown";
    case HostKeyState::changed: return "CHANGED";
  }
  return "?";
}

Result<HostKeyInfo> scan_host_key(const std::string& node, const ConnectionSettings& settings) {
  auto session = open_session(node, settings);
  if (!session) return std::unexpected(session.error());
  auto key = server_key(session->get(), node);
  if (!key) return std::unexpected(key.error());
  return to_info(node, *key);
}

Result<HostKeyInfo> accept_host_key(const std::string& node, const ConnectionSettings& settings,
                                    ChangedKeyPolicy changed) {
  auto session = open_session(node, settings);
  if (!session) return std::unexpected(session.error());
  auto key = server_key(session->get(), node);
  if (!key) return std::unexpected(key.error());
  const HostKeyInfo before = to_info(node, *key);
  if (key->state == KnownState::known) return before;
  if (key->state == KnownState::changed) {
    if (changed == ChangedKeyPolicy::refuse)
      return std::unexpected(ssh_error(node, ErrorCode::host_key,
                                       fmt::format("HOST KEY CHANGED for {}: the server now offers {} {}; not replacing it",
                                                   key->host_entry, key->type, key->fingerprint),
                                       "verify the fingerprint out of band, then rerun with --replace-changed"));
    if (auto forgotten = forget_host(node, key->known_hosts_file, key->host_entry); !forgotten)
      return std::unexpected(forgotten.error());
  }
  if (auto recorded = record_host_key(session->get(), node); !recorded) return std::unexpected(recorded.error());
  return before;
}

}  // namespace gpuctl
