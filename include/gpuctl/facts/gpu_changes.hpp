#pragma once
// Which GPU cards of a node changed between two fact snapshots (a board replacement), and
// reading the GPU identities back out of a recorded facts snapshot. Pure; no I/O.

#include <gpuctl/core/error.hpp>
#include <gpuctl/facts/facts.hpp>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl::facts {

// One card as nvidia-smi names it: slot (its index), serial, UUID and PCI bus id.
struct GpuIdentity {
  int slot = 0;
  std::string serial;
  std::string uuid;
  std::string pci_bus_id;
};

enum class GpuChangeKind { replaced, added, removed };
std::string_view to_string(GpuChangeKind kind);

// A slot whose card differs: `replaced` (another serial or UUID in the slot), `added` (a slot
// not recorded before) or `removed` (a recorded slot nvidia-smi no longer shows). The old_*
// fields are empty for `added`, the new_* ones for `removed`.
struct GpuChange {
  int slot = 0;
  std::string pci_bus_id;   // the current card's; the recorded one's when removed
  GpuChangeKind kind = GpuChangeKind::replaced;
  std::string old_serial;
  std::string new_serial;
  std::string old_uuid;
  std::string new_uuid;

  bool operator==(const GpuChange&) const = default;
};

// Compares slot by slot, in slot order. A card is the same when its serial and UUID are the
// same; an empty serial (not reported) is compared by UUID alone.
std::vector<GpuChange> compare_gpus(std::span<const GpuIdentity> recorded, std::span<const GpuIdentity> current);

// The GPUs of gathered facts; empty when the GPUs fact is absent.
std::vector<GpuIdentity> gpu_identities(const NodeFacts& facts);

// The GPUs of a facts snapshot as facts_to_json wrote it. Errors (parse): not JSON, or no
// "gpus" list (an {"absent": ...} GPUs fact is an error too: nothing to compare with).
Result<std::vector<GpuIdentity>> gpu_identities_from_json(std::string_view facts_json, const std::string& where);

}  // namespace gpuctl::facts
