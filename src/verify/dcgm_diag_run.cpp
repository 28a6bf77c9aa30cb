// The script behind verify's dcgm_diag check and the split of what it prints.
#include <gpuctl/verify/dcgm_diag.hpp>

#include "marked_output.hpp"

#include <gpuctl/util/strings.hpp>

#include <charconv>
#include <fmt/format.h>

namespace gpuctl {
namespace {

constexpr std::string_view k_marker = "@@dcgm ";

std::string last_lines(std::string_view text) { return std::string(util::trim(util::tail_lines(text, 3))); }

constexpr std::string_view k_no_dcgmi = "dcgmi is not on the node's PATH";

bool contains(std::string_view text, std::string_view what) { return text.find(what) != std::string_view::npos; }

}  // namespace

// NVIDIA's guide gives level 1 seconds, level 2 about two minutes, level 3 about half an hour
// (per GPU set); the bounds leave room for slow boards without letting a hung diag hold verify.
int dcgm_diag_timeout_s(int level) {
  switch (level) {
    case 1: return 300;
    case 2: return 1200;
    default: return 3600;
  }
}

std::string dcgm_diag_script(int level) {
  // The level reaches the shell quoted, although the inventory only admits 1 to 3.
  const auto quoted = util::shell_quote(std::to_string(level));
  return fmt::format(
      "export LC_ALL=C\n"
      "PATH=\"$PATH:/usr/bin:/usr/local/bin:/usr/sbin\"\n"
      "command -v dcgmi >/dev/null 2>&1 || {{ echo '@@dcgm problem no-dcgmi'; exit 0; }}\n"
      "T=''\n"
      "if command -v timeout >/dev/null 2>&1; then T='timeout -k 10 {}'; fi\n"
      "echo \"@@dcgm command dcgmi diag -r {} -j\"\n"
      "$T dcgmi diag -r {} -j 2>&1\n"
      "echo \"@@dcgm rc $?\"\n",
      dcgm_diag_timeout_s(level), quoted, quoted);
}

Result<ObservedDcgmDiag> parse_dcgm_diag_run(std::string_view output, int level) {
  const auto split = verify_detail::split_marked_output(output, k_marker);
  ObservedDcgmDiag run;
  run.level = level;
  run.output = split.output;
  run.command = split.mark("command");
  run.exit_code = split.exit_code();
  const bool marked = split.marked;
  const auto problem = split.mark("problem");
  if (!marked) return fail(ErrorCode::parse, "the DCGM diagnostic script printed no marker: " + last_lines(output));
  if (problem == "no-dcgmi") run.problem = std::string(k_no_dcgmi);
  else if (!problem.empty()) run.problem = problem;
  else if (run.exit_code < 0)
    run.problem = fmt::format("dcgmi diag did not finish (no exit status): {}", last_lines(run.output));
  return run;
}

Result<DcgmDiagReport> dcgm_diag_result(const ObservedDcgmDiag& run, const DcgmNames& names) {
  const auto package = names.package.empty() ? std::string("DCGM (NVIDIA's CUDA repository has it)") : names.package;
  const auto service = names.service.empty() ? std::string("nvidia-dcgm") : names.service;
  if (run.problem == k_no_dcgmi)
    return fail(ErrorCode::not_found, fmt::format("{}: install {} (the monitoring step does with monitoring.dcgm_exporter) "
                                                  "and start {}", run.problem, package, service));
  if (!run.problem.empty()) return fail(ErrorCode::io, run.problem);
  if (run.exit_code == 124 || run.exit_code == 137)
    return fail(ErrorCode::timeout, fmt::format("dcgmi diag -r {} did not finish within {} s (killed by timeout)", run.level,
                                                dcgm_diag_timeout_s(run.level)));
  auto report = parse_dcgm_diag(run.output);
  if (report) return report;
  // No JSON. `dcgmi diag` falls back to an embedded host engine when none answers
  // (StartDiag::DoExecuteConnectionFailure); these are dcgmi's words when that fails too, or
  // when it was told to connect (dcgmi/Command.cpp).
  if (contains(run.output, "Unable to start an embedded host engine") || contains(run.output, "unable to establish a connection") ||
      contains(run.output, "Unable to connect to host engine"))
    return fail(ErrorCode::io, fmt::format("DCGM's host engine is not reachable ({}): start it with "
                                           "`systemctl enable --now {}`",
                                           util::trim(util::tail_lines(run.output, 1)), service));
  auto error = report.error();
  error.message = fmt::format("dcgmi diag -r {} (exit status {}): {}", run.level, run.exit_code, error.message);
  return std::unexpected(error);
}

Result<ObservedDcgmDiag> run_dcgm_diag(Transport& transport, int level) {
  auto result = transport.run("sh -s", CommandOptions{std::chrono::seconds(dcgm_diag_timeout_s(level) + 30), dcgm_diag_script(level), false});
  if (!result) return std::unexpected(result.error());
  return parse_dcgm_diag_run(result->out + result->err, level);
}

}  // namespace gpuctl
