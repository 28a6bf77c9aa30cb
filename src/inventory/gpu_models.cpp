// The GPU models gpuctl knows: each one's architecture (the partition lint) and whether eight
// of them form an NVSwitch board (has_nvswitch). One table, so a model added for one is added
// for both.
#include "resolve.hpp"

#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/util/strings.hpp>

#include <array>

namespace gpuctl {
namespace {

struct GpuModel {
  std::string_view word;          // the model word, lower case: "h20"
  std::string_view architecture;  // "Hopper"
  // NVIDIA builds 8-GPU HGX/DGX boards of it, switched by NVSwitch (the fabric manager's user
  // guide, "NVSwitch-Based Systems": HGX A100/A800, H100/H800, H200, H20, B100, B200, B300).
  // GB200/GB300 are not: their NVLink switches sit in separate switch trays, whose fabric
  // manager runs there, not on the 4-GPU compute tray.
  bool hgx8_nvswitch;
};

constexpr std::array k_models{
    GpuModel{"v100", "Volta", false},     GpuModel{"a100", "Ampere", true},     GpuModel{"a800", "Ampere", true},
    GpuModel{"a30", "Ampere", false},     GpuModel{"a10", "Ampere", false},     GpuModel{"a40", "Ampere", false},
    GpuModel{"h100", "Hopper", true},     GpuModel{"h800", "Hopper", true},     GpuModel{"h200", "Hopper", true},
    GpuModel{"h20", "Hopper", true},      GpuModel{"gh200", "Hopper", false},   GpuModel{"b100", "Blackwell", true},
    GpuModel{"b200", "Blackwell", true},  GpuModel{"b300", "Blackwell", true},  GpuModel{"gb200", "Blackwell", false},
    GpuModel{"gb300", "Blackwell", false}, GpuModel{"l40", "Ada", false},       GpuModel{"l40s", "Ada", false},
    GpuModel{"l4", "Ada", false},
};

// The words of a model as the inventory or nvidia-smi writes it, lower case, without NVIDIA's
// brand words: "NVIDIA H20" -> {"h20"}, "H100-SXM5-80GB" -> {"h100", "sxm5", "80gb"}.
std::vector<std::string> model_words(std::string_view model) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : util::to_lower(model) + " ") {
    if (c == ' ' || c == '-' || c == '_' || c == '\t') {
      if (!word.empty() && !(words.empty() && (word == "nvidia" || word == "tesla"))) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  return words;
}

const GpuModel* find_model(std::string_view model) {
  const auto words = model_words(model);
  if (words.empty()) return nullptr;
  for (const auto& known : k_models)
    if (known.word == words.front()) return &known;
  return nullptr;
}

}  // namespace

bool has_nvswitch(const GpuSpec& gpu) {
  if (gpu.nvswitch) return *gpu.nvswitch;
  if (gpu.count != 8) return false;
  const auto* model = find_model(gpu.model);
  if (!model || !model->hgx8_nvswitch) return false;
  // "H100-PCIe", "H100 NVL": the PCIe cards of an HGX model are bridged pairs, not switched.
  for (const auto& word : model_words(gpu.model))
    if (word.starts_with("pcie") || word == "nvl") return false;
  return true;
}

std::string known_gpu_models() {
  std::vector<std::string> names;
  for (const auto& model : k_models) {
    std::string name(model.word);
    for (auto& c : name) c = c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
    names.push_back(std::move(name));
  }
  return util::join(names, ", ");
}

namespace inventory_detail {

std::string gpu_architecture(std::string_view model) {
  const auto* known = find_model(model);
  return known ? std::string(known->architecture) : std::string();
}

}  // namespace inventory_detail
}  // namespace gpuctl
