// Slurm drain decisions (pure) and the scontrol/squeue commands behind them (apply/drain.hpp).
#include <gpuctl/apply/drain.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>
#include <thread>

namespace gpuctl {
namespace {

constexpr std::string_view k_slurm_conf = "/etc/slurm/slurm.conf";
constexpr std::string_view k_no_slurm_conf_marker = "gpuctl:no-slurm-conf";
constexpr std::string_view k_unexpected_reboot_reason = "Node unexpectedly rebooted";

// Slurm prints "Node node01 not found" (exit 1) for a node that is not in slurm.conf, and
// a shell prints 127 when slurm-client is not installed yet: both mean a fresh node.
bool slurm_does_not_know(const CommandResult& result, const std::string& name) {
  if (result.exit_code == 127) return true;
  const auto output = result.out + result.err;
  return output.find(fmt::format("Node {} not found", name)) != std::string::npos ||
         (output.starts_with("Node ") && output.find(" not found") != std::string::npos) ||
         output.find("Invalid node name") != std::string::npos;
}

Location at(const std::string& node) {
  Location where;
  where.node = node;
  return where;
}

std::string last_words(const CommandResult& result) {
  return std::string(util::trim(util::tail_lines(result.out + result.err, 2)));
}

Result<void> scontrol_update(Transport& transport, const std::string& name, const std::string& arguments, bool become) {
  const auto command = fmt::format("scontrol update nodename={} {}", util::shell_quote(name), arguments);
  auto result = transport.run(command, {std::chrono::seconds(60), {}, become});
  if (!result) return std::unexpected(result.error());
  if (!result->ok())
    return fail(ErrorCode::io, fmt::format("{} exited {}: {}", command, result->exit_code, last_words(*result)),
                at(name));
  return {};
}

}  // namespace

const Change* disruptive_change(const NodePlan& plan, const std::vector<std::string>& driver_packages) {
  for (const auto& change : plan.changes) {
    if (change.action == Action::reboot) return &change;
    for (const auto& package : driver_packages)
      if (!package.empty() && change.resource == "package:" + package) return &change;
  }
  return nullptr;
}

bool is_drained(const facts::SlurmNodeInfo& node) {
  if (node.states.empty()) return false;
  return node.has_state("DRAIN") || node.states.front() == "DRAINED" || node.states.front() == "DRAINING";
}

DrainDecision decide_drain(const std::optional<facts::SlurmNodeInfo>& node) {
  if (!node) return DrainDecision::not_in_slurm;
  if (is_drained(*node) && !node->reason.starts_with(k_drain_reason_prefix)) return DrainDecision::drained_by_other;
  return DrainDecision::drain;
}

std::string_view to_string(DrainDecision decision) {
  switch (decision) {
    case DrainDecision::not_in_slurm: return "not in slurm";
    case DrainDecision::drained_by_other: return "drained by someone else";
    case DrainDecision::drain: return "drain";
  }
  return "?";
}

bool should_resume(DrainDecision decision, bool verify_passed) {
  return decision == DrainDecision::drain && verify_passed;
}

std::string drain_reason(std::string_view step) { return fmt::format("{} run: {}", k_drain_reason_prefix, step); }

std::string verify_failed_reason(std::string_view check) {
  return fmt::format("{}: verify failed: {}", k_drain_reason_prefix, check);
}

std::string without_own_drain(std::string_view scontrol_output, bool any_reason) {
  const auto info = facts::parse_scontrol_node(scontrol_output);
  if (!info) return std::string(scontrol_output);
  // slurmctld (ReturnToService=0, the default) marks a node that rebooted without
  // `scontrol reboot` DOWN with this reason, replacing gpuctl's: part of gpuctl's own work.
  const bool rebooted = info->reason.starts_with(k_unexpected_reboot_reason) && info->has_state("DRAIN");
  if (!rebooted && (!is_drained(*info) || !(any_reason || info->reason.starts_with(k_drain_reason_prefix))))
    return std::string(scontrol_output);
  std::string result;
  for (const auto& line : util::split_lines(scontrol_output)) {
    std::string text(line);
    if (util::trim(text).starts_with("Reason=")) continue;
    if (const auto pos = text.find("State="); pos != std::string::npos) {
      const auto end = std::min(text.find(' ', pos), text.size());
      std::vector<std::string> kept;
      for (const auto& part : util::split(text.substr(pos + 6, end - pos - 6), '+')) {
        if (part == "DRAIN") continue;
        const bool idle = part == "DRAINED" || part == "DRAINING" || (rebooted && part == "DOWN");
        kept.push_back(idle ? std::string("IDLE") : std::string(part));
      }
      text = text.substr(0, pos + 6) + util::join(kept, "+") + text.substr(end);
    }
    result += text + '\n';
  }
  return result;
}

Result<std::optional<facts::SlurmNodeInfo>> slurm_show_node(Transport& transport, const std::string& name, bool become) {
  // No slurm.conf: the node is not part of a Slurm cluster yet, whatever scontrol would say
  // about a missing configuration.
  auto result = transport.run(
      fmt::format("if [ ! -e {} ]; then echo {}; exit 0; fi; timeout 30 scontrol show node {}", k_slurm_conf,
                  k_no_slurm_conf_marker, util::shell_quote(name)),
      {std::chrono::seconds(60), {}, become});
  if (!result) return std::unexpected(result.error());
  if (slurm_does_not_know(*result, name) || util::trim(result->out) == k_no_slurm_conf_marker)
    return std::optional<facts::SlurmNodeInfo>{};
  if (!result->ok())
    return fail(ErrorCode::io,
                fmt::format("cannot ask Slurm about {} (scontrol show node exited {}: {}); not touching a node "
                            "that may run jobs",
                            name, result->exit_code, last_words(*result)),
                at(name));
  auto info = facts::parse_scontrol_node(result->out);
  if (!info) return std::unexpected(info.error());
  return std::optional<facts::SlurmNodeInfo>(std::move(*info));
}

Result<void> slurm_drain(Transport& transport, const std::string& name, const std::string& reason, bool become) {
  return scontrol_update(transport, name, "state=drain reason=" + util::shell_quote(reason), become);
}

Result<void> slurm_resume(Transport& transport, const std::string& name, bool become) {
  return scontrol_update(transport, name, "state=resume", become);
}

Result<void> wait_for_no_jobs(Transport& transport, const std::string& name, const DrainWaitOptions& options,
                              bool become) {
  const auto deadline = std::chrono::steady_clock::now() + options.timeout;
  const auto command = fmt::format("squeue -h -w {} -o '%i %u %j'", util::shell_quote(name));
  if (options.stop_jobs) {
    auto cancelled = transport.run(fmt::format("scancel -w {}", util::shell_quote(name)), {std::chrono::seconds(60), {}, become});
    if (!cancelled) return std::unexpected(cancelled.error());
    if (!cancelled->ok())
      return fail(ErrorCode::io, fmt::format("scancel exited {}: {}", cancelled->exit_code, last_words(*cancelled)),
                  at(name));
  }
  for (;;) {
    auto result = transport.run(command, {std::chrono::seconds(60), {}, become});
    if (!result) return std::unexpected(result.error());
    if (!result->ok())
      return fail(ErrorCode::io, fmt::format("squeue exited {}: {}", result->exit_code, last_words(*result)),
                  at(name));
    const auto jobs = util::trim(result->out);
    if (jobs.empty()) return {};
    if (std::chrono::steady_clock::now() >= deadline) {
      auto lines = util::split_lines(jobs);
      return fail(ErrorCode::timeout,
                  fmt::format("drain timeout: {} job(s) still running after {} s ({}); the node stays drained",
                              lines.size(), options.timeout.count(), util::join(lines, ", ")),
                  at(name), "raise --drain-timeout, or end the jobs (scancel) and run apply again");
    }
    if (options.cancel && options.cancel->cancelled())
      return fail(ErrorCode::interrupted, "interrupted while waiting for jobs to end; the node stays drained",
                  at(name));
    std::this_thread::sleep_for(options.poll);
  }
}

}  // namespace gpuctl
