// The PCIe AER check over the `pcie_aer` fact: the counters the kernel's AER driver keeps per
// PCI function since boot (drivers/pci/pcie/aer.c), for the GPUs nvidia-smi lists and the ports
// at the other end of their links.
#include "check_result.hpp"

#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

namespace gpuctl::verify_detail {
namespace {

std::string gpu_label(const GpuInfo& gpu) {
  return gpu.serial.empty() ? fmt::format("GPU {} {}", gpu.index, gpu.pci_bus_id)
                            : fmt::format("GPU {} ({}) {}", gpu.index, gpu.serial, gpu.pci_bus_id);
}

// "CmpltTO 2, SDES 1 (TOTAL_ERR_FATAL 1)": each error counted, then the number of messages. One
// message can carry several errors and a masked error is counted in no named line, so a total
// alone ("TOTAL_ERR_FATAL 3") is a finding too. Empty when the file counts nothing.
std::string counted(const AerCounts& counts, std::string_view total_name) {
  std::vector<std::string> errors;
  for (const auto& counter : counts.errors)
    if (counter.count > 0) errors.push_back(fmt::format("{} {}", counter.name, counter.count));
  if (errors.empty() && counts.total == 0) return {};
  if (errors.empty()) return fmt::format("{} {}", total_name, counts.total);
  return fmt::format("{} ({} {})", util::join(errors, ", "), total_name, counts.total);
}

// What one PCI function's three files say, judged into the check's lists under `label`.
struct Findings {
  std::vector<std::string> uncorrectable;  // the finding
  std::vector<std::string> correctable;    // listed, never failed (below)
  std::vector<std::string> unknown;        // never a pass
  std::vector<std::string> without;        // no AER statistics in sysfs: nothing to judge
  std::size_t judged_gpus = 0;
};

// Returns whether the function's counters were judged.
bool judge(Findings& findings, const std::string& label, const std::optional<AerCounts>& correctable,
           const std::optional<AerCounts>& fatal, const std::optional<AerCounts>& nonfatal) {
  if (!correctable && !fatal && !nonfatal) {
    findings.without.push_back(fmt::format("{}: no aer_dev_* files", label));
    return false;
  }
  // The kernel creates the three files together: one without the others is not its doing.
  if (!correctable || !fatal || !nonfatal) {
    findings.unknown.push_back(
        fmt::format("{}: only some of aer_dev_correctable, aer_dev_fatal, aer_dev_nonfatal exist", label));
    return false;
  }
  std::vector<std::string> found;
  if (auto text = counted(*fatal, "TOTAL_ERR_FATAL"); !text.empty()) found.push_back("fatal " + text);
  if (auto text = counted(*nonfatal, "TOTAL_ERR_NONFATAL"); !text.empty()) found.push_back("non-fatal " + text);
  if (!found.empty()) findings.uncorrectable.push_back(fmt::format("{}: {}", label, util::join(found, "; ")));
  // Correctable errors (a bad TLP or DLLP, a receiver error, a replay) are corrected by the link
  // itself, by retrying the transfer: no data is lost, and a few are common on healthy links.
  // They are listed for the operator, not failed; a rate that keeps climbing is for monitoring.
  if (auto text = counted(*correctable, "TOTAL_ERR_COR"); !text.empty())
    findings.correctable.push_back(fmt::format("{}: {}", label, text));
  return true;
}

}  // namespace

CheckResult check_pcie_aer(const CheckInput& in) {
  const std::string expected = "no fatal or non-fatal uncorrectable PCIe error on any GPU's link";
  const auto& gpus = in.state.facts.gpus;
  if (!gpus.present()) return cannot_run(absent_reason(gpus, "GPUs"));
  if (gpus.value->empty()) return cannot_run("nvidia-smi lists no GPUs");
  const auto& aer = in.state.facts.pcie_aer;
  if (!aer.present()) return cannot_run(absent_reason(aer, "PCIe AER counters"));

  Findings findings;
  std::map<std::string, bool> ports;  // judged or not, by bus id: a port above several GPUs is said once
  for (const auto& gpu : *gpus.value) {
    const auto label = gpu_label(gpu);
    const auto bus_id = sysfs_pci_bus_id(gpu.pci_bus_id);
    const auto entry = std::ranges::find(*aer.value, bus_id, &GpuPcieAer::bus_id);
    if (bus_id.empty() || entry == aer.value->end()) {
      findings.unknown.push_back(
          fmt::format("{}: not among the GPUs the NVIDIA driver lists in /proc/driver/nvidia/gpus", label));
      continue;
    }
    if (!entry->device_in_sysfs) {
      findings.without.push_back(fmt::format("{}: no /sys/bus/pci/devices/{}", label, bus_id));
      continue;
    }
    // A GPU counts as judged by its own counters only: the port's do not hold the errors the GPU
    // itself signals.
    findings.judged_gpus += judge(findings, label, entry->correctable, entry->fatal, entry->nonfatal) ? 1 : 0;
    // The port at the other end of the link: its errors are this GPU's link's too.
    if (const auto& port = entry->upstream_port; port && !ports.contains(port->bus_id))
      ports[port->bus_id] = judge(findings, fmt::format("{}, port above it {}", label, port->bus_id), port->correctable,
                                  port->fatal, port->nonfatal);
  }
  const auto correctable_text =
      findings.correctable.empty() ? std::string("none") : util::join(findings.correctable, "; ");
  if (!findings.uncorrectable.empty()) {
    std::string detail =
        "uncorrectable PCIe errors on the GPU's link (counted by the GPU, or by the port at the other end of its "
        "link): drain the node, reseat the GPU (and its riser or cables) and reboot, then verify again (the "
        "counters count since boot); a GPU that reports them again is an RMA case (NVIDIA's RMA process asks that "
        "system-level causes such as seating be ruled out first)";
    if (!findings.unknown.empty()) detail += "; also unknown: " + util::join(findings.unknown, "; ");
    return failed(fmt::format("{}; correctable: {}", util::join(findings.uncorrectable, "; "), correctable_text),
                  expected, std::move(detail));
  }
  if (!findings.unknown.empty())
    return {{}, CheckStatus::error, util::join(findings.unknown, "; "), expected,
            "the AER counters of a GPU were not read; an unknown count is never a pass"};
  const auto ports_judged =
      static_cast<std::size_t>(std::ranges::count(ports, true, &std::map<std::string, bool>::value_type::second));
  if (findings.judged_gpus == 0 && ports_judged == 0)
    return skipped(fmt::format("no PCIe AER statistics in sysfs for the GPUs ({}): a kernel before 4.19 or without "
                               "CONFIG_PCIEAER, or GPUs without the AER capability (common in virtual machines)",
                               util::join(findings.without, "; ")));
  std::vector<std::string> judged;  // "8 GPUs", "8 ports above them"
  if (findings.judged_gpus > 0)
    judged.push_back(fmt::format("{} GPU{}", findings.judged_gpus, findings.judged_gpus == 1 ? "" : "s"));
  if (ports_judged > 0)
    judged.push_back(fmt::format("{} port{} above {}", ports_judged, ports_judged == 1 ? "" : "s",
                                 gpus.value->size() == 1 ? "it" : "them"));
  auto result = pass(fmt::format("{} without uncorrectable errors; correctable: {}", util::join(judged, " and "),
                                 correctable_text),
                     expected);
  if (!findings.without.empty()) result.detail = "not judged, no AER statistics in sysfs: " + util::join(findings.without, "; ");
  return result;
}

namespace {

const CheckRegistration k_pcie_aer{{
    .name = "pcie_aer",
    .description = "no uncorrectable PCIe AER error since boot on a GPU or the port above it (sysfs aer_dev_*)",
    .section = CheckSection::gpu,
    .facts = {"pcie_aer"},
    .judge = check_pcie_aer,
}};

}  // namespace
}  // namespace gpuctl::verify_detail
