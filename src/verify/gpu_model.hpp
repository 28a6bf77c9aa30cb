#pragma once
// How `verify` compares the inventory's gpu.model with the GPU name nvidia-smi reports
// (private to src/verify). Pure. docs/verify.md#gpu_model has the rule with examples.

#include <string>
#include <string_view>

namespace gpuctl {

struct NormalisedGpuName {
  std::string full;   // "h100-80gb-hbm3"
  std::string model;  // "h100": `full` up to its first '-'
};

// Lower-cases `name`, turns every run of spaces, '-' and '_' into one '-', and drops leading
// "nvidia" and "tesla" words: "NVIDIA H100 80GB HBM3" -> {"h100-80gb-hbm3", "h100"},
// "Tesla V100-SXM2-32GB" -> {"v100-sxm2-32gb", "v100"}, "NVIDIA H200" -> {"h200", "h200"}.
NormalisedGpuName normalise_gpu_name(std::string_view name);

// True when the inventory's model, normalised the same way, equals the GPU name's whole
// normalised form or its model word: "H100", "h100" and "H100-80GB-HBM3" match
// "NVIDIA H100 80GB HBM3"; "H20" does not match "NVIDIA H200", nor "A10" "NVIDIA A100-PCIE-40GB",
// nor "L4" "NVIDIA L40S". An empty name or model matches nothing.
bool gpu_model_matches(std::string_view inventory_model, std::string_view gpu_name);

}  // namespace gpuctl
