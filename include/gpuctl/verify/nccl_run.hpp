#pragma once
// What verify's NCCL all-reduce printed on a node (verify/nccl_allreduce.hpp runs and parses
// it). Verify owns it: it is run only by verify, for nodes whose inventory declares
// gpu.nccl_allreduce, and handed to the checks beside the node's state (CheckInput). A plain
// value; no I/O.

#include <string>

namespace gpuctl {

struct ObservedNcclRun {
  std::string tool;       // "all_reduce_perf" or "gpuctl-nccl-allreduce"; empty: neither could run
  std::string command;    // what ran on the node
  int exit_code = -1;
  std::string output;     // its stdout and stderr
  std::string problem;    // why it could not run, with the fix; empty when it ran
};

}  // namespace gpuctl
