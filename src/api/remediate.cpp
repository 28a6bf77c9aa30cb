// `remediate`: a node failing on a GPU fault gets the remedy the health policy names, inside
// an owned Slurm drain, and goes back to work only once DCGM and verify pass.
#include "workflow_steps.hpp"

#include <gpuctl/apply/reboot.hpp>
#include <gpuctl/health/policy.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/remediation.hpp>

#include <fmt/format.h>

namespace gpuctl {
namespace {

using health::Remedy;

// The GPU's clients, stopped before a reset in this order and started again in the reverse one
// (NVIDIA's nvidia-smi -r: no process may hold the GPU; the fabric manager owns the NVSwitch
// fabric of the board). A unit not running is left as it is.
constexpr const char* k_gpu_clients = "nvidia-dcgm-exporter.service nvidia-dcgm.service nvidia-fabricmanager.service "
                                      "nvidia-persistenced.service";

// Where gpuctl records its resets on the node ("BOOT_ID UPTIME PCI" per line): the kernel_xids
// probe counts an Xid logged before its GPU's reset as dealt with.
constexpr const char* k_reset_record = "/var/lib/gpuctl/gpu-resets";

// One shell script: stop the clients, reset, start them again, record the reset. The uptime is
// taken before anything stops, so an Xid that comes during the reset still counts.
std::string reset_script(const RemediationPlan& plan) {
  std::vector<std::string> targets;                   // nvidia-smi -r arguments, one run each
  std::vector<std::string> recorded;                  // the record's PCI field
  if (plan.whole_board || plan.reset_gpus.empty()) {
    targets.emplace_back("");
    recorded.emplace_back("all");
  } else {
    for (const auto& gpu : plan.reset_gpus) {
      targets.push_back(" -i " + util::shell_quote(gpu));
      recorded.push_back(util::shell_quote(gpu.substr(0, gpu.rfind('.'))));
    }
  }
  std::string script = fmt::format(
      "set -u\n"
      "boot=$(cat /proc/sys/kernel/random/boot_id) && uptime=$(cut -d' ' -f1 /proc/uptime) || exit 20\n"
      "rc=0; stopped=\n"
      "for unit in {}; do\n"
      "  systemctl is-active --quiet \"$unit\" || continue\n"
      "  echo \"stopping $unit\"\n"
      "  if ! systemctl stop \"$unit\"; then echo \"cannot stop $unit\"; rc=21; break; fi\n"
      "  stopped=\"$unit $stopped\"\n"
      "done\n",
      k_gpu_clients);
  script += "if [ \"$rc\" = 0 ]; then\n";
  for (const auto& target : targets)
    script += fmt::format("  echo 'nvidia-smi -r{}'; nvidia-smi -r{} 2>&1 || rc=$?\n", target, target);
  script += "fi\n"
            "for unit in $stopped; do echo \"starting $unit\"; systemctl start \"$unit\" || echo \"cannot start $unit\"; done\n"
            "if [ \"$rc\" = 0 ]; then\n"
            "  mkdir -p /var/lib/gpuctl || exit 22\n";
  for (const auto& pci : recorded)
    script += fmt::format("  printf '%s %s %s\\n' \"$boot\" \"$uptime\" {} >> {} || exit 22\n", pci, k_reset_record);
  script += "fi\nexit $rc\n";
  return script;
}

// The steps the remedy takes, in words (what --dry-run shows and the history records).
std::vector<std::string> planned_steps(const RemediationPlan& plan, bool slurm, int diag_level) {
  std::vector<std::string> steps;
  if (slurm) steps.emplace_back("drain in Slurm (reason \"gpuctl run: remediate\") and wait for its jobs");
  switch (plan.remedy) {
    case Remedy::reset_gpu:
      steps.emplace_back(fmt::format("stop the GPU's clients that run ({})", k_gpu_clients));
      steps.emplace_back(plan.whole_board || plan.reset_gpus.empty()
                             ? std::string("nvidia-smi -r (every GPU and NVSwitch of the board)")
                             : "nvidia-smi -r -i " + util::join(plan.reset_gpus, ", -i "));
      steps.emplace_back("start the stopped clients again; record the reset in " + std::string(k_reset_record) +
                         " (a failed reset: reboot instead)");
      break;
    case Remedy::reboot: steps.emplace_back("reboot and wait for a new boot_id"); break;
    case Remedy::none:
    case Remedy::restart_app: break;  // nothing to remedy: the proof alone
    default:
      steps.emplace_back(fmt::format("nothing gpuctl can do ({}): leave the node drained with the faults as the reason",
                                     health::to_string(plan.remedy)));
      return steps;
  }
  if (diag_level > 0) steps.emplace_back(fmt::format("DCGM diagnostic -r {} on every GPU (where the node has DCGM)", diag_level));
  steps.emplace_back("verify; resume in Slurm only when it passes, else leave drained with the failing check");
  return steps;
}

// The reason of the node's Slurm drain when it is gpuctl's ("gpuctl ..."); empty when the node
// is not drained, drained by someone else, or Slurm cannot be asked.
std::string gpuctl_drain_reason(const WorkflowContext& context, const Node& node) {
  auto transport = context.factory(node);
  if (!transport) return {};
  const auto info = slurm_show_node(**transport, node.name, node.connection.become);
  if (!info || !*info || !is_drained(**info) || !(*info)->reason.starts_with(k_drain_reason_prefix)) return {};
  return (*info)->reason;
}

class Remediation {
 public:
  Remediation(const WorkflowContext& context, NodeWorkflowReport& report, RemediationPlan plan)
      : m_context(context), m_report(report), m_plan(std::move(plan)), m_node(*context.session.nodes().at(0)) {}

