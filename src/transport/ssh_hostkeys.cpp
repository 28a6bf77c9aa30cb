// `gpuctl hostkeys`: seeing and pinning host keys deliberately, outside a run.
#include "ssh_session.hpp"

#include <gpuctl/transport/ssh_transport.hpp>

#include <fmt/format.h>


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
  }
  const auto previous = key->state == KnownState::changed ? PreviousKeys::remove : PreviousKeys::keep;
  if (auto recorded = record_host_key(session->get(), node, previous); !recorded)
    return std::unexpected(recorded.error());
  return before;
}

}  // namespace gpuctl
