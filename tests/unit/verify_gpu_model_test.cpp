// The gpu.model rule (src/verify/gpu_model.hpp): normalisation of the names nvidia-smi really
// prints, and exact matching: never a substring ("H20" is in "H200").
#include "verify/gpu_model.hpp"

#include <gtest/gtest.h>

namespace gpuctl {
namespace {

struct NameCase {
  const char* name;   // as nvidia-smi --query-gpu=name prints it
  const char* full;
  const char* model;
};

// Real names: "NVIDIA H200" from tests/data/nvidia-smi/h200-1gpu; the others as `nvidia-smi -L`
// prints them in public captures (searched for "GPU 0: NVIDIA H100 80GB HBM3 (UUID",
// "... A100-SXM4-80GB", "... L40S", "... H20"); the rest are those boards' product names.
TEST(GpuModelName, NormalisesTheNamesNvidiaSmiPrints) {
  const NameCase cases[] = {
      {"NVIDIA H200", "h200", "h200"},
      {"NVIDIA H100 80GB HBM3", "h100-80gb-hbm3", "h100"},
      {"NVIDIA H100 PCIe", "h100-pcie", "h100"},
      {"NVIDIA H100 NVL", "h100-nvl", "h100"},
      {"NVIDIA A100-SXM4-80GB", "a100-sxm4-80gb", "a100"},
      {"NVIDIA A100-PCIE-40GB", "a100-pcie-40gb", "a100"},
      {"NVIDIA A10", "a10", "a10"},
      {"NVIDIA L4", "l4", "l4"},
      {"NVIDIA L40S", "l40s", "l40s"},
      {"NVIDIA H20", "h20", "h20"},
      {"NVIDIA GH200 480GB", "gh200-480gb", "gh200"},
      {"NVIDIA B200", "b200", "b200"},
      {"Tesla V100-SXM2-32GB", "v100-sxm2-32gb", "v100"},
      {"  nvidia  h100   80gb  ", "h100-80gb", "h100"},
      {"NVIDIA", "", ""},
      {"", "", ""},
  };
  for (const auto& c : cases) {
    const auto normalised = normalise_gpu_name(c.name);
    EXPECT_EQ(normalised.full, c.full) << c.name;
    EXPECT_EQ(normalised.model, c.model) << c.name;
  }
}

struct MatchCase {
  const char* inventory_model;
  const char* gpu_name;
  bool matches;
};

TEST(GpuModelName, MatchesTheWholeNameOrTheModelWordExactly) {
  const MatchCase cases[] = {
      {"H200", "NVIDIA H200", true},
      {"h200", "NVIDIA H200", true},
      {"H100", "NVIDIA H100 80GB HBM3", true},
      {"H100-80GB-HBM3", "NVIDIA H100 80GB HBM3", true},
      {"h100_80gb_hbm3", "NVIDIA H100 80GB HBM3", true},
      {"H100", "NVIDIA H100 PCIe", true},
      {"H100", "NVIDIA H100 NVL", true},
      {"A100", "NVIDIA A100-SXM4-80GB", true},
      {"A100-SXM4-80GB", "NVIDIA A100-SXM4-80GB", true},
      {"V100", "Tesla V100-SXM2-32GB", true},
      {"GH200", "NVIDIA GH200 480GB", true},
      {"NVIDIA-H200", "NVIDIA H200", true},
      // Substrings are not models.
      {"H20", "NVIDIA H200", false},
      {"H200", "NVIDIA H20", false},
      {"A10", "NVIDIA A100-SXM4-80GB", false},
      {"A10", "NVIDIA A100-PCIE-40GB", false},
      {"A100", "NVIDIA A10", false},
      {"L4", "NVIDIA L40S", false},
      {"L40", "NVIDIA L40S", false},
      {"H100", "NVIDIA GH200 480GB", false},
      {"H200", "NVIDIA GH200 480GB", false},
      {"B20", "NVIDIA B200", false},
      // A variant the name does not carry, or a prefix of one, is not the name.
      {"H100-SXM5-80GB", "NVIDIA H100 80GB HBM3", false},
      {"H100-80GB", "NVIDIA H100 80GB HBM3", false},
      {"A100-SXM4", "NVIDIA A100-SXM4-80GB", false},
      {"100", "NVIDIA H100 80GB HBM3", false},
      // Nothing matches an empty side.
      {"", "NVIDIA H200", false},
      {"H200", "", false},
      {"NVIDIA", "NVIDIA", false},
  };
  for (const auto& c : cases)
    EXPECT_EQ(gpu_model_matches(c.inventory_model, c.gpu_name), c.matches) << c.inventory_model << " vs " << c.gpu_name;
}

}  // namespace
}  // namespace gpuctl
