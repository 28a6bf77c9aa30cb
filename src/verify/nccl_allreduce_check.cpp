// The NCCL all-reduce verify runs over a node's GPUs (verify/nccl_allreduce.hpp), judged.
#include "check_result.hpp"
#include "check_sources.hpp"

#include <gpuctl/facts/collect.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>
#include <gpuctl/verify/nccl_allreduce.hpp>

namespace gpuctl::verify_detail {
namespace {

// A real all-reduce over every local GPU: the sum must be right, and the bus bandwidth at
// least gpu.nccl_allreduce.min_busbw. With one GPU there is no bus: bandwidth is not judged
// unless the inventory asks for a minimum, which one GPU cannot meet.
CheckResult check_nccl_allreduce(const CheckInput& in) {
  const auto& spec = in.node.gpu.nccl_allreduce;
  if (!spec) return skipped("gpu.nccl_allreduce is not declared in the inventory");
  if (!spec->enabled) return skipped("gpu.nccl_allreduce.enabled is false in the inventory");
  const auto expected = spec->min_busbw_gbs ? fmt::format("correct sum, busbw >= {} GB/s", *spec->min_busbw_gbs)
                                            : std::string("correct sum (no min_busbw declared)");
  if (!in.nccl_allreduce) return cannot_run("the NCCL all-reduce did not run on the node (verify runs it)");
  const auto result = nccl_allreduce_result(*in.nccl_allreduce);
  if (!result) return cannot_run(result.error().message);
  const auto observed = fmt::format("{} GPUs, {} MiB, {} wrong, busbw {:.1f} GB/s (algbw {:.1f}) via {}", result->gpus,
                                    result->bytes >> 20, result->wrong, result->busbw_gbs, result->algbw_gbs,
                                    in.nccl_allreduce->tool);
  if (result->wrong > 0)
    return failed(observed, expected, fmt::format("{} elements of the sum are wrong: a GPU, NVLink or NCCL is faulty", result->wrong));
  if (in.nccl_allreduce->exit_code != 0)
    return cannot_run(fmt::format("{} exited {}: {}", in.nccl_allreduce->tool, in.nccl_allreduce->exit_code,
                                  util::trim(util::tail_lines(in.nccl_allreduce->output, 2))));
  if (result->gpus < 2) {
    if (spec->min_busbw_gbs)
      return failed(observed, expected, "one GPU has no bus bandwidth (busbw = algbw x 2(n-1)/n = 0): drop min_busbw for 1-GPU nodes");
    return {.status = CheckStatus::pass, .observed = observed, .expected = expected,
            .detail = "bandwidth not judged: with 1 GPU busbw is 0 by definition"};
  }
  if (spec->min_busbw_gbs && result->busbw_gbs < *spec->min_busbw_gbs)
    return failed(observed, expected, "bus bandwidth below the inventory's minimum: see nvlink_topology, NCCL_* settings, GPU clocks");
  return pass(observed, expected);
}

// What ran on the node and what it printed; why it could not run where it did not.
void cite_nccl_run(CheckResult& result, const CheckInput& in) {
  cite_node_run(result, in.nccl_allreduce, "the NCCL all-reduce", "(gpuctl's NCCL all-reduce)");
}

const CheckRegistration k_nccl_allreduce{{
    .name = "nccl_allreduce",
    .description = "an NCCL all-reduce over all GPUs sums correctly, bus bandwidth >= gpu.nccl_allreduce.min_busbw",
    .section = CheckSection::software,
    .runner = NodeRunner::nccl_allreduce,
    .judge = check_nccl_allreduce,
    .cite = cite_nccl_run,
    .source = "the all-reduce's command line and output",
}};

}  // namespace
}  // namespace gpuctl::verify_detail
