#pragma once
// The node's hardware as slurm.conf and gres.conf describe it, read before a plan renders them:
// Slurm's own view (`slurmd -C`) where slurmd is installed, else the same values counted from
// `lscpu -p` and /proc/meminfo; each CPU's logical core; and each NVIDIA GPU's local CPUs from
// sysfs (the PCI device's local_cpulist, in PCI address order: nvidia-smi's GPU order). One
// read-only command per node (src/facts/probes/node_hardware.sh). docs/slurm.md.

#include <gpuctl/core/error.hpp>
#include <gpuctl/facts/slurmd_hardware.hpp>
#include <gpuctl/transport/transport.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl::facts {

struct PciGpu {
  std::string pci_address;   // "0000:18:00.0"
  std::vector<int> cpus;     // its local_cpulist, expanded; empty when sysfs gave none
};

struct NodeHardware {
  SlurmHardware slurm;           // in slurm.conf's words
  std::string source;            // "slurmd -C" or "lscpu -p, /proc/meminfo"
  std::map<int, int> core_of_cpu;  // lscpu's logical core of each CPU (Slurm's core index)
  std::vector<PciGpu> gpus;      // NVIDIA display and 3D controllers, in PCI address order
};

// The probe's shell script, for `sh -s` (pure).
std::string node_hardware_script();

// Parses the script's output (pure). slurmd -C's values are taken when it answered; else they
// are counted from lscpu -p (CPUs, sockets, cores per socket, threads per core; one board)
// and MemTotal (kB, down to MiB as slurmd rounds). Error (ErrorCode::parse): neither gave the
// values, naming what each said.
Result<NodeHardware> parse_node_hardware(std::string_view output);

// "0-55,112-167" -> {0..55, 112..167} (pure). Error: a word that is not N or N-M with N <= M.
Result<std::vector<int>> parse_cpu_list(std::string_view text);

// Runs the script on the node and parses it. Errors: the connection, a timeout (30 s), the
// script's exit, the parser's.
Result<NodeHardware> read_node_hardware(Transport& transport);

}  // namespace gpuctl::facts
