#pragma once
// verify --slurm-job: one short job through Slurm on each node, from the node itself
// (srun -w NODE --gres=gpu:N -c 1 --mem=1024), that prints the GPUs Slurm gave it
// (CUDA_VISIBLE_DEVICES) and the GPUs it can open (nvidia-smi -L). Opt-in like DCGM's
// diagnostic: it takes the node's GPUs for a moment, and waits at most 60 s for them.
// Judged by the slurm_gpu_job check (src/verify/slurm_job_check.cpp).

#include <gpuctl/core/error.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/transport/transport.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

struct ObservedSlurmJob {
  std::string command;    // what ran on the node
  int exit_code = -1;     // srun's (timeout's 124 when it did not finish); -1: it did not run
  std::string out;        // the job's output
  std::string err;        // srun's messages
  std::string problem;    // why it could not run at all; empty when it ran
};

// What the job printed, read (pure).
struct SlurmJobOutput {
  std::optional<std::vector<std::string>> visible_devices;  // CUDA_VISIBLE_DEVICES; nullopt: unset
  std::vector<std::string> gpus;                           // nvidia-smi -L's "GPU N: ..." lines
  int nvidia_smi_exit = -1;
};

// The job's command line for `node` (pure): every GPU the inventory declares, one CPU, 1 GiB.
std::string slurm_job_command(const Node& node);

// Reads the job's output (pure). Error: the CUDA_VISIBLE_DEVICES line is missing (the job's
// script did not run).
Result<SlurmJobOutput> parse_slurm_job_output(std::string_view out);

// Runs the job on the node. Never fails: a transport error or a timeout is its `problem`.
ObservedSlurmJob run_slurm_job(Transport& transport, const Node& node);

}  // namespace gpuctl
