// The script behind verify's nccl_allreduce check and the parsers of what it prints.
#include <gpuctl/verify/nccl_allreduce.hpp>

#include "marked_output.hpp"

#include <gpuctl/util/strings.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <map>

namespace gpuctl {
namespace {

constexpr std::string_view k_marker = "@@nccl ";
constexpr std::string_view k_program_tag = "gpuctl-nccl-allreduce:";
constexpr int k_run_timeout_s = 300;
constexpr std::int64_t k_max_gpus = 1 << 16;

// A finite number as the node printed it; nan, inf and anything else is no number.
std::optional<double> number(std::string_view text) {
  double value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr != text.data() + text.size() || text.empty() || !std::isfinite(value)) return std::nullopt;
  return value;
}

// A count (GPUs, bytes, wrong elements): a non-negative integer small enough that sums of a few
// of them stay exact; a node printing 1e30 or -1 gets a parse error, not a wrapped integer.
std::optional<std::int64_t> count(std::string_view text) {
  constexpr std::int64_t k_max_count = std::int64_t{1} << 53;
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr != text.data() + text.size() || text.empty() || value < 0 || value > k_max_count)
    return std::nullopt;
  return value;
}

std::vector<std::string> words(std::string_view line) {
  std::vector<std::string> out;
  for (const auto& word : util::split(line, ' '))
    if (!word.empty()) out.push_back(word);
  return out;
}

std::string last_lines(std::string_view text) { return std::string(util::trim(util::tail_lines(text, 3))); }

}  // namespace

std::string nccl_program_build_lines(std::string_view on_problem) {
  std::string lines = fmt::format(
      "  d=$(mktemp -d /tmp/gpuctl-nccl.XXXXXX) || {{ echo '@@nccl problem tmp'; {0}; }}\n"
      "  trap 'rm -rf \"$d\"' EXIT\n"
      "  cat >\"$d/allreduce.c\" <<'GPUCTL_NCCL_SOURCE'\n",
      on_problem);
  lines += nccl_allreduce_program_source();
  lines += fmt::format(
      "GPUCTL_NCCL_SOURCE\n"
      "  echo '@@nccl tool gpuctl-nccl-allreduce'\n"
      "  if ! cc -O2 -o \"$d/allreduce\" \"$d/allreduce.c\" -ldl 2>&1; then echo '@@nccl problem compile'; {0}; fi\n",
      on_problem);
  return lines;
}

std::string nccl_allreduce_script(const NcclAllreduceSpec& spec) {
  const auto bytes = std::to_string(spec.message_bytes);
  const auto iterations = std::to_string(spec.iterations);
  // NVLink SHARP (multicast) stays off: on shared machines it can take the GPUs out of service.
  std::string script = fmt::format(
      "export LC_ALL=C NCCL_NVLS_ENABLE=0\n"
      "PATH=\"$PATH:/usr/local/cuda/bin:/usr/local/nvidia/bin:/usr/local/bin\"\n"
      "T=''\n"
      "if command -v timeout >/dev/null 2>&1; then T='timeout -k 5 {}'; fi\n"
      "if command -v all_reduce_perf >/dev/null 2>&1; then\n"
      "  n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU ')\n"
      "  [ \"${{n:-0}}\" -ge 1 ] || n=1\n"
      "  echo '@@nccl tool all_reduce_perf'\n"
      "  set -- all_reduce_perf -b {} -e {} -f 2 -n {} -w 1 -c 1 -g \"$n\"\n"
      "elif command -v cc >/dev/null 2>&1; then\n",
      k_run_timeout_s, bytes, bytes, iterations);
  script += nccl_program_build_lines("exit 0");
  script += fmt::format(
      "  set -- \"$d/allreduce\" {} {}\n"
      "else\n"
      "  echo '@@nccl problem no-tool'; exit 0\n"
      "fi\n"
      "echo \"@@nccl command NCCL_NVLS_ENABLE=0 $*\"\n"
      "$T \"$@\" 2>&1\n"
      "echo \"@@nccl rc $?\"\n",
      bytes, iterations);
  return script;
}

Result<ObservedNcclRun> parse_nccl_allreduce_run(std::string_view output) {
  const auto split = verify_detail::split_marked_output(output, k_marker);
  ObservedNcclRun run;
  run.output = split.output;
  run.tool = split.mark("tool");
  run.command = split.mark("command");
  run.exit_code = split.exit_code();
  const bool marked = split.marked;
  const auto problem = split.mark("problem");
  if (!marked) return fail(ErrorCode::parse, "the NCCL all-reduce script printed no marker: " + last_lines(output));
  if (problem == "no-tool") {
    run.problem = "neither nccl-tests' all_reduce_perf nor a C compiler (cc) is on the node's PATH: "
                  "install nccl-tests or gcc on the node";
  } else if (problem == "compile") {
    run.problem = fmt::format("cc could not compile gpuctl's all-reduce program: {}", last_lines(run.output));
  } else if (problem == "tmp") {
    run.problem = "cannot create a temporary directory under /tmp on the node";
  } else if (!problem.empty()) {
    run.problem = problem;
  } else if (run.exit_code < 0) {
    run.problem = fmt::format("{} did not finish (no exit status): {}", run.tool.empty() ? "the all-reduce" : run.tool,
                              last_lines(run.output));
  }
  return run;
}

