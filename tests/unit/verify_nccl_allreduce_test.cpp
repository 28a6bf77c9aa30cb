// The NCCL all-reduce behind verify's nccl_allreduce check: the script, its embedded C
// program, and the parsers of what they print.
#include <gpuctl/verify/nccl_allreduce.hpp>
#include <gpuctl/util/strings.hpp>

#include "probe_capture.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace gpuctl {
namespace {

using testing::read_test_data;

TEST(NcclAllreduceScript, KeepsNvlsOffAndPrefersAllReducePerf) {
  NcclAllreduceSpec spec;
  spec.message_bytes = 64 << 20;
  spec.iterations = 7;
  const auto script = nccl_allreduce_script(spec);
  EXPECT_NE(script.find("export LC_ALL=C NCCL_NVLS_ENABLE=0\n"), std::string::npos);
  const auto perf = script.find("command -v all_reduce_perf");
  const auto cc = script.find("command -v cc");
  ASSERT_NE(perf, std::string::npos);
  ASSERT_NE(cc, std::string::npos);
  EXPECT_LT(perf, cc);
  EXPECT_NE(script.find("all_reduce_perf -b 67108864 -e 67108864 -f 2 -n 7 -w 1 -c 1"), std::string::npos);
  EXPECT_NE(script.find("\"$d/allreduce\" 67108864 7\n"), std::string::npos);
  EXPECT_NE(script.find(nccl_allreduce_program_source()), std::string::npos);
}

// The embedded C must compile wherever a node's cc would compile it (no CUDA headers needed).
TEST(NcclAllreduceScript, TheEmbeddedProgramCompilesWithCc) {
  if (std::system("command -v cc >/dev/null 2>&1") != 0) GTEST_SKIP() << "no cc on this machine";
  const auto dir = std::filesystem::temp_directory_path() / ("gpuctl-nccl-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "allreduce.c") << nccl_allreduce_program_source();
  const auto command = "cc -std=c99 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O2 -o " + (dir / "allreduce").string() + " " +
                       (dir / "allreduce.c").string() + " -ldl 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  // Without a GPU driver the program says why, in its own parseable error line.
  const auto run = (dir / "allreduce").string() + " 1024 1 > " + (dir / "out").string() + " 2>&1";
  const int status = std::system(run.c_str());
  std::ifstream in(dir / "out");
  const std::string output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove_all(dir);
  if (output.find("gpuctl-nccl-allreduce: gpus=") != std::string::npos) GTEST_SKIP() << "this machine has a GPU and NCCL";
  EXPECT_NE(status, 0);
  const auto parsed = parse_gpuctl_allreduce_output(output);
  ASSERT_FALSE(parsed);
  EXPECT_NE(parsed.error().message.find("cannot load"), std::string::npos) << parsed.error().message;
}

TEST(NcclAllreduceRun, SplitsMarkersFromTheToolsOutput) {
  const auto run = parse_nccl_allreduce_run(
      "@@nccl tool gpuctl-nccl-allreduce\n@@nccl command NCCL_NVLS_ENABLE=0 /tmp/gpuctl-nccl.x/allreduce 1024 5\n"
      "gpuctl-nccl-allreduce: gpus=1 bytes=1024 iterations=5 time_us=8.1 algbw_GBps=0.13 busbw_GBps=0.00 wrong=0 nccl=22803\n"
      "@@nccl rc 0\n");
  ASSERT_TRUE(run);
  EXPECT_EQ(run->tool, "gpuctl-nccl-allreduce");
  EXPECT_EQ(run->command, "NCCL_NVLS_ENABLE=0 /tmp/gpuctl-nccl.x/allreduce 1024 5");
  EXPECT_EQ(run->exit_code, 0);
  EXPECT_TRUE(run->problem.empty());
  const auto result = nccl_allreduce_result(*run);
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->gpus, 1);
  EXPECT_EQ(result->bytes, 1024);
  EXPECT_DOUBLE_EQ(result->time_us, 8.1);
  EXPECT_DOUBLE_EQ(result->busbw_gbs, 0.0);
  EXPECT_EQ(result->wrong, 0);
  EXPECT_EQ(result->nccl_version, "22803");
}

TEST(NcclAllreduceRun, SaysWhyItCouldNotRunAndHowToFixIt) {
  auto run = parse_nccl_allreduce_run("@@nccl problem no-tool\n");
  ASSERT_TRUE(run);
  EXPECT_NE(run->problem.find("install nccl-tests or gcc"), std::string::npos);
  EXPECT_FALSE(nccl_allreduce_result(*run));

  run = parse_nccl_allreduce_run("@@nccl tool gpuctl-nccl-allreduce\nallreduce.c:1: error: boom\n@@nccl problem compile\n");
  ASSERT_TRUE(run);
  EXPECT_NE(run->problem.find("cc could not compile"), std::string::npos);
  EXPECT_NE(run->problem.find("boom"), std::string::npos);

  // Killed by the timeout before printing its exit status.
  run = parse_nccl_allreduce_run("@@nccl tool all_reduce_perf\n@@nccl command x\n# nThread 1\n");
  ASSERT_TRUE(run);
  EXPECT_NE(run->problem.find("did not finish"), std::string::npos);

  EXPECT_FALSE(parse_nccl_allreduce_run("sh: 1: Syntax error\n"));
}

TEST(NcclAllreduceRun, AProgramErrorLineIsTheReason) {
  const auto run = parse_nccl_allreduce_run(
      "@@nccl tool gpuctl-nccl-allreduce\n@@nccl command x\n"
      "gpuctl-nccl-allreduce: error: cannot load NCCL (libnccl.so.2): libnccl.so: cannot open shared object file\n@@nccl rc 2\n");
  ASSERT_TRUE(run);
  const auto result = nccl_allreduce_result(*run);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("cannot load NCCL"), std::string::npos);
  EXPECT_NE(result.error().message.find("exit status 2"), std::string::npos);
}

