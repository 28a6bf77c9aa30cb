// The PCIe AER check over the `pcie_aer` fact: the counters the kernel's AER driver keeps per
// PCI function since boot (drivers/pci/pcie/aer.c), for the GPUs nvidia-smi lists.
#include "pcie_aer_check.hpp"

#include "check_result.hpp"

#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
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

}  // namespace

CheckResult check_pcie_aer(const CheckInput& in) {
  const std::string expected = "no fatal or non-fatal uncorrectable PCIe error on any GPU";
  const auto& gpus = in.state.facts.gpus;
  if (!gpus.present()) return cannot_run(absent_reason(gpus, "GPUs"));
  if (gpus.value->empty()) return cannot_run("nvidia-smi lists no GPUs");
  const auto& aer = in.state.facts.pcie_aer;
  if (!aer.present()) return cannot_run(absent_reason(aer, "PCIe AER counters"));

  std::vector<std::string> uncorrectable;  // the finding
  std::vector<std::string> correctable;    // listed, never failed (below)
  std::vector<std::string> unknown;        // never a pass
  std::vector<std::string> without;        // no AER statistics in sysfs: nothing to judge
  std::size_t judged = 0;
  for (const auto& gpu : *gpus.value) {
    const auto label = gpu_label(gpu);
    const auto bus_id = sysfs_pci_bus_id(gpu.pci_bus_id);
    const auto entry = std::ranges::find(*aer.value, bus_id, &GpuPcieAer::bus_id);
    if (bus_id.empty() || entry == aer.value->end()) {
      unknown.push_back(fmt::format("{}: not among the GPUs the NVIDIA driver lists in /proc/driver/nvidia/gpus", label));
      continue;
    }
    if (!entry->device_in_sysfs) {
      without.push_back(fmt::format("{}: no /sys/bus/pci/devices/{}", label, bus_id));
      continue;
    }
    if (!entry->correctable && !entry->fatal && !entry->nonfatal) {
      without.push_back(fmt::format("{}: no aer_dev_* files", label));
      continue;
    }
    // The kernel creates the three files together: one without the others is not its doing.
    if (!entry->correctable || !entry->fatal || !entry->nonfatal) {
      unknown.push_back(fmt::format("{}: only some of aer_dev_correctable, aer_dev_fatal, aer_dev_nonfatal exist", label));
      continue;
    }
    ++judged;
    std::vector<std::string> found;
    if (auto text = counted(*entry->fatal, "TOTAL_ERR_FATAL"); !text.empty()) found.push_back("fatal " + text);
    if (auto text = counted(*entry->nonfatal, "TOTAL_ERR_NONFATAL"); !text.empty()) found.push_back("non-fatal " + text);
    if (!found.empty()) uncorrectable.push_back(fmt::format("{}: {}", label, util::join(found, "; ")));
    // Correctable errors (a bad TLP or DLLP, a receiver error, a replay) are corrected by the link
    // itself, by retrying the transfer: no data is lost, and a few are common on healthy links.
    // They are listed for the operator, not failed; a rate that keeps climbing is for monitoring.
    if (auto text = counted(*entry->correctable, "TOTAL_ERR_COR"); !text.empty())
      correctable.push_back(fmt::format("{}: {}", label, text));
  }
  const auto correctable_text = correctable.empty() ? std::string("none") : util::join(correctable, "; ");
  if (!uncorrectable.empty()) {
    std::string detail =
        "uncorrectable PCIe errors on the GPU's link: drain the node, reseat the GPU (and its riser or cables) and "
        "reboot, then verify again (the counters count since boot); a GPU that reports them again is an RMA case "
        "(NVIDIA's RMA process asks that system-level causes such as seating be ruled out first)";
    if (!unknown.empty()) detail += "; also unknown: " + util::join(unknown, "; ");
    return failed(fmt::format("{}; correctable: {}", util::join(uncorrectable, "; "), correctable_text), expected,
                  std::move(detail));
  }
  if (!unknown.empty())
    return {{}, CheckStatus::error, util::join(unknown, "; "), expected,
            "the AER counters of a GPU were not read; an unknown count is never a pass"};
  if (judged == 0)
    return skipped(fmt::format("no PCIe AER statistics in sysfs for the GPUs ({}): a kernel before 4.19 or without "
                               "CONFIG_PCIEAER, or GPUs without the AER capability (common in virtual machines)",
                               util::join(without, "; ")));
  auto result = pass(fmt::format("{} GPU{} without uncorrectable errors; correctable: {}", judged,
                                 judged == 1 ? "" : "s", correctable_text),
                     expected);
  if (!without.empty()) result.detail = "not judged, no AER statistics in sysfs: " + util::join(without, "; ");
  return result;
}

}  // namespace gpuctl::verify_detail
