#pragma once
// What verify's DCGM diagnostic (`dcgmi diag -r LEVEL -j`) printed on a node
// (verify/dcgm_diag.hpp runs and parses it). Verify owns it: it runs only in verify, for nodes
// whose inventory declares gpu.dcgm_diag (or during replace-gpu), and is handed to the checks
// beside the node's state (CheckInput). A plain value; no I/O.

#include <string>
#include <vector>

namespace gpuctl {

// Which diagnostic verify runs on a node. level 0: the inventory's gpu.dcgm_diag, where
// declared. gpu_uuids empty: every GPU; else only those (replace-gpu names the new cards).
struct DcgmDiagRequest {
  int level = 0;
  std::vector<std::string> gpu_uuids;
};

struct ObservedDcgmDiag {
  int level = 0;          // the -r level it ran at
  std::string command;    // what ran on the node
  int exit_code = -1;     // dcgmi's; -1: it did not finish
  std::string output;     // its stdout and stderr
  std::string problem;    // why it could not run, with the fix; empty when it ran
  std::string gpus{};     // the GPUs it ran on, as "DCGM GPU 3 (GPU-...)"; empty: every GPU
};

}  // namespace gpuctl
