#pragma once
// The node's hardware as Slurm sees it: what `slurmd -C` finds on the node (Slurm's own view of
// its CPUs, boards, sockets, cores, threads and memory, in slurm.conf's words), and the same
// values in slurmctld's `scontrol show node` answer. Declared by src/facts/slurmd_hardware.cpp;
// read by verify's slurm_node_hardware. Pure parsers.

#include <gpuctl/core/error.hpp>
#include <gpuctl/facts/facts.hpp>

#include <cstdint>
#include <string_view>

namespace gpuctl::facts {

struct SlurmHardware {
  std::int64_t cpus = 0;
  std::int64_t boards = 0;
  std::int64_t sockets_per_board = 0;
  std::int64_t cores_per_socket = 0;
  std::int64_t threads_per_core = 0;
  std::int64_t real_memory_mib = 0;
};

// What `slurmd -C` printed on the node (a Slurm node runs slurmd; absent where it has none).
inline constexpr FactKey<SlurmHardware> k_slurmd_hardware{"slurmd_hardware"};

// `slurmd -C`: "NodeName=n CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1
// RealMemory=24105" then "UpTime=...". Error (ErrorCode::parse): a value missing or not a number.
Result<SlurmHardware> parse_slurmd_hardware(std::string_view text);

// The same values in `scontrol show node NAME`: CPUTot=, Boards=, Sockets= (per board),
// CoresPerSocket=, ThreadsPerCore=, RealMemory=. Same errors.
Result<SlurmHardware> parse_scontrol_hardware(std::string_view text);

}  // namespace gpuctl::facts
