// From a failed verify to one remedy (verify/remediation.hpp).
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/verify/remediation.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <set>

namespace gpuctl {
namespace {

using health::Remedy;

bool failed(const CheckResult& check) { return check.status == CheckStatus::fail || check.status == CheckStatus::error; }

// "0000:b3:00" (the Xid line's) or "00000000:B3:00.0" (nvidia-smi's) -> "0000:b3:00.0".
std::string reset_address(std::string_view pci) {
  std::string out = facts::pci_address_form(pci);
  if (out.find('.') == std::string::npos) out += ".0";
  return out;
}

// The Xid line's form of an nvidia-smi bus id: "00000000:B3:00.0" -> "0000:b3:00".
std::string xid_address(std::string_view pci) {
  auto out = reset_address(pci);
  return out.substr(0, out.rfind('.'));
}

class Planner {
 public:
  Planner(const NodeFacts& facts, const health::HealthPolicy& policy) : m_facts(facts), m_policy(policy) {}

  void add(const CheckResult& check) {
    const auto& name = check.name;
    const std::size_t before = m_plan.findings.size();
    if (name == "xid_events") xids();
    else if (name == "row_remap") gpus_where(name, [&](const GpuInfo& gpu) -> std::optional<std::pair<std::string, Remedy>> {
      if (gpu.remapped_rows_failure.value_or(false))
        return std::pair{std::string("row remapping failed"), m_policy.check_remedy("row_remap_failure")};
      if (gpu.remapped_rows_pending.value_or(false))
        return std::pair{std::string("row remap pending"), m_policy.check_remedy("row_remap_pending")};
      return std::nullopt;
    });
    else if (name == "ecc_errors") gpus_where(name, [&](const GpuInfo& gpu) -> std::optional<std::pair<std::string, Remedy>> {
      if (gpu.ecc_volatile_uncorrected.value_or(0) > 0)
        return std::pair{fmt::format("{} uncorrected volatile ECC error(s)", *gpu.ecc_volatile_uncorrected),
                         m_policy.check_remedy("ecc_uncorrected_volatile")};
      return std::nullopt;
    });
    else if (name == "gpu_count") node_finding(check, m_facts.gpus.present() ? "gpu_missing" : "gpu_unreadable");
    else if (name == "fabric_state") node_finding(check, "fabric_not_completed");
    else if (name == "dcgm_diag") node_finding(check, "dcgm_diag");
    else if (k_other_health.contains(name)) node_finding(check, "other");
    // Slurm's view of the node (drained, not responding after a reboot): the drain sequence
    // handles it, and the verify after the remedy asks again before the node is resumed.
    else if (name == "slurmd_registered") return;
    else {
      m_plan.outside.push_back(check.detail.empty() ? name : fmt::format("{} ({})", name, check.detail));
      return;
    }
    // A health check that failed on something the facts do not show (it could not run, or
    // failed on a field the planner does not read) is not a pass: a person looks. Only Xids the
    // policy reads as needing nothing (none, restart_app, or dealt with by a reset) add none.
    const bool read_by_policy = name == "xid_events" && m_facts.xid_events.present();
    if (m_plan.findings.size() == before && !read_by_policy) node_finding(check, "other");
  }

  RemediationPlan finish(bool nvswitch_board) {
    std::set<std::string> gpus;
    for (const auto& finding : m_plan.findings) {
      m_plan.remedy = std::max(m_plan.remedy, finding.remedy);
      if (finding.remedy == Remedy::reset_gpu) {
        if (finding.gpu.empty()) m_plan.whole_board = true;
        else gpus.insert(reset_address(finding.gpu));
      }
    }
    // An NVSwitch board's GPUs are reset together, with the fabric manager stopped (NVIDIA's
    // fabric manager guide: a single GPU reset is not supported there on every generation).
    if (nvswitch_board) m_plan.whole_board = true;
    if (m_plan.remedy == Remedy::reset_gpu && !m_plan.whole_board) m_plan.reset_gpus.assign(gpus.begin(), gpus.end());
    if (m_plan.remedy != Remedy::reset_gpu) m_plan.whole_board = false;
    return std::move(m_plan);
  }

 private:
  // Health checks without a rule of their own: the policy's `other`.
  inline static const std::set<std::string, std::less<>> k_other_health{
      "clock_slowdown", "gpu_temperature", "pcie_aer", "pcie_link", "nvlink_topology", "nvidia_peermem", "ib_ports",
      "nccl_allreduce", "slurm_gpu_job", "fabricmanager_active"};

  void xids() {
    if (!m_facts.xid_events.present()) return;
    std::set<std::pair<int, std::string>> seen;
    for (const auto& event : *m_facts.xid_events.value) {
      if (event.cleared_by_reset_at || !seen.insert({event.code * (event.nvswitch ? -1 : 1), event.pci}).second) continue;
      if (event.nvswitch) {
        const bool fatal = event.fatal.value_or(true);
        const auto remedy = fatal ? m_policy.sxid_fatal : m_policy.sxid_non_fatal;
        if (health::remedy_needs_drain(remedy))
          m_plan.findings.push_back({"xid_events", fmt::format("{} SXid {} on NVSwitch {}", fatal ? "fatal" : "non-fatal",
                                                               event.code, event.pci),
                                     remedy, {}});
        continue;
      }
      const auto remedy = m_policy.xid_remedy(event.code, event.message);
      if (!health::remedy_needs_drain(remedy)) continue;
      const auto* rule = m_policy.find_xid(event.code);
      m_plan.findings.push_back({"xid_events",
                                 fmt::format("Xid {} on {} ({})", event.code, event.pci,
                                             rule ? rule->meaning : std::string("not in the health policy")),
                                 remedy, event.pci});
    }
  }

  template <typename Judge>
  void gpus_where(const std::string& check, const Judge& judge) {
    if (!m_facts.gpus.present()) return;
    for (const auto& gpu : *m_facts.gpus.value)
      if (auto found = judge(gpu))
        m_plan.findings.push_back({check, fmt::format("{} on GPU {}", found->first, xid_address(gpu.pci_bus_id)),
                                   found->second, xid_address(gpu.pci_bus_id)});
  }

  void node_finding(const CheckResult& check, std::string_view key) {
    const auto what = check.detail.empty() ? check.observed : check.detail;
    m_plan.findings.push_back({check.name, fmt::format("{} failed: {}", check.name, what), m_policy.check_remedy(key), {}});
  }

  const NodeFacts& m_facts;
  const health::HealthPolicy& m_policy;
  RemediationPlan m_plan;
};

}  // namespace

RemediationPlan plan_remediation(const std::vector<CheckResult>& checks, const NodeFacts& facts, bool nvswitch_board,
                                 const health::HealthPolicy& policy) {
  Planner planner(facts, policy);
  for (const auto& check : checks)
    if (failed(check)) planner.add(check);
  return planner.finish(nvswitch_board);
}

std::vector<std::string> describe(const RemediationPlan& plan) {
  std::vector<std::string> lines;
  for (const auto& finding : plan.findings)
    lines.push_back(fmt::format("{} -> {}", finding.fault, health::to_string(finding.remedy)));
  return lines;
}

}  // namespace gpuctl
