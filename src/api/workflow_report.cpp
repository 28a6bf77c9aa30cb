// NodeWorkflowReport as JSON and text (nlohmann stays inside this file).
#include <gpuctl/api/node_workflows.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpuctl {
namespace {

std::vector<const CheckResult*> failed_checks(const NodeWorkflowReport& report) {
  std::vector<const CheckResult*> out;
  for (const auto& verified : report.verify)
    for (const auto& check : verified.checks)
      if (check.status == CheckStatus::fail || check.status == CheckStatus::error) out.push_back(&check);
  return out;
}

std::string or_dash(const std::string& text) { return text.empty() ? "-" : text; }

std::string render_slurm(const NodeWorkflowReport& report) {
  if (!report.slurm_decision) return {};
  switch (*report.slurm_decision) {
    case DrainDecision::not_in_slurm: return "  Slurm: the node is not in Slurm; no drain\n";
    case DrainDecision::drained_by_other:
      return fmt::format("  Slurm: already drained by someone else (reason: {}); {}\n", report.slurm_drain_reason,
                         report.slurm_resumed ? "verified, resumed (--resume)"
                                              : "left drained (resume it yourself, or run again with --resume)");
    case DrainDecision::drain: break;
  }
  std::string out = fmt::format("  Slurm: drained (reason \"{}\"), its jobs ended\n", report.slurm_drain_reason);
  if (report.slurm_resumed) out += "  Slurm: verified, resumed\n";
  else if (!report.slurm_left_drained.empty())
    out += fmt::format("  Slurm: left drained (reason \"{}\")\n", report.slurm_left_drained);
  return out;
}

}  // namespace

std::string workflow_report_to_json(const NodeWorkflowReport& report) {
  using nlohmann::ordered_json;
  ordered_json doc;
  doc["node"] = report.node;
  doc["status"] = exec::to_string(report.outcome.status);
  doc["reason"] = report.outcome.reason;
  doc["compared_run"] = report.compared_run;
  ordered_json changes = ordered_json::array();
  for (const auto& c : report.changes)
    changes.push_back({{"slot", c.slot}, {"pci_bus_id", c.pci_bus_id}, {"kind", facts::to_string(c.kind)},
                       {"old_serial", c.old_serial}, {"new_serial", c.new_serial}, {"old_uuid", c.old_uuid},
                       {"new_uuid", c.new_uuid}});
  doc["changes"] = changes;
  doc["gpus"] = {{"expected", report.expected_gpus},
                 {"nvidia_smi", report.nvidia_smi_gpus},
                 {"pci", report.pci_gpus ? ordered_json(*report.pci_gpus) : ordered_json(nullptr)}};
  doc["ecc_reset_slots"] = report.ecc_reset_slots;
  doc["host_key"] = {{"state", report.host_key_state},
                     {"replaced", report.host_key_replaced},
                     {"fingerprint", report.host_key_fingerprint}};
  if (!report.remedy.empty())
    doc["remediation"] = {{"findings", report.findings},
                          {"remedy", report.remedy},
                          {"steps", report.remedy_steps},
                          {"dry_run", report.dry_run},
                          {"escalated", report.escalated}};
  ordered_json slurm = nullptr;
  if (report.slurm_decision)
    slurm = {{"decision", to_string(*report.slurm_decision)},
             {"drain_reason", report.slurm_drain_reason},
             {"resumed", report.slurm_resumed},
             {"left_drained", report.slurm_left_drained}};
  doc["slurm"] = slurm;
  ordered_json apply = nullptr;
  for (const auto& a : report.apply)
    apply = {{"status", exec::to_string(a.outcome.status)}, {"reason", a.outcome.reason}};
  doc["apply"] = apply;
  ordered_json verify = nullptr;
  for (const auto& v : report.verify) {
    ordered_json failed = ordered_json::array();
    for (const auto& check : v.checks)
      if (check.status == CheckStatus::fail || check.status == CheckStatus::error)
        failed.push_back({{"name", check.name}, {"observed", check.observed}, {"expected", check.expected},
                          {"detail", check.detail}});
    verify = {{"status", exec::to_string(v.outcome.status)}, {"failed_checks", failed}};
  }
  doc["verify"] = verify;
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string render_workflow_report(const NodeWorkflowReport& report) {
  std::string out;
  if (report.compared_run)
    out += fmt::format("{}: GPUs compared with the facts recorded at {} (run {})\n", report.node,
                       report.compared_taken, report.compared_run);
  for (const auto& c : report.changes)
    out += fmt::format("  slot {} ({}) {}: serial {} -> {}, uuid {} -> {}\n", c.slot, or_dash(c.pci_bus_id),
                       facts::to_string(c.kind), or_dash(c.old_serial), or_dash(c.new_serial), or_dash(c.old_uuid),
                       or_dash(c.new_uuid));
  if (report.nvidia_smi_gpus || report.expected_gpus)
    out += fmt::format("  GPUs visible: nvidia-smi {}, PCI bus {}, expected {}\n", report.nvidia_smi_gpus,
                       report.pci_gpus ? std::to_string(*report.pci_gpus) : "(no lspci)", report.expected_gpus);
  for (const int slot : report.ecc_reset_slots) out += fmt::format("  ECC counters of GPU {} reset\n", slot);
  if (!report.host_key_state.empty())
    out += fmt::format("{}: host key {}{} {}\n", report.node, report.host_key_state,
                       report.host_key_replaced ? ", replaced in known_hosts" : "", report.host_key_fingerprint);
  if (!report.remedy.empty()) {
    for (const auto& finding : report.findings) out += fmt::format("  fault: {}\n", finding);
    if (report.findings.empty()) out += "  fault: none that the health checks found\n";
    out += fmt::format("  remedy: {}{}\n", report.remedy, report.escalated ? " (the reset failed: rebooted instead)" : "");
    for (const auto& step : report.remedy_steps)
      out += fmt::format("  {} {}\n", report.dry_run ? "would:" : "done:", step);
  }
  out += render_slurm(report);
  for (const auto& a : report.apply)
    out += fmt::format("  apply: {}{}\n", exec::to_string(a.outcome.status),
                       a.outcome.reason.empty() ? "" : " (" + a.outcome.reason + ")");
  for (const auto& v : report.verify) out += fmt::format("  verify: {}\n", exec::to_string(v.outcome.status));
  for (const auto* check : failed_checks(report))
    out += fmt::format("    {} {}: observed {}, expected {} {}\n", check->name, to_string(check->status),
                       or_dash(check->observed), or_dash(check->expected), check->detail);
  out += fmt::format("{}: {}{}\n", report.node, exec::to_string(report.outcome.status),
                     report.outcome.reason.empty() ? "" : " - " + report.outcome.reason);
  return out;
}

}  // namespace gpuctl
