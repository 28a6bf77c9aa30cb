#pragma once
// `gpuctl hostkeys scan|accept`: see nodes' SSH host keys, or pin them deliberately in
// known_hosts. Nodes in parallel (--forks). Does network I/O (the nodes' sshd) and writes
// known_hosts (accept); never prints.

#include <gpuctl/api/run_request.hpp>
#include <gpuctl/api/verdict.hpp>
#include <gpuctl/transport/ssh_transport.hpp>

#include <functional>
#include <optional>

namespace gpuctl {

enum class HostKeyAction { scan, accept };

// How one node's key is looked at or pinned: the SSH functions of transport/ssh_transport.hpp
// unless a test plugs in its own.
using HostKeyProbe = std::function<Result<HostKeyInfo>(const Node& node, HostKeyAction action, ChangedKeyPolicy changed)>;

struct HostKeysRequest {
  HostKeyAction action = HostKeyAction::scan;
  std::string inventory;
  std::string limit;
  int forks = exec::k_default_forks;
  ChangedKeyPolicy changed = ChangedKeyPolicy::refuse;  // accept --replace-changed: replace
  HostKeyProbe probe;                                   // empty: SSH
};

struct HostKeyNode {
  exec::NodeOutcome outcome;        // ok (known), changed (accepted), failed, unreachable, skipped
  std::optional<HostKeyInfo> info;  // the key, when the node answered
};

struct HostKeysResult {
  // interrupted; else nodes_unreachable when a node could not be asked; else nodes_failed when a
  // key was refused (accept) or is not known (scan); else ok.
  Verdict verdict = Verdict::ok;
  std::string error;
  std::vector<HostKeyNode> nodes;   // in inventory order
};

HostKeysResult run_hostkeys(const HostKeysRequest& request, const RunEnvironment& env);

// `hostkeys scan|accept --json` (docs/output.md): {"format_version":1,"action":"scan"|"accept",
// "nodes":[{"node","status","reason","host_entry","key_type","fingerprint","known_hosts",
// "key_state" ("known"|"unknown"|"changed": what known_hosts said before accept wrote)}]}; the
// key fields are null for a node that did not answer. One entry per node, in inventory order. Pure.
std::string hostkeys_to_json(HostKeyAction action, const HostKeysResult& result);

}  // namespace gpuctl