// Every result line of the program in a log, each parsed (a line that does not parse fails the test).
std::vector<NcclAllreduceResult> result_lines(const std::string& text) {
  std::vector<NcclAllreduceResult> results;
  for (const auto& line : util::split_lines(text))
    if (line.starts_with("gpuctl-nccl-allreduce:")) {
      auto result = parse_gpuctl_allreduce_output(line);
      EXPECT_TRUE(result) << line << ": " << (result ? "" : result.error().message);
      if (result) results.push_back(*result);
    }
  return results;
}

// Real runs of the program on the single H200 (tests/data/nccl/h200-1gpu), one result line each.
TEST(NcclAllreduceRun, ParsesTheRealH200Runs) {
  const auto text = read_test_data("nccl/h200-1gpu/gpuctl-allreduce-runs.txt");
  const auto results = result_lines(text);
  ASSERT_GE(results.size(), 3u);
  EXPECT_EQ(results[1].gpus, 1);
  EXPECT_EQ(results[1].bytes, 268435456);
  EXPECT_EQ(results[1].wrong, 0);
  EXPECT_DOUBLE_EQ(results[1].busbw_gbs, 0.0);
  EXPECT_GT(results[1].algbw_gbs, 100.0);
  EXPECT_EQ(results[1].nccl_version, "22803");
}

// The multi-process mode on the real H200 (tests/data/nccl/h200-1gpu/multiprocess-*): two
// processes NCCL saw as two nodes, one result line each amid NCCL's INFO log.
TEST(NcclAllreduceRun, ParsesTheRealH200MultiProcessRun) {
  for (const int process : {0, 1}) {
    const auto text = read_test_data(fmt::format("nccl/h200-1gpu/multiprocess-2026-12-05-process{}.txt", process));
    ASSERT_NE(text.find("nNodes 2"), std::string::npos) << "NCCL took the processes for two nodes";
    const auto results = result_lines(text);
    ASSERT_EQ(results.size(), 1u);
    EXPECT_EQ(results[0].gpus, 2) << "both processes' GPUs";
    EXPECT_EQ(results[0].process, process);
    EXPECT_EQ(results[0].bytes, 67108864);
    EXPECT_EQ(results[0].wrong, 0);
    EXPECT_GT(results[0].busbw_gbs, 0.0) << "two ranks: a bus bandwidth, over the socket transport";
    EXPECT_EQ(results[0].nccl_version, "22803");
  }
}

TEST(AllReducePerf, ReadsTheLargestRowOfTheTable) {
  const auto result = parse_all_reduce_perf(read_test_data("nccl/all-reduce-perf-8gpu-synthetic.txt"));
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(result->gpus, 8);
  EXPECT_EQ(result->bytes, 268435456);
  EXPECT_DOUBLE_EQ(result->time_us, 1148.2);
  EXPECT_DOUBLE_EQ(result->algbw_gbs, 233.79);
  EXPECT_DOUBLE_EQ(result->busbw_gbs, 409.13);
  EXPECT_EQ(result->wrong, 0);
  const auto wrong = parse_all_reduce_perf(read_test_data("nccl/all-reduce-perf-8gpu-wrong-synthetic.txt"));
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->wrong, 3);
}

TEST(AllReducePerf, RejectsUncheckedOrEmptyOutput) {
  const auto table = read_test_data("nccl/all-reduce-perf-8gpu-synthetic.txt");
  auto unchecked = table;
  for (auto at = unchecked.find("      0   "); at != std::string::npos; at = unchecked.find("      0   ", at))
    unchecked.replace(at, 10, "    N/A   ");
  const auto result = parse_all_reduce_perf(unchecked);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("did not check"), std::string::npos);
  EXPECT_FALSE(parse_all_reduce_perf("# nThread 1 nGpus 8\nCUDA failure common.cu:1 'out of memory'\n"));
}

// What a node prints is not trusted to be a sane number: out-of-range, negative, nan and inf
// counts are parse errors (the fuzz targets found the same class in the uptime parser).
TEST(NcclAllreduceRun, NumbersOutOfRangeAreParseErrorsNotWrappedIntegers) {
  const std::string good = "gpuctl-nccl-allreduce: gpus=1 bytes=1048576 time_us=10.5 algbw_GBps=99.8 busbw_GBps=0 wrong=0 nccl=22803";
  ASSERT_TRUE(parse_gpuctl_allreduce_output(good));
  for (const auto& [from, to] : std::vector<std::pair<std::string, std::string>>{
           {"gpus=1 ", "gpus=1e30 "}, {"gpus=1 ", "gpus=-1 "}, {"gpus=1 ", "gpus=99999999999 "},
           {"bytes=1048576", "bytes=nan"}, {"bytes=1048576", "bytes=1e300"}, {"wrong=0", "wrong=inf"},
           {"wrong=0", "wrong=-3"}, {"time_us=10.5", "time_us=nan"}, {"algbw_GBps=99.8", "algbw_GBps=inf"}}) {
    auto line = good;
    line.replace(line.find(from), from.size(), to);
    EXPECT_FALSE(parse_gpuctl_allreduce_output(line)) << line;
  }
  auto table = read_test_data("nccl/all-reduce-perf-8gpu-synthetic.txt");
  const auto zero = table.rfind("      0   ");
  ASSERT_NE(zero, std::string::npos);
  table.replace(zero, 10, "   1e30   ");
  EXPECT_FALSE(parse_all_reduce_perf(table));
}

}  // namespace
}  // namespace gpuctl
