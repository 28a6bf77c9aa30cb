#pragma once
// The hardware values slurm.conf and gres.conf give each Slurm node, with where each came from
// (plan/slurm_hardware.hpp derives them from the node and the inventory). Data only: the
// template context writes them, the plan shows them (docs/slurm.md).

#include <gpuctl/inventory/slurm_hardware_keys.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

struct SlurmHardwareValue {
  std::string key;        // one of k_slurm_hardware_keys (inventory/slurm_hardware_keys.hpp)
  std::int64_t value = 0;
  std::string source;     // "slurmd -C", "pinned: label slurm.CPUs", "24105 MiB (slurmd -C) less the 5% reserve", ...

  bool operator==(const SlurmHardwareValue&) const = default;
};

struct SlurmNodeHardware {
  std::vector<SlurmHardwareValue> values;  // in k_slurm_hardware_keys' order
  // gres.conf Cores= of each GPU, by index ("0-55"); empty when not known (gpu_cores_source says why).
  std::vector<std::string> gpu_cores;
  std::string gpu_cores_source;

  bool operator==(const SlurmNodeHardware&) const = default;
};

// By node name: every node slurm.conf declares.
using SlurmHardwareTable = std::map<std::string, SlurmNodeHardware, std::less<>>;

}  // namespace gpuctl
