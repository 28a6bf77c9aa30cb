// `replace-gpu`: name the swapped card, prove the node sees every GPU, clear the new card's
// ECC counters, converge, verify, record.
#include "workflow_steps.hpp"

#include <gpuctl/facts/collect.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>
#include <map>

namespace gpuctl {
namespace {

// NVIDIA (vendor 10de) devices of PCI class 0302 (3D controller), the class of data-center
// GPUs; "none" when lspci is not installed, so its absence is not a count of zero.
constexpr const char* k_pci_count_command =
    "if command -v lspci >/dev/null 2>&1; then lspci -n | awk '$2 ~ /^0302:?$/ && $3 ~ /^10de:/' | wc -l; "
    "else echo none; fi";

Result<std::optional<int>> count_pci_gpus(Transport& transport) {
  auto result = transport.run(k_pci_count_command);
  if (!result) return std::unexpected(result.error());
  const auto text = util::trim(result->out);
  if (!result->ok())
    return fail(ErrorCode::io, fmt::format("counting GPUs with lspci failed: {}", util::trim(result->err)));
  if (text == "none") return std::optional<int>{};
  try {
    return std::optional<int>{std::stoi(std::string(text))};
  } catch (const std::exception&) {
    return fail(ErrorCode::parse, fmt::format("lspci count is not a number: '{}'", text));
  }
}

// Volatile (-p 0) and aggregate (-p 1) counters: a new card must not inherit alarms.
Result<void> reset_ecc(Transport& transport, int slot) {
  for (const int which : {0, 1}) {
    const auto command = fmt::format("nvidia-smi -i {} -p {}", slot, which);
    CommandOptions options;
    options.become = true;
    auto result = transport.run(command, options);
    if (!result) return std::unexpected(result.error());
    if (!result->ok())
      return fail(ErrorCode::io, fmt::format("`{}` failed (rc={}): {}", command, result->exit_code,
                                             util::trim(result->err.empty() ? result->out : result->err)));
  }
  return {};
}

// nvidia-persistenced puts the cards it finds at start into persistence mode; a card it did
// not see start (swapped while the node ran, as in the sandbox) would stay out of it.
// try-restart: a node without the daemon running is left as it is (apply decides about it).
Result<void> restart_persistenced(Transport& transport) {
  CommandOptions options;
  options.become = true;
  auto result = transport.run(
      "if command -v systemctl >/dev/null 2>&1; then systemctl try-restart nvidia-persistenced.service; fi", options);
  if (!result) return std::unexpected(result.error());
  if (!result->ok())
    return fail(ErrorCode::io, fmt::format("restarting nvidia-persistenced failed (rc={}): {}", result->exit_code,
                                           util::trim(result->err)));
  return {};
}

std::string count_problem(const NodeWorkflowReport& report) {
  if (report.expected_gpus > 0 && report.nvidia_smi_gpus != report.expected_gpus)
    return fmt::format("nvidia-smi shows {} GPU(s), the inventory declares gpu.count {}", report.nvidia_smi_gpus,
                       report.expected_gpus);
  if (report.expected_gpus > 0 && report.pci_gpus && *report.pci_gpus != report.expected_gpus)
    return fmt::format("the PCI bus shows {} NVIDIA 3D controller(s), the inventory declares gpu.count {}",
                       *report.pci_gpus, report.expected_gpus);
  return {};
}

// When a verify or apply already recorded the new card (it ran between the swap and
// replace-gpu), the latest snapshot shows no change; the slot history still does: a slot whose
// current card was first seen after the node's last successful replace-gpu is compared with
// the card it had before.
Result<std::vector<facts::GpuChange>> changes_since_last_replacement(const WorkflowContext& context,
                                                                     const std::string& node,
                                                                     const std::vector<facts::GpuIdentity>& current) {
  auto history = context.store.gpu_slot_history(node);
  if (!history) return std::unexpected(history.error());
  auto runs = context.store.list_runs({.node = node, .limit = 1000});
  if (!runs) return std::unexpected(runs.error());
  std::string handled_until;  // ISO 8601 UTC: compares as text
  for (const auto& run : *runs)
    if (run.command == "replace-gpu" && run.status == state::RunStatus::ok) {
      handled_until = run.finished;
      break;  // newest first
    }
  std::map<int, std::vector<const state::GpuSlotRecord*>> tenures;  // per slot, oldest first
  for (const auto& record : *history) tenures[record.slot].push_back(&record);
  std::vector<facts::GpuIdentity> before;
  for (const auto& [slot, cards] : tenures) {
    const auto* last = cards.back();
    const bool pending = cards.size() >= 2 && last->first_seen > handled_until;
    const auto* card = pending ? cards[cards.size() - 2] : last;
    before.push_back({slot, card->serial, card->uuid, card->pci_bus_id});
  }
  return facts::compare_gpus(before, current);
}

// The node is out of service: check the counts, clear the new cards' ECC counters, converge,
// verify, record.
void replace_cards(const WorkflowContext& context, std::unique_ptr<Transport> transport, NodeWorkflowReport& report) {
  auto pci = count_pci_gpus(*transport);
  if (!pci) {
    workflow::stop(context, report, exec::NodeStatus::failed, pci.error().to_string());
    return;
  }
  report.pci_gpus = *pci;
  if (const auto problem = count_problem(report); !problem.empty()) {
    workflow::stop(context, report, exec::NodeStatus::failed, problem + "; reseat or replace the card first");
    return;
  }
  for (const auto& change : report.changes) {
    if (change.kind == facts::GpuChangeKind::removed) continue;
    if (auto reset = reset_ecc(*transport, change.slot); !reset) {
      workflow::stop(context, report, exec::NodeStatus::failed,
                     fmt::format("resetting ECC counters of GPU {}: {}", change.slot, reset.error().to_string()));
      return;
    }
    report.ecc_reset_slots.push_back(change.slot);
  }
  if (auto restarted = restart_persistenced(*transport); !restarted) {
    workflow::stop(context, report, exec::NodeStatus::failed, restarted.error().to_string());
    return;
  }
  transport.reset();  // the session opens its own connection
  // The new cards get DCGM's diagnostic (level 2 unless gpu.dcgm_diag.replace_gpu_level says
  // otherwise) inside verify, so a failing card keeps the node out of service. Only they: the
  // others were proven before, and a level-2 run loads every GPU it covers.
  const Node& node = *context.session.nodes().at(0);
  DcgmDiagRequest diag{node.gpu.replace_gpu_diag_level, {}};
  if (diag.level > 0)
    for (const auto& change : report.changes)
      if (change.kind != facts::GpuChangeKind::removed && !change.new_uuid.empty()) diag.gpu_uuids.push_back(change.new_uuid);
  workflow::converge_verify_record(context, report, diag);
}

}  // namespace

Result<NodeWorkflowReport> replace_gpu(const WorkflowContext& context) {
  const Node& node = *context.session.nodes().at(0);
  NodeWorkflowReport report;
  report.node = node.name;
  report.expected_gpus = node.gpu.count;

  auto snapshot = context.store.latest_facts(node.name);
  if (!snapshot) {
    if (snapshot.error().code != ErrorCode::not_found) return std::unexpected(snapshot.error());
    return fail(ErrorCode::not_found,
                fmt::format("no facts of {} are recorded, so there is nothing to compare its GPUs with", node.name),
                Location{"", 0, 0, node.name, ""},
                "run `gpuctl verify INVENTORY --limit " + node.name +
                    "` while the node has its old cards (it records their serials); after a swap already "
                    "verified, `gpuctl history --node " + node.name + "` shows the serials per slot");
  }
  report.compared_run = snapshot->run;
  report.compared_taken = snapshot->taken;
  auto recorded = facts::gpu_identities_from_json(snapshot->facts_json, fmt::format("run {}", snapshot->run));
  if (!recorded) return std::unexpected(recorded.error());

  auto transport = context.factory(node);
  if (!transport) {
    workflow::stop(context, report, exec::NodeStatus::unreachable, transport.error().to_string());
    return report;
  }
  auto now = facts::collect_facts(**transport);
  if (!now) {
    workflow::stop(context, report, exec::NodeStatus::failed, "gathering facts: " + now.error().to_string());
    return report;
  }
  now->node = node.name;
  if (!now->gpus.present()) {
    workflow::stop(context, report, exec::NodeStatus::failed, "no GPU list: " + now->gpus.absent_reason);
    return report;
  }
  const auto current = facts::gpu_identities(*now);
  report.changes = facts::compare_gpus(*recorded, current);
  report.nvidia_smi_gpus = static_cast<int>(current.size());
  if (report.changes.empty()) {
    auto earlier = changes_since_last_replacement(context, node.name, current);
    if (!earlier) return std::unexpected(earlier.error());
    report.changes = std::move(*earlier);
  }
  if (report.changes.empty()) {
    workflow::stop(context, report, exec::NodeStatus::failed,
                   fmt::format("every GPU has the serial and UUID recorded at {} (run {}) and none changed since the "
                               "last replace-gpu: no replaced card found",
                               report.compared_taken, report.compared_run));
    return report;
  }
  // Out of service before anything touches the cards; back once the node verified.
  Transport* connection = transport->get();
  workflow::run_drained(context, report, connection, "replace-gpu",
                         [&] { replace_cards(context, std::move(*transport), report); });
  return report;
}

}  // namespace gpuctl