Result<NcclAllreduceResult> parse_gpuctl_allreduce_output(std::string_view output) {
  for (const auto& line : util::split_lines(output)) {
    const auto at = line.find(k_program_tag);
    if (at == std::string::npos) continue;
    const auto rest = util::trim(std::string_view(line).substr(at + k_program_tag.size()));
    if (rest.starts_with("error:")) return fail(ErrorCode::io, std::string(util::trim(rest.substr(6))));
    std::map<std::string, std::string> fields;
    for (const auto& word : words(rest)) {
      const auto eq = word.find('=');
      if (eq != std::string::npos) fields[word.substr(0, eq)] = word.substr(eq + 1);
    }
    NcclAllreduceResult result;
    const auto field = [&](const char* name) { return fields.contains(name) ? number(fields[name]) : std::nullopt; };
    const auto counted = [&](const char* name) { return fields.contains(name) ? count(fields[name]) : std::nullopt; };
    const auto gpus = counted("gpus"), bytes = counted("bytes"), wrong = counted("wrong");
    const auto time = field("time_us"), algbw = field("algbw_GBps"), busbw = field("busbw_GBps");
    if (!gpus || *gpus > k_max_gpus || !bytes || !time || !algbw || !busbw || !wrong)
      return fail(ErrorCode::parse, fmt::format("unexpected result line '{}'", line));
    result.gpus = static_cast<int>(*gpus);
    result.bytes = *bytes;
    result.time_us = *time;
    result.algbw_gbs = *algbw;
    result.busbw_gbs = *busbw;
    result.wrong = *wrong;
    result.nccl_version = fields["nccl"];
    if (fields.contains("process")) {
      const auto process = counted("process");
      if (!process || *process > k_max_gpus) return fail(ErrorCode::parse, fmt::format("unexpected result line '{}'", line));
      result.process = static_cast<int>(*process);
    }
    return result;
  }
  return fail(ErrorCode::parse, fmt::format("no '{}' line in the output: {}", k_program_tag, last_lines(output)));
}

Result<NcclAllreduceResult> parse_all_reduce_perf(std::string_view output) {
  // Columns by the header "#  size  count  type  redop  root  time  algbw  busbw  #wrong  time ...";
  // the first time/algbw/busbw/#wrong are out-of-place, the second in-place.
  std::vector<std::string> header;
  std::optional<NcclAllreduceResult> best;
  int gpus = 0;
  for (const auto& line : util::split_lines(output)) {
    const auto trimmed = util::trim(line);
    if (trimmed.starts_with("#")) {
      auto cells = words(trimmed.substr(1));
      if (!cells.empty() && cells[0] == "size") header = std::move(cells);
      else if (cells.size() >= 4 && cells[0] == "nThread")
        for (std::size_t i = 0; i + 1 < cells.size(); ++i)
          if (cells[i] == "nGpus") gpus = static_cast<int>(std::min(count(cells[i + 1]).value_or(0), k_max_gpus));
      continue;
    }
    if (trimmed.empty() || header.empty()) continue;
    const auto cells = words(trimmed);
    const auto size = count(cells[0]);
    if (cells.size() != header.size() || !size) continue;  // other text (warnings) between rows
    std::vector<std::size_t> time, algbw, busbw, wrong;
    for (std::size_t i = 0; i < header.size(); ++i) {
      if (header[i] == "time") time.push_back(i);
      else if (header[i] == "algbw") algbw.push_back(i);
      else if (header[i] == "busbw") busbw.push_back(i);
      else if (header[i] == "#wrong") wrong.push_back(i);
    }
    if (time.empty() || algbw.empty() || busbw.empty() || wrong.empty())
      return fail(ErrorCode::parse, "all_reduce_perf's header lacks time, algbw, busbw or #wrong");
    NcclAllreduceResult row;
    row.gpus = gpus;
    row.bytes = *size;
    const auto t = number(cells[time[0]]), a = number(cells[algbw[0]]), b = number(cells[busbw[0]]);
    if (!t || !a || !b) return fail(ErrorCode::parse, fmt::format("unexpected all_reduce_perf row '{}'", trimmed));
    row.time_us = *t;
    row.algbw_gbs = *a;
    row.busbw_gbs = *b;
    for (const auto column : wrong) {
      const auto wrong_here = count(cells[column]);
      if (!wrong_here)
        return fail(ErrorCode::parse, fmt::format("all_reduce_perf did not check the results ('{}' wrong)", cells[column]));
      row.wrong += *wrong_here;
    }
    if (!best || row.bytes >= best->bytes) best = row;
  }
  if (!best) return fail(ErrorCode::parse, "no result row in all_reduce_perf's output: " + last_lines(output));
  return *best;
}

Result<NcclAllreduceResult> nccl_allreduce_result(const ObservedNcclRun& run) {
  if (!run.problem.empty()) return fail(ErrorCode::io, run.problem);
  auto result = run.tool == "all_reduce_perf" ? parse_all_reduce_perf(run.output) : parse_gpuctl_allreduce_output(run.output);
  if (!result) {
    auto error = result.error();
    error.message = fmt::format("{} (exit status {}): {}", run.tool, run.exit_code, error.message);
    return std::unexpected(error);
  }
  return result;
}

Result<ObservedNcclRun> run_nccl_allreduce(Transport& transport, const NcclAllreduceSpec& spec) {
  auto result = transport.run("sh -s", CommandOptions{std::chrono::seconds(k_run_timeout_s + 30), nccl_allreduce_script(spec), false});
  if (!result) return std::unexpected(result.error());
  return parse_nccl_allreduce_run(result->out + result->err);
}

}  // namespace gpuctl
