#pragma once
// The NCCL all-reduce behind verify's nccl_allreduce check: one command on the node runs
// nccl-tests' all_reduce_perf when it is on PATH, else compiles (with cc) and runs a small C
// program gpuctl ships, which dlopen()s libcuda and libnccl (no CUDA headers needed). Always
// with NCCL_NVLS_ENABLE=0. The parsers are pure and tested on captured outputs.

#include <gpuctl/core/error.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/transport/transport.hpp>
#include <gpuctl/verify/nccl_run.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace gpuctl {

// One all-reduce measurement, whichever tool made it.
struct NcclAllreduceResult {
  int gpus = 0;
  std::int64_t bytes = 0;           // message size per GPU
  double time_us = 0;               // per iteration
  double algbw_gbs = 0;             // bytes / time
  double busbw_gbs = 0;             // algbw * 2(n-1)/n
  std::int64_t wrong = 0;           // elements with a wrong sum
  std::string nccl_version;         // "22809" from our program; empty from all_reduce_perf
  int process = 0;                  // our program across nodes: this process's number (0 holds rank 0)
};

// The C source of gpuctl's own all-reduce program (its usage: PROGRAM BYTES ITERATIONS).
std::string_view nccl_allreduce_program_source();

// The sh lines, for a branch of a script where cc is on PATH, that write gpuctl's program into
// a new directory $d under /tmp (removed when the script exits), print "@@nccl tool
// gpuctl-nccl-allreduce" and compile it to "$d/allreduce". Where that fails they print
// "@@nccl problem tmp|compile" and run `on_problem` ("exit 0"). Pure.
std::string nccl_program_build_lines(std::string_view on_problem);

// The POSIX sh script verify runs on the node for `spec` (pure). It prints "@@nccl tool|
// command|rc|problem ..." marker lines around the tool's own output.
std::string nccl_allreduce_script(const NcclAllreduceSpec& spec);

// Splits the script's output into an ObservedNcclRun (pure). The problem names the fix when
// neither tool could run. Error: output without any marker (not the script's).
Result<ObservedNcclRun> parse_nccl_allreduce_run(std::string_view output);

// Parses our program's line "gpuctl-nccl-allreduce: gpus=N bytes=B ... wrong=W nccl=V" or its
// "gpuctl-nccl-allreduce: error: ..." line (an Error carrying that message).
Result<NcclAllreduceResult> parse_gpuctl_allreduce_output(std::string_view output);

// Parses all_reduce_perf's table: the row of the largest size; out-of-place time, algbw and
// busbw; #wrong of both halves added. Error: no data row, or a row that does not parse.
Result<NcclAllreduceResult> parse_all_reduce_perf(std::string_view output);

// The measurement in a run, by its tool. Error: the run could not start, or its output
// holds no result (the message quotes the tool's last lines).
Result<NcclAllreduceResult> nccl_allreduce_result(const ObservedNcclRun& run);

// Runs the script on the node (one Transport::run, not through sudo). Does I/O. Errors: the
// transport's (unreachable, timeout).
Result<ObservedNcclRun> run_nccl_allreduce(Transport& transport, const NcclAllreduceSpec& spec);

}  // namespace gpuctl
