#pragma once
// The hardware keys of a slurm.conf NodeName line that gpuctl writes from each node's hardware,
// and the node labels that pin them (docs/slurm.md). Pure.

#include <algorithm>
#include <optional>
#include <string_view>

namespace gpuctl {

// slurm.conf's hardware keys of a NodeName line, in slurmd -C's order.
inline constexpr std::string_view k_slurm_hardware_keys[] = {"CPUs",           "Boards",         "SocketsPerBoard",
                                                             "CoresPerSocket", "ThreadsPerCore", "RealMemory"};

// The hardware key a node label pins: "slurm.RealMemory" (any case: Slurm's keys ignore it)
// -> "RealMemory"; nullopt for any other label.
constexpr std::optional<std::string_view> pinned_hardware_key(std::string_view label) {
  constexpr std::string_view prefix = "slurm.";
  if (!label.starts_with(prefix)) return std::nullopt;
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  const auto key = label.substr(prefix.size());
  for (const auto name : k_slurm_hardware_keys)
    if (name.size() == key.size() && std::equal(name.begin(), name.end(), key.begin(),
                                                [&](char a, char b) { return lower(a) == lower(b); }))
      return name;
  return std::nullopt;
}

}  // namespace gpuctl
