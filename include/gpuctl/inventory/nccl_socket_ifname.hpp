#pragma once
// NCCL_SOCKET_IFNAME as NCCL reads it (NCCL's environment variable documentation, and
// findInterfaces/parseStringList/matchIf in NCCL's src/misc/socket.cc and utils.cc): a
// comma-separated list of interface-name prefixes; a leading '^' excludes the listed interfaces
// instead of selecting them, and a '=' (after any '^') makes the names exact instead of
// prefixes ("eth" selects eth0, eth1, ...; "=eth0" only eth0). An entry's ":<n>" is read as a
// port, which sockets ignore. NCCL ignores a value of one character (it takes the setting only
// when it is longer). Pure; shared by validate's lint and verify's nccl_socket_ifname check.

#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

struct NcclSocketIfname {
  bool exclude = false;               // "^..."
  bool exact = false;                 // "=..." / "^=..."
  std::vector<std::string> names;     // as NCCL matches them: "eth0" of "eth0:1"; empty entries skipped
  std::vector<std::string> entries;   // the same entries as written: "eth0:1"
  bool ignored = false;               // one character or none: NCCL does not take the setting at all
  // What is wrong with the value as written, one sentence each, for validate's lint: empty
  // entries, no entry at all, names that cannot be a Linux interface name (the kernel's
  // dev_valid_name: at most 15 characters, no '/', ':' or whitespace, not "." or ".."), a
  // wildcard NCCL does not expand. Empty: nothing to say.
  std::vector<std::string> problems;
};

// Parses an NCCL_SOCKET_IFNAME value (never fails: what NCCL would do with it, and the problems).
NcclSocketIfname parse_nccl_socket_ifname(std::string_view value);

// Whether NCCL would take interface `name` under `setting` (by its name; NCCL also needs an
// IPv4/IPv6 address on it): one of the names matches (exactly, or as a prefix when the list is
// not exact), negated for an exclusion list. As in NCCL's matchIfList, a list with no entry
// matches every name ("=," selects all, "^=" none). A setting NCCL ignores selects nothing.
bool nccl_socket_ifname_selects(const NcclSocketIfname& setting, std::string_view name);

}  // namespace gpuctl
