// Comparing a node's GPU cards between snapshots (nlohmann stays inside this file).
#include <gpuctl/facts/gpu_changes.hpp>

#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

namespace gpuctl::facts {
namespace {

bool same_card(const GpuIdentity& a, const GpuIdentity& b) {
  if (a.uuid != b.uuid) return false;
  // nvidia-smi reports no serial for some boards; the UUID alone then decides.
  return a.serial.empty() || b.serial.empty() || a.serial == b.serial;
}

std::string string_field(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string{};
}

Location at(const std::string& where) {
  Location location;
  location.file = where;
  return location;
}

}  // namespace

std::string_view to_string(GpuChangeKind kind) {
  switch (kind) {
    case GpuChangeKind::replaced: return "replaced";
    case GpuChangeKind::added: return "added";
    case GpuChangeKind::removed: return "removed";
  }
  return "replaced";
}

std::vector<GpuChange> compare_gpus(std::span<const GpuIdentity> recorded, std::span<const GpuIdentity> current) {
  std::map<int, const GpuIdentity*> before;
  std::map<int, const GpuIdentity*> now;
  for (const auto& gpu : recorded) before[gpu.slot] = &gpu;
  for (const auto& gpu : current) now[gpu.slot] = &gpu;
  std::map<int, GpuChange> changes;
  for (const auto& [slot, card] : now) {
    const auto old = before.find(slot);
    if (old == before.end()) {
      changes[slot] = {slot, card->pci_bus_id, GpuChangeKind::added, {}, card->serial, {}, card->uuid};
    } else if (!same_card(*old->second, *card)) {
      changes[slot] = {slot,          card->pci_bus_id, GpuChangeKind::replaced, old->second->serial,
                       card->serial, old->second->uuid, card->uuid};
    }
  }
  for (const auto& [slot, card] : before)
    if (!now.contains(slot))
      changes[slot] = {slot, card->pci_bus_id, GpuChangeKind::removed, card->serial, {}, card->uuid, {}};
  std::vector<GpuChange> out;
  for (auto& [slot, change] : changes) out.push_back(std::move(change));
  return out;
}

std::vector<GpuIdentity> gpu_identities(const NodeFacts& facts) {
  std::vector<GpuIdentity> out;
  if (facts.gpus.value)
    for (const auto& gpu : *facts.gpus.value) out.push_back({gpu.index, gpu.serial, gpu.uuid, gpu.pci_bus_id});
  return out;
}

Result<std::vector<GpuIdentity>> gpu_identities_from_json(std::string_view facts_json, const std::string& where) {
  const auto doc = nlohmann::json::parse(facts_json, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object())
    return fail(ErrorCode::parse, "recorded facts are not a JSON object", at(where));
  const auto gpus = doc.find("gpus");
  if (gpus == doc.end()) return fail(ErrorCode::parse, "recorded facts have no \"gpus\"", at(where));
  if (!gpus->is_array()) {
    const auto reason = gpus->is_object() ? string_field(*gpus, "absent") : std::string{};
    return fail(ErrorCode::parse,
                fmt::format("the recorded facts have no GPU list{}", reason.empty() ? "" : " (" + reason + ")"),
                at(where));
  }
  std::vector<GpuIdentity> out;
  for (const auto& gpu : *gpus) {
    if (!gpu.is_object() || !gpu.contains("index") || !gpu["index"].is_number_integer())
      return fail(ErrorCode::parse, "a recorded GPU has no integer \"index\"", at(where));
    out.push_back({gpu["index"].get<int>(), string_field(gpu, "serial"), string_field(gpu, "uuid"),
                   string_field(gpu, "pci_bus_id")});
  }
  return out;
}

}  // namespace gpuctl::facts
