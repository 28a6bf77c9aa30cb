#pragma once
// What a node really has for the resources of its program: file contents and attributes,
// package versions and holds, service states, guard results. The probe script is built here
// (node_state_script), run on the node by facts/state_probe.hpp (run_state_probe) and its
// output parsed here by a pure function (parse_node_state), so planning stays pure: nothing in
// plan/ does I/O.

#include <gpuctl/core/error.hpp>
#include <gpuctl/facts/facts.hpp>
#include <gpuctl/plan/program.hpp>

#include <map>
#include <optional>
#include <string>

namespace gpuctl {

struct ObservedFile {
  bool exists = false;
  std::string content;         // empty for secrets: only the digest travels
  std::string digest;          // SHA-256 of the node's content
  std::uint32_t mode = 0;
  std::string owner;
  std::string group;
};

struct ObservedPackage {
  bool installed = false;
  std::string version;
  bool held = false;
};

struct ObservedService {
  bool known = false;          // systemctl answered
  bool enabled = false;
  bool running = false;
};

// What `scontrol show node <node>` said on the node (stdout and stderr together). Gathered
// only for programs that check slurmd_registered; volatile, so not part of the fingerprint.
struct ObservedSlurmNode {
  bool scontrol_found = false;  // false: no scontrol on the node's PATH
  int exit_code = 0;
  std::string output;
};

struct NodeState {
  NodeFacts facts;
  std::map<std::string, ObservedFile> files;          // by path
  std::map<std::string, ObservedPackage> packages;    // by name
  std::map<std::string, ObservedService> services;    // by name
  std::map<std::string, bool> guards_done;            // by command text: guard says "already done"
  std::map<std::string, bool> reboot_needed;          // by step name: its reboot_unless failed
  std::optional<ObservedSlurmNode> slurm_node;        // absent: not gathered

  // A digest of everything above except volatile facts (uptime, temperature, power), so a
  // saved plan can tell whether the node changed since.
  std::string fingerprint() const;
};

// The probe script for `program` (pure): prints sections the parser below reads.
std::string node_state_script(const NodeProgram& program);

// Parses the probe's output (pure). Errors only on output that is not the probe's.
Result<NodeState> parse_node_state(const NodeProgram& program, std::string_view output);

// As above, with the facts collected beside the probe (facts::run_state_probe) put into the
// state (pure).
Result<NodeState> parse_node_state(const NodeProgram& program, std::string_view output, NodeFacts facts);

}  // namespace gpuctl
