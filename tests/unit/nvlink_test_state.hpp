#pragma once
// Test helpers: NodeFacts with the SYNTHESISED 8-GPU topology and NVLink outputs, and an
// ObservedNcclRun as our program prints it, for the nvlink_topology and nccl_allreduce checks.

#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/plan/node_state.hpp>
#include <gpuctl/verify/nccl_run.hpp>

#include "probe_capture.hpp"

#include <fmt/format.h>

namespace gpuctl::testing {

inline void set_nvlink_facts(NodeFacts& facts, const std::string& suffix = "") {
  auto topology = facts::parse_topology_matrix(read_test_data("nvidia-smi/synthetic-8gpu/topo-m" + suffix + ".txt"));
  auto nvlink = facts::parse_nvlink_status(read_test_data("nvidia-smi/synthetic-8gpu/nvlink-s" + suffix + ".txt"));
  EXPECT_TRUE(topology && nvlink);
  if (topology) facts.topology = Fact<TopologyMatrix>::of(*topology);
  if (nvlink) facts.nvlink = Fact<std::vector<NvlinkGpu>>::of(*nvlink);
}

inline ObservedNcclRun program_run(int gpus, double busbw, long wrong, int exit_code = 0) {
  ObservedNcclRun run;
  run.tool = "gpuctl-nccl-allreduce";
  run.command = "NCCL_NVLS_ENABLE=0 /tmp/gpuctl-nccl.x/allreduce 268435456 20";
  run.exit_code = exit_code;
  run.output = fmt::format(
      "gpuctl-nccl-allreduce: gpus={} bytes=268435456 iterations=20 time_us=1150.0 algbw_GBps=233.40 busbw_GBps={:.2f} "
      "wrong={} nccl=22803\n",
      gpus, busbw, wrong);
  return run;
}

}  // namespace gpuctl::testing
