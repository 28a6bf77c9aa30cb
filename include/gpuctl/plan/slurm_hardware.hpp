#pragma once
// Each Slurm node's slurm.conf hardware values (CPUs, Boards, SocketsPerBoard, CoresPerSocket,
// ThreadsPerCore, RealMemory) and gres.conf GPU cores, from what the node reports
// (facts/node_hardware.hpp) and what the inventory pins, with the source of each value. Pure.
//
// RealMemory is the node's memory less slurm.memory_reserve (5% unless set; or a fixed MiB
// amount), rounded down to whole GiB: slurmd drains a node that reports less memory than
// configured ("Low RealMemory"), and a kernel update that takes a little more memory must not
// do that. A label slurm.<Key> of the node pins that key; a pin above what the node has is left
// for verify's slurm_node_hardware to fail with both values. docs/slurm.md.

#include <gpuctl/core/error.hpp>
#include <gpuctl/facts/node_hardware.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/template/slurm_hardware.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace gpuctl {

// RealMemory for a node with `mem_total_mib` (pure): less the reserve, rounded down to a
// multiple of 1024 MiB where at least 1024 MiB is left; below that, what is left, and never
// less than 1 (Slurm's own default).
std::int64_t derated_real_memory(std::int64_t mem_total_mib, const SlurmSettings& slurm);

// The reserve in words: "5%" or "16384 MiB".
std::string memory_reserve_text(const SlurmSettings& slurm);

// The node's values: pinned ones from its slurm.<Key> labels, the rest from `observed`.
// `observed` is the probe's result, or why there is none (unreachable, no lscpu). Error
// (ErrorCode::validation): a value neither pinned nor observed, naming the node, why and the fix.
Result<SlurmNodeHardware> derive_slurm_hardware(const Inventory& inventory, const Node& node,
                                                const Result<facts::NodeHardware>& observed);

// Where Debian's and Ubuntu's Slurm packages read their configuration (SLURM_CONF's default).
inline constexpr std::string_view k_deployed_slurm_conf = "/etc/slurm/slurm.conf";
inline constexpr std::string_view k_deployed_gres_conf = "/etc/slurm/gres.conf";

// The values the deployed slurm.conf and gres.conf (their text, as read on another node) give
// `node`, for a node whose hardware cannot be read now (down for repair): slurm.conf then
// stays as it is instead of changing on every node, or failing for all. Pins still win. Each
// value's source says so (`why` is the reason the node could not be read). nullopt when the
// files give the node no line with all six values (a node new to slurm.conf). Pure.
std::optional<SlurmNodeHardware> deployed_slurm_hardware(const Node& node, std::string_view slurm_conf,
                                                         std::string_view gres_conf, const std::string& read_on,
                                                         const std::string& why);

}  // namespace gpuctl
