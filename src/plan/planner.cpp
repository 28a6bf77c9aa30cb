// The pure planner: what must change on a node for its program to hold, and why.
#include <gpuctl/plan/plan.hpp>

#include <gpuctl/util/diff.hpp>
#include <gpuctl/util/strings.hpp>

#include <algorithm>
#include <cctype>
#include <set>
#include <fmt/format.h>

namespace gpuctl {
namespace {

std::string mode_text(std::uint32_t mode) { return fmt::format("{:04o}", mode); }

// Orders package versions as people read them, for the plan's wording only: the epoch first
// (when both have one: the inventory's versions have none), then runs of digits by value and
// other characters as text, so "550.90.07" < "550.127.08" (string comparison says the opposite).
int compare_versions(std::string_view a, std::string_view b) {
  const auto epoch = [](std::string_view& v) {
    const auto colon = v.find(':');
    if (colon == std::string_view::npos) return std::string_view();
    const auto e = v.substr(0, colon);
    v.remove_prefix(colon + 1);
    return e;
  };
  const auto digits = [](std::string_view& v) {
    std::size_t n = 0;
    while (n < v.size() && std::isdigit(static_cast<unsigned char>(v[n]))) ++n;
    auto run = v.substr(0, n);
    v.remove_prefix(n);
    while (run.size() > 1 && run.front() == '0') run.remove_prefix(1);
    return run;
  };
  const auto compare_numbers = [](std::string_view x, std::string_view y) {
    if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
    return x < y ? -1 : (x == y ? 0 : 1);
  };
  const auto epoch_a = epoch(a);
  const auto epoch_b = epoch(b);
  if (!epoch_a.empty() && !epoch_b.empty())
    if (const int e = compare_numbers(epoch_a, epoch_b)) return e;
  while (!a.empty() || !b.empty()) {
    const bool a_digit = !a.empty() && std::isdigit(static_cast<unsigned char>(a.front()));
    const bool b_digit = !b.empty() && std::isdigit(static_cast<unsigned char>(b.front()));
    if (a_digit && b_digit) {
      if (const int c = compare_numbers(digits(a), digits(b))) return c;
      continue;
    }
    if (a.empty() || b.empty()) return a.empty() ? -1 : 1;
    if (a.front() != b.front()) return a.front() < b.front() ? -1 : 1;
    a.remove_prefix(1);
    b.remove_prefix(1);
  }
  return 0;
}

// A file copied from the control host (`source:`, e.g. the repository key) is shown by digest
// and size, never by content: the plan is printed, saved and shared.
std::string source_content_text(const ResolvedResource& resolved) {
  return fmt::format("{}: sha256 {}, {} bytes", resolved.resource.file.source, resolved.content_digest,
                     resolved.content.size());
}

// A secret the store does not hold yet (plan and verify never generate one; apply does).
constexpr std::string_view k_new_secret = "a new secret: apply generates it in the secret store, which has none yet";
constexpr std::string_view k_replaces_node_secret =
    ", replacing the node's (if the cluster has a key, point GPUCTL_SECRETS_DIR at the store that holds it)";

std::vector<Change> file_changes(const ResolvedResource& resolved, const NodeState& state) {
  const auto& f = resolved.resource.file;
  if (!f.unless.empty()) {
    const auto guard = state.guards_done.find(resource_id(resolved.resource));
    if (guard != state.guards_done.end() && guard->second) return {};
  }
  const auto it = state.files.find(f.path);
  const ObservedFile observed = it == state.files.end() ? ObservedFile{} : it->second;
  const bool from_source = !f.source.empty();
  const bool show_diff = !resolved.secret && !from_source;
  Change change;
  change.resource = resource_id(resolved.resource);
  if (!observed.exists) {
    change.action = Action::create;
    change.summary = fmt::format("create {} ({} {}:{})", f.path, mode_text(f.mode), f.owner, f.group);
    change.reason = "file does not exist";
    if (resolved.secret_missing) change.reason += fmt::format("; {}", k_new_secret);
    if (from_source) change.reason += "; content from " + source_content_text(resolved);
    if (show_diff) change.diff = util::unified_diff("", resolved.content, "/dev/null", f.path);
    return {change};
  }
  std::vector<std::string> differences;
  if (observed.digest != resolved.content_digest) {
    if (resolved.secret_missing) differences.push_back(fmt::format("{}{}", k_new_secret, k_replaces_node_secret));
    else if (resolved.secret) differences.push_back("secret content differs");
    else if (from_source) differences.push_back("content differs from " + source_content_text(resolved));
    else differences.push_back("content differs");
    if (show_diff) change.diff = util::unified_diff(observed.content, resolved.content, f.path, f.path);
  }
  if (observed.mode != f.mode) differences.push_back(fmt::format("mode {} -> {}", mode_text(observed.mode), mode_text(f.mode)));
  if (observed.owner != f.owner || observed.group != f.group)
    differences.push_back(fmt::format("owner {}:{} -> {}:{}", observed.owner, observed.group, f.owner, f.group));
  if (differences.empty()) return {};
  change.action = Action::update;
  change.summary = fmt::format("update {}", f.path);
  for (std::size_t i = 0; i < differences.size(); ++i) change.reason += (i ? ", " : "") + differences[i];
  return {change};
}

// A driver package not installed while the node runs the driver at the wanted version, from
// no package (facts/facts.hpp DriverOrigin): the runfile's or a vendor image's files. What the
// policy makes of it, as a plan note; nullopt when the package is an ordinary one.
std::optional<std::string> unpackaged_driver_note(const PackageResource& p, const NodeState& state, bool& adopted) {
  adopted = false;
  if (p.unpackaged_driver.empty() || p.version.empty()) return std::nullopt;
  const auto& loaded = state.facts.driver_version;
  const auto& origin = state.facts.driver_origin;
  if (!loaded.present() || *loaded.value != p.version) return std::nullopt;
  if (origin.present() && origin.value->kind == DriverOrigin::Kind::package) return std::nullopt;
  const std::string from =
      !origin.present() ? fmt::format("its origin is unknown: {}", origin.absent_reason)
      : origin.value->kind == DriverOrigin::Kind::runfile
          ? fmt::format("NVIDIA's runfile installed it ({})", util::join(origin.value->runfile_marks, ", "))
      : origin.value->kind == DriverOrigin::Kind::no_user_space
          ? std::string("the host has no nvidia-smi: a driver container?")
          : fmt::format("{} belongs to no package", origin.value->path);
  // Adopt only what is known to come from no package: an unknown origin is no reason to skip
  // the install.
  if (!origin.present())
    return fmt::format("driver {} is loaded and no package of it is installed, but {}: its packages are planned",
                       p.version, from);
  if (p.unpackaged_driver == "adopt") {
    adopted = true;
    return fmt::format("driver {} is loaded and not from a package ({}): adopted as it is, its packages are not "
                       "installed (nvidia.unpackaged_driver: adopt)",
                       p.version, from);
  }
  return fmt::format("driver {} is loaded and not from a package ({}): installing its packages puts a second copy "
                     "over it; remove it first (nvidia-uninstall for the runfile), or keep it with "
                     "nvidia.unpackaged_driver: adopt",
                     p.version, from);
}

// Whether this node's plan adopted a driver it runs from no package: the driver's packages
// without a version of their own, and its services that the node lacks, follow that decision.
struct DriverAdoption {
  bool adopted = false;
};

std::vector<Change> package_changes(const ResolvedResource& resolved, const NodeState& state,
                                    std::vector<std::string>& notes, DriverAdoption& adoption) {
  const auto& p = resolved.resource.package;
  const auto it = state.packages.find(p.name);
  const ObservedPackage observed = it == state.packages.end() ? ObservedPackage{} : it->second;
  Change change;
  change.resource = resource_id(resolved.resource);
  const auto wanted = p.version.empty() ? std::string("latest") : p.version;
  if (p.state == PackageState::absent) {
    if (!observed.installed) return {};
    change.action = Action::remove;
    change.summary = fmt::format("remove {} ({})", p.name, observed.version);
    change.reason = "package is installed";
    return {change};
  }
  if (!observed.installed) {
    if (!p.unpackaged_driver.empty() && p.version.empty() && adoption.adopted) return {};
    bool adopted = false;
    if (auto note = unpackaged_driver_note(p, state, adopted)) {
      if (std::ranges::find(notes, *note) == notes.end()) notes.push_back(std::move(*note));
      adoption.adopted = adoption.adopted || adopted;
      if (adopted) return {};
    }
    change.action = Action::create;
    change.summary = fmt::format("install {} (none -> {}){}", p.name, wanted, p.hold ? ", held" : "");
    change.reason = "package is not installed";
    return {change};
  }
  if (!p.version.empty() && !version_matches(observed.version, p.version)) {
    change.action = Action::update;
    change.summary = fmt::format("{} {} ({} -> {}){}", compare_versions(observed.version, p.version) < 0 ? "upgrade" : "change", p.name,
                                 observed.version, p.version, p.hold ? ", held" : "");
    change.reason = "installed version differs from the inventory";
    return {change};
  }
  if (p.hold && !observed.held) {
    change.action = Action::update;
    change.summary = fmt::format("hold {} at {}", p.name, observed.version);
    change.reason = "package is not held against unattended upgrades";
    return {change};
  }
  return {};
}

std::vector<Change> service_changes(const ResolvedResource& resolved, const NodeState& state,
                                    std::vector<std::string>& notes, const DriverAdoption& adoption) {
  const auto& s = resolved.resource.service;
  const auto it = state.services.find(s.name);
  const ObservedService observed = it == state.services.end() ? ObservedService{} : it->second;
  if (!s.unpackaged_driver.empty() && adoption.adopted && !observed.known) {
    notes.push_back(fmt::format("service {} is not on the node: the adopted driver's own setup runs it or not "
                                "(verify's checks say whether the GPUs are as declared)",
                                s.name));
    return {};
  }
  std::vector<std::string> actions;
  if (s.enabled && *s.enabled != observed.enabled) actions.push_back(*s.enabled ? "enable" : "disable");
  if (s.running && *s.running != observed.running) actions.push_back(*s.running ? "start" : "stop");
  if (actions.empty()) return {};
  Change change;
  change.action = Action::update;
  change.resource = resource_id(resolved.resource);
  change.summary = fmt::format("{} service {}", actions.size() == 2 ? actions[0] + " and " + actions[1] : actions[0], s.name);
  change.reason = observed.known ? fmt::format("service is {}, {}", observed.enabled ? "enabled" : "disabled",
                                               observed.running ? "running" : "not running")
                                 : "systemd did not report the service";
  return {change};
}

std::vector<Change> command_changes(const ResolvedResource& resolved, const NodeState& state) {
  const auto& c = resolved.resource.command;
  const auto it = state.guards_done.find(c.run);
  const bool guarded = !c.creates.empty() || !c.unless.empty();
  if (guarded && it != state.guards_done.end() && it->second) return {};
  Change change;
  change.action = Action::run;
  change.resource = resource_id(resolved.resource);
  change.summary = fmt::format("run `{}`", c.run);
  if (!c.reason.empty()) change.reason = c.reason;
  else if (!c.creates.empty()) change.reason = fmt::format("{} does not exist", c.creates);
  else if (!c.unless.empty()) change.reason = fmt::format("`{}` failed", c.unless);
  else change.reason = "the command has no guard, so it always runs";
  return {change};
}

}  // namespace

std::string_view action_symbol(Action action) {
  switch (action) {
    case Action::create: return "+";
    case Action::update: return "~";
    case Action::remove: return "-";
    case Action::run: return "»";
    case Action::restart: return "↻";
    case Action::reboot: return "↻";
  }
  return "?";
}

std::string_view action_name(Action action) {
  switch (action) {
    case Action::create: return "create";
    case Action::update: return "update";
    case Action::remove: return "remove";
    case Action::run: return "run";
    case Action::restart: return "restart";
    case Action::reboot: return "reboot";
  }
  return "unknown";
}

bool version_matches(std::string_view installed, std::string_view wanted) {
  if (installed == wanted) return true;
  // Debian epochs ("1:550.127.08-1") and revisions are not part of the inventory's version.
  if (const auto colon = installed.find(':'); colon != std::string_view::npos) installed.remove_prefix(colon + 1);
  if (!installed.starts_with(wanted)) return false;
  return installed.size() == wanted.size() || installed[wanted.size()] == '-';
}

bool Plan::has_changes() const {
  return std::ranges::any_of(nodes, [](const NodePlan& n) { return !n.changes.empty(); });
}

bool Plan::has_errors() const {
  return std::ranges::any_of(nodes, [](const NodePlan& n) { return n.status != NodePlanStatus::planned; });
}

// Whether a step after `s` can reboot the node (reboot: on-change): a deferred reboot waits for it.
bool later_step_reboots(const NodeProgram& program, std::size_t s) {
  for (std::size_t later = s + 1; later < program.steps.size(); ++later)
    if (program.steps[later].step->reboot == RebootPolicy::on_change) return true;
  return false;
}

NodePlan make_node_plan(const NodeProgram& program, const NodeState& state) {
  NodePlan plan;
  plan.node = program.node;
  plan.state_fingerprint = state.fingerprint();
  std::vector<std::string> deferred_by;  // steps whose reboot the next rebooting step takes
  // A package or service change an earlier step of this plan makes already (driver-upgrade's
  // driver step, then gpu-node's): planned once; by the later step's turn it is done.
  std::set<std::string> planned_once;
  bool reboot_planned = false;
  DriverAdoption adoption;
  for (std::size_t s = 0; s < program.steps.size(); ++s) {
    const auto& step = program.steps[s];
    if (!step.step->note.empty() && std::ranges::find(plan.notes, step.step->note) == plan.notes.end())
      plan.notes.push_back(step.step->note);
    std::vector<std::string> notified;
    bool changed = false;
    for (std::size_t r = 0; r < step.resources.size(); ++r) {
      const auto& resolved = step.resources[r];
      std::vector<Change> changes;
      switch (resolved.resource.kind) {
        case ResourceKind::file: changes = file_changes(resolved, state); break;
        case ResourceKind::package: changes = package_changes(resolved, state, plan.notes, adoption); break;
        case ResourceKind::service: changes = service_changes(resolved, state, plan.notes, adoption); break;
        case ResourceKind::command: changes = command_changes(resolved, state); break;
      }
      for (auto& change : changes) {
        const bool repeatable = resolved.resource.kind == ResourceKind::package || resolved.resource.kind == ResourceKind::service;
        if (repeatable && !planned_once.insert(change.resource + "\n" + change.summary).second) continue;
        change.step = step.step->name;
        change.step_index = s;
        change.resource_index = r;
        if (resolved.resource.kind == ResourceKind::file) change.content_digest = resolved.content_digest;
        plan.changes.push_back(std::move(change));
        changed = true;
        for (const auto& handler : resolved.resource.notify)
          if (std::ranges::find(notified, handler) == notified.end()) notified.push_back(handler);
      }
    }
    for (const auto& name : notified) {
      const auto* handler = step.playbook->find_handler(name);
      Change change;
      change.action = handler && !handler->service.empty() ? Action::restart : Action::run;
      change.step = step.step->name;
      change.step_index = s;
      change.resource = "handler:" + name;
      // The command itself: the reviewer reads what will run, and a saved plan binds it.
      change.summary = handler && !handler->service.empty() ? fmt::format("restart service {}", handler->service)
                       : handler ? fmt::format("run handler {}: `{}`", name, handler->run)
                                 : fmt::format("run handler {}", name);
      change.reason = "notified by a change in this step";
      plan.changes.push_back(std::move(change));
    }
    const auto reboot_it = state.reboot_needed.find(step.step->name);
    const bool guard_wants_reboot = reboot_it != state.reboot_needed.end() && reboot_it->second;
    // reboot_if failed: this step's changes take no effect at boot on this node.
    const auto changes_it = state.changes_reboot.find(step.step->name);
    const bool changes_reboot = changes_it == state.changes_reboot.end() || changes_it->second;
    bool needs_reboot = step.step->reboot != RebootPolicy::never && ((changed && changes_reboot) || guard_wants_reboot);
    // A step with nothing of its own to do whose guard asks for a reboot (the module in memory
    // is not the installed one): an earlier reboot of this plan comes after the install, and loads it.
    if (needs_reboot && !changed && reboot_planned && deferred_by.empty()) needs_reboot = false;
    if (needs_reboot && step.step->reboot == RebootPolicy::deferred && later_step_reboots(program, s)) {
      deferred_by.push_back(step.step->name);
      continue;
    }
    if (needs_reboot || (step.step->reboot == RebootPolicy::on_change && !deferred_by.empty())) {
      Change change;
      change.action = Action::reboot;
      change.step = step.step->name;
      change.step_index = s;
      change.resource = "reboot";
      change.summary = "reboot and wait for a new boot_id";
      if (needs_reboot)
        change.reason = changed ? "this step changed something that takes effect at boot"
                                : fmt::format("`{}` failed", step.reboot_unless);
      for (const auto& earlier : deferred_by)
        change.reason += fmt::format("{}step {} changed something that takes effect at boot (its reboot is this one)",
                                     change.reason.empty() ? "" : "; ", earlier);
      deferred_by.clear();
      plan.changes.push_back(std::move(change));
      reboot_planned = true;
    }
  }
  return plan;
}

}  // namespace gpuctl
