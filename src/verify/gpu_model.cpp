// The gpu.model rule of `verify`: exact after normalisation, never a substring ("H20" is in
// "H200", "A10" in "A100", "L4" in "L40S").
#include "gpu_model.hpp"

namespace gpuctl {
namespace {

bool is_separator(char c) { return c == ' ' || c == '-' || c == '_' || c == '\t'; }

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

}  // namespace

NormalisedGpuName normalise_gpu_name(std::string_view name) {
  std::string full;
  for (const char c : name) {
    if (is_separator(c)) {
      if (!full.empty() && full.back() != '-') full += '-';
    } else {
      full += lower(c);
    }
  }
  if (full.ends_with('-')) full.pop_back();
  // Brand words, not models: "NVIDIA H200", "Tesla V100-SXM2-32GB".
  for (const std::string_view brand : {"nvidia", "tesla"}) {
    if (full == brand) full.clear();
    else if (full.starts_with(std::string(brand) + "-")) full.erase(0, brand.size() + 1);
  }
  NormalisedGpuName out;
  out.model = full.substr(0, full.find('-'));
  out.full = std::move(full);
  return out;
}

bool gpu_model_matches(std::string_view inventory_model, std::string_view gpu_name) {
  const auto wanted = normalise_gpu_name(inventory_model).full;
  const auto gpu = normalise_gpu_name(gpu_name);
  return !wanted.empty() && !gpu.full.empty() && (wanted == gpu.full || wanted == gpu.model);
}

}  // namespace gpuctl
