#pragma once
// A playbook: ordered steps, each managing resources on the nodes it targets, with the
// handlers it notifies, whether it needs a reboot, and the checks that verify it.
// Plain values; produced by load_playbook() (playbook/loader.hpp). Strings may contain
// `{{variable}}` references resolved per node (inventory/variables.hpp).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpuctl {

enum class ResourceKind { file, package, service, command };

enum class PackageState { present, absent };

// A file pushed to the node. Content comes from exactly one of: a template (templates/),
// a local source file (e.g. a repository key), or the secret store (never printed).
struct FileResource {
  std::string path;
  std::string template_name;   // "nccl.conf.mustache"
  std::string source;          // local path on the control host
  std::string secret;          // name in the secret store, e.g. "munge.key"
  // false: the admin's secret (a receiver's token), never generated; a run without it in the
  // store stops with where to put it.
  bool generate_secret = true;
  std::uint32_t mode = 0644;
  std::string owner = "root";
  std::string group = "root";
  // Not wanted when this read-only command exits 0 (run during plan): e.g. gpuctl's list of a
  // repository that NVIDIA's cuda-keyring already lists on the node.
  std::string unless;
};

struct PackageResource {
  std::string name;
  PackageState state = PackageState::present;
  std::string version;         // empty: any; "550.127.08" matches "550.127.08-1"
  bool hold = false;           // apt-mark hold, so unattended upgrades leave it alone
  // A package of the NVIDIA driver: when the node already runs the driver at `version` but no
  // package installed it (runfile, vendor image), "adopt" takes it as it is and "install"
  // installs the package anyway, with a warning in the plan; "" is an ordinary package.
  // Without `version` (the persistence daemon's package, versioned apart from the driver on
  // Debian) the package follows the driver's packages: adopted when they were.
  std::string unpackaged_driver{};   // (default member initializer: older brace-inits stay warning-free)
};

struct ServiceResource {
  std::string name;
  std::optional<bool> enabled;
  std::optional<bool> running;
  // A service of the NVIDIA driver (nvidia-persistenced): where the driver's packages were
  // adopted and the node has no such unit, the adopted driver's own setup owns it; "" ordinary.
  std::string unpackaged_driver{};   // (default member initializer: older brace-inits stay warning-free)
};

// A command with guards. It runs when neither guard says it is done already.
struct CommandResource {
  std::string run;
  std::string creates;         // done when this path exists
  std::string unless;          // done when this read-only command exits 0 (run during plan too)
  std::string reason;          // shown in plans: why it would run
};

struct Resource {
  ResourceKind kind = ResourceKind::file;
  FileResource file;
  PackageResource package;
  ServiceResource service;
  CommandResource command;
  std::vector<std::string> notify;   // handler names
  std::string when;                   // condition on node variables; empty = always
  int line = 0;                       // position in the playbook, for errors
};

// on_change: reboot after the step when it changed something (and reboot_if, if any, held) or
// reboot_unless failed.
// deferred: the same need, met by the next step of the node's program that can reboot
// (on_change), which then reboots in any case; the step reboots itself only when no later step
// can. Two boot-time changes in a row (the nouveau blacklist, then the driver) cost one
// reboot, which on an HGX server is 5-10 minutes.
enum class RebootPolicy { never, on_change, deferred };

struct Step {
  std::string name;
  std::string description;
  std::string when;            // condition on node variables (inventory/variables.hpp)
  std::vector<Resource> resources;
  RebootPolicy reboot = RebootPolicy::never;
  // A read-only command; when it exits non-zero the node needs a reboot even if nothing of
  // this step changes (e.g. the loaded driver differs from the installed one).
  std::string reboot_unless;
  // A read-only command; when set, the step's changes need a reboot only while it exits 0
  // (the nouveau blacklist needs one only while nouveau is loaded). reboot_unless still acts.
  std::string reboot_if;
  std::vector<std::string> checks;    // verify check names proving this step
  // Shown in the plan of every node whose program has the step: what the reader must know that
  // is no change (Grafana left out for want of its repository). Text as written, no variables.
  std::string note;
  int line = 0;
};

// Runs at most once per node per step that notified it, after that step's resources.
struct Handler {
  std::string name;
  std::string run;             // shell command
  std::string service;         // or: restart this service
  std::string description;
};

struct Playbook {
  std::string name;
  std::string path;
  std::string digest;          // SHA-256 of the file, for stale-plan checks
  std::vector<Step> steps;
  std::vector<Handler> handlers;

  const Handler* find_handler(std::string_view name) const;
};

// The resource's identity in plans: "file:/etc/nccl.conf", "package:nvidia-driver-550".
std::string resource_id(const Resource& resource);

}  // namespace gpuctl