  // Inside the drain: the remedy, then the diagnostic and verify that decide the resume.
  void work() {
    Remedy remedy = m_plan.remedy;
    if (!health::remedy_is_automatic(remedy)) {
      workflow::stop(m_context, m_report, exec::NodeStatus::failed,
                     fmt::format("{}: {}", health::to_string(remedy), util::join(describe(m_plan), "; ")));
      return;
    }
    if (remedy == Remedy::reset_gpu && !reset()) {
      m_report.escalated = true;
      remedy = Remedy::reboot;
    }
    if (remedy == Remedy::reboot && !reboot()) return;
    m_context.session.drop_connections();
    const int level = health::health_policy().remedy_diag_level;
    step("verify", [&] {
      workflow::verify_record(m_context, m_report, DcgmDiagRequest{level, {}});
      return m_report.outcome.status == exec::NodeStatus::ok ? std::string() : m_report.outcome.reason;
    });
    // A node that was reset or rebooted and then proven has changed; a proof alone has not.
    if (m_report.outcome.status == exec::NodeStatus::ok && remedy != Remedy::none && remedy != Remedy::restart_app)
      m_report.outcome.status = exec::NodeStatus::changed;
    m_report.remedy_steps.push_back(fmt::format("verify{}: {}", level > 0 ? fmt::format(" with DCGM -r {}", level) : "",
                                                exec::to_string(m_report.outcome.status)));
  }

 private:
  // One recorded step of the run history: `body` returns its error (empty: done).
  template <typename Body>
  bool step(const std::string& name, const Body& body) {
    const auto started = std::chrono::steady_clock::now();
    m_context.recorder.on_step_start(m_node.name, "remediate: " + name);
    const std::string error = body();
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - started);
    m_context.recorder.on_step_done(m_node.name, "remediate: " + name, error.empty() ? StepStatus::changed : StepStatus::failed,
                                    took);
    return error.empty();
  }

  Result<std::unique_ptr<Transport>> open() { return m_context.factory(m_node); }

  bool reset() {
    return step("reset_gpu", [&]() -> std::string {
      auto transport = open();
      if (!transport) return transport.error().to_string();
      CommandOptions options;
      options.become = m_node.connection.become;
      options.timeout = std::chrono::seconds(std::max(m_node.connection.command_timeout_s, 300));
      auto ran = (*transport)->run(reset_script(m_plan), options);
      if (!ran) return ran.error().to_string();
      for (const auto& line : util::split_lines(ran->out + ran->err))
        if (!util::trim(line).empty()) m_report.remedy_steps.emplace_back(util::trim(line));
      if (ran->ok()) return {};
      const auto why = fmt::format("the reset failed (exit {}): rebooting instead", ran->exit_code);
      m_report.remedy_steps.push_back(why);
      return why;
    });
  }

