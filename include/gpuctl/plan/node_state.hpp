#pragma once
// What a node really has for the resources of its program: file contents and attributes,
// package versions and holds, service states, guard results. The probe script is built here
// (node_state_script), run on the node by facts/state_probe.hpp (run_state_probe) and its
// output parsed here by a pure function (parse_node_state), so planning stays pure: nothing in
// plan/ does I/O.

#include <gpuctl/core/error.hpp>
#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/facts.hpp>
#include <gpuctl/facts/state_probe.hpp>
#include <gpuctl/plan/program.hpp>

#include <map>
#include <optional>
#include <set>
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
  // systemd's own words where `systemctl show` answered (empty otherwise): LoadState ("loaded",
  // "not-found", "masked"), UnitFileState ("enabled", "disabled", ""), ActiveState ("active",
  // "inactive", "failed") and Result ("success", "exit-code", "signal", ...). They tell a unit
  // that failed from one never enabled or not installed; plan reads only the three flags.
  std::string load_state{};
  std::string unit_file_state{};
  std::string active_state{};
  std::string result{};
};

// What `scontrol show node <node>` said on the node (stdout and stderr together). Gathered
// only where a check reads Slurm's view (ProbeExtras); volatile, so not part of the fingerprint.
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
  std::map<std::string, bool> changes_reboot;         // by step name: its reboot_if exited 0
  std::optional<ObservedSlurmNode> slurm_node;        // absent: not gathered

  // A digest of everything above except volatile facts (uptime, temperature, power), so a
  // saved plan can tell whether the node changed since.
  std::string fingerprint() const;
};

// What a probe reads beyond what the changes depend on: the facts and views verify's checks
// read, named by the caller (verify/catalog.hpp check_probe_extras), so plan/ knows no check.
// Empty: a plan's probe.
struct ProbeExtras {
  std::set<std::string> facts;     // optional probes of the facts batch (facts/collect.hpp)
  bool slurm_node_view = false;    // `scontrol show node NODE` in the state script, bounded
};

// The program's package names, once each, in program order (pure).
std::vector<std::string> program_packages(const NodeProgram& program);

// The state script for `program` (pure): a POSIX sh function body that prints the sections
// parse_node_state reads. Every file costs the node one stat, one cat and (secrets) one
// sha256sum together; every service one systemctl show together; guards run as written.
std::string node_state_script(const NodeProgram& program, const ProbeExtras& extras = {});

// The one facts batch that probes `program` on a node (pure): the state script as its last
// probe, the program's packages in its dpkg-query, and the optional probes `extras` names.
facts::CollectOptions node_probe_options(const NodeProgram& program, const ProbeExtras& extras = {});

// Parses the state script's output (pure), with the facts collected beside it and the batch's
// dpkg-query lines ("package<TAB>version<TAB>status") for the program's packages. Errors only
// on output that is not the probe's (cut short, sizes that do not add up).
Result<NodeState> parse_node_state(const NodeProgram& program, std::string_view output, NodeFacts facts = {},
                                   std::string_view package_lines = {});

// The same, from a run_state_probe result (pure).
Result<NodeState> parse_node_state(const NodeProgram& program, const facts::StateProbeOutput& probe);

}  // namespace gpuctl
