#pragma once
// `verify --nccl-nodes N`: one NCCL all-reduce across each set of N nodes, launched through
// Slurm from slurm.controller. The controller runs one script: per set, `salloc` takes the
// nodes exclusively and `srun` starts one task per node, each compiling gpuctl's program and
// running it in its multi-process mode (nccl_allreduce_program.cpp). The ranks meet through
// NCCL_COMM_ID at the first node's Slurm address, so no MPI is needed. Sets run side by side.
//
// The pure parts live here: which nodes form which set, the script, the parser of what it
// prints, and each node's nccl_allreduce_nodes check. api/session runs it.

#include <gpuctl/core/error.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/verify/checks.hpp>
#include <gpuctl/verify/nccl_run.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

inline constexpr std::string_view k_nccl_nodes_check = "nccl_allreduce_nodes";
// A set has at most this many nodes (one more when a last node joins it): 129 nodes of 64
// GPUs are 8,256 ranks, inside the 12,000 for which the program's int32 sums stay exact.
inline constexpr int k_max_nccl_nodes_per_set = 128;
// How long salloc waits for a set's nodes (busy with jobs) before the set is reported not run.
inline constexpr int k_nccl_nodes_queue_wait_s = 60;
// The controller's whole command: every set's own limit (nccl_nodes.cpp), with room to spare.
inline constexpr int k_nccl_nodes_timeout_s = 600;

struct NcclNodeSet {
  std::vector<std::string> nodes;  // inventory names, which are the Slurm node names
  int gpus_per_node = 0;
  NcclAllreduceSpec spec;          // message size and iterations: the first node's gpu.nccl_allreduce, or the defaults
};

struct NcclNodeSets {
  std::vector<NcclNodeSet> sets;
  std::vector<std::string> alone;  // no other candidate has their GPU count
};

// The sets for `candidates` (GPU nodes, in inventory order): nodes of one GPU count, `per_set`
// at a time in order; a last set of one node joins the set before it (N+1 nodes). Pure.
NcclNodeSets make_nccl_node_sets(const std::vector<const Node*>& candidates, int per_set);

// The POSIX sh script the controller runs for `sets` (pure). It prints "@@nccl-nodes set K"
// before set K's output: salloc's and srun's own lines, "@@nccl-nodes root HOST:PORT",
// "@@nccl-nodes rc N" (salloc's exit status) and each task's lines labelled "T: " by srun.
std::string nccl_nodes_script(const std::vector<NcclNodeSet>& sets);

struct NcclNodesTask {
  int task = -1;        // Slurm's task id (srun --label)
  std::string node;     // the node it ran on (SLURMD_NODENAME)
  ObservedNcclRun run;  // its markers and output
};

struct NcclNodeSetRun {
  std::string root;          // NCCL_COMM_ID the set used
  int exit_code = -1;        // salloc's; -1 when it printed none
  std::string slurm_output;  // salloc's, srun's and slurmstepd's own lines
  std::vector<NcclNodesTask> tasks;
};

struct NcclNodesRun {
  std::string problem;                // why no set could start (Slurm's tools missing, /tmp); empty otherwise
  std::vector<NcclNodeSetRun> sets;   // one per set, by index
};

// Parses the script's output for `set_count` sets. Error: no marker at all (not the script's).
Result<NcclNodesRun> parse_nccl_nodes_output(std::string_view output, std::size_t set_count);

// The nccl_allreduce_nodes check of each node of `set`, in set order (pure). Pass: the node's
// result spans every GPU of the set and its GPUs hold the right sum; its observed value is the
// set's bus bandwidth (process 0's), which is reported, not judged. Fail: wrong sums; NCCL
// could not join or run the nodes, or hung (the fabric's part); the node's GPUs or CUDA failed.
// Error: the node could not take part (no cc, no libnccl, Slurm refused or stopped its task).
std::vector<CheckResult> nccl_nodes_checks(const NcclNodeSet& set, const NcclNodeSetRun& run);

// The set's bus bandwidth (GB/s) a passing nccl_allreduce_nodes check observed; nullopt for any
// other check or status. Read here, beside the code that writes the observed value (pure).
std::optional<double> nccl_nodes_busbw(const CheckResult& check);

// The same error result for every node of `set`, when the script could not run at all.
std::vector<CheckResult> nccl_nodes_not_run(const NcclNodeSet& set, const std::string& why);

}  // namespace gpuctl