  bool reboot() {
    std::string failure;
    step("reboot", [&]() -> std::string {
      std::unique_ptr<Transport> current;
      const NodeConnection connection{[&]() -> Result<Transport*> {
                                        if (!current) {
                                          auto opened = open();
                                          if (!opened) return std::unexpected(opened.error());
                                          current = std::move(*opened);
                                        }
                                        return current.get();
                                      },
                                      [&] { current.reset(); }};
      auto transport = connection.open();
      if (!transport) return failure = transport.error().to_string();
      auto before = read_boot_id(**transport);
      if (!before) return failure = "cannot read boot_id before the reboot: " + before.error().to_string();
      CommandOptions options;
      options.become = m_node.connection.become;
      auto sent = (*transport)->run(reboot_command(), options);
      if (!sent || !sent->ok()) return failure = "the reboot command failed";
      const auto& apply = m_context.session.options().apply;
      if (auto back = wait_for_new_boot(connection, *before, apply.reboot_timeout, apply.reboot_poll); !back)
        return failure = back.error().message;
      m_report.remedy_steps.emplace_back("rebooted: the node is back with a new boot_id");
      return {};
    });
    if (!failure.empty()) workflow::stop(m_context, m_report, exec::NodeStatus::unreachable, "reboot: " + failure);
    return failure.empty();
  }

  const WorkflowContext& m_context;
  NodeWorkflowReport& m_report;
  RemediationPlan m_plan;
  const Node& m_node;
};

// The remedy inside the drain, or with --dry-run the steps it would take.
void take_remedy(const WorkflowContext& context, NodeWorkflowReport& report, RemediationPlan plan,
                 const RemediateOptions& options) {
  const Node& node = *context.session.nodes().at(0);
  const bool slurm = context.session.inventory().cluster.slurm.enabled;
  if (options.dry_run) {
    report.remedy_steps = planned_steps(plan, slurm, health::health_policy().remedy_diag_level);
    report.outcome = {node.name, exec::NodeStatus::ok, "dry run: nothing was done", {}};
    return;
  }
  auto transport = context.factory(node);
  if (!transport) {
    workflow::stop(context, report, exec::NodeStatus::unreachable, transport.error().to_string());
    return;
  }
  Remediation remediation(context, report, std::move(plan));
  workflow::run_drained(context, report, transport->get(), "remediate", [&] {
    transport->reset();
    remediation.work();
  });
}

}  // namespace

NodeWorkflowReport remediate(const WorkflowContext& context, const RemediateOptions& options) {
  const Node& node = *context.session.nodes().at(0);
  NodeWorkflowReport report;
  report.node = node.name;
  report.dry_run = options.dry_run;
  // The diagnosis: a verify that looks past any drain (the health program's, an admin's).
  const auto diagnosis = context.session.verify(IgnoredDrain::any);
  context.recorder.record_facts(context.session);
  context.recorder.record_outcomes(diagnosis);
  const auto* facts = context.session.probed_facts(0);
  if (diagnosis.empty() || !facts) {
    workflow::stop(context, report, diagnosis.empty() ? exec::NodeStatus::failed : diagnosis[0].outcome.status,
                   diagnosis.empty() ? "no verify ran" : "diagnosis: " + diagnosis[0].outcome.reason);
    return report;
  }
  const auto& policy = health::health_policy();
  const bool slurm = context.session.inventory().cluster.slurm.enabled;
  if (diagnosis[0].outcome.status == exec::NodeStatus::ok) {
    // A node gpuctl left drained (a remedy that did not hold, the health program) that passes
    // now, e.g. after a person fixed it: proven with DCGM and verify, then resumed.
    const auto drain = slurm ? gpuctl_drain_reason(context, node) : std::string();
    if (drain.empty()) {
      report.outcome = {node.name, exec::NodeStatus::ok, "verify passes: nothing to remediate", {}};
      return report;
    }
    report.remedy = std::string(health::to_string(Remedy::none));
    report.findings.push_back(fmt::format("verify passes; the node is drained by gpuctl ({})", drain));
    take_remedy(context, report, RemediationPlan{}, options);
    return report;
  }
  auto plan = plan_remediation(diagnosis[0].checks, *facts, has_nvswitch(node.gpu), policy);
  report.findings = describe(plan);
  report.remedy = std::string(health::to_string(plan.remedy));
  if (!plan.outside.empty()) {
    workflow::stop(context, report, exec::NodeStatus::failed,
                   fmt::format("fails checks remediation does not handle: {}; fix them with gpuctl apply, then run "
                               "remediate again",
                               util::join(plan.outside, "; ")));
    return report;
  }
  if (!plan.needs_action()) {
    report.outcome = {node.name, exec::NodeStatus::ok,
                      fmt::format("no fault that needs the node out of service ({})", report.remedy), {}};
    return report;
  }
  take_remedy(context, report, std::move(plan), options);
  return report;
}

}  // namespace gpuctl
