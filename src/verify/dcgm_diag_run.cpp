// The script behind verify's dcgm_diag check and the split of what it prints.
#include <gpuctl/verify/dcgm_diag.hpp>

#include "marked_output.hpp"

#include <gpuctl/util/strings.hpp>

#include <algorithm>
#include <charconv>
#include <fmt/format.h>

namespace gpuctl {
namespace {

constexpr std::string_view k_marker = "@@dcgm ";

std::string last_lines(std::string_view text) { return std::string(util::trim(util::tail_lines(text, 3))); }

constexpr std::string_view k_no_dcgmi = "dcgmi is not on the node's PATH";

bool contains(std::string_view text, std::string_view what) { return text.find(what) != std::string_view::npos; }

// `dcgmi diag` falls back to an embedded host engine when none answers
// (StartDiag::DoExecuteConnectionFailure); these are dcgmi's words when that fails too, or when
// it was told to connect, and what every other dcgmi command prints without one (dcgmi/Command.cpp).
bool host_engine_unreachable(std::string_view output) {
  return contains(output, "Unable to start an embedded host engine") || contains(output, "unable to establish a connection") ||
         contains(output, "Unable to connect to host engine");
}

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

std::string dcgm_diag_script(int level, const std::vector<int>& gpu_ids) {
  // The level reaches the shell quoted, although the inventory only admits 1 to 3; the ids too,
  // although they are numbers dcgmi printed.
  auto quoted = util::shell_quote(std::to_string(level));
  if (!gpu_ids.empty()) {
    std::vector<std::string> ids;
    for (const int id : gpu_ids) ids.push_back(std::to_string(id));
    quoted += " -i " + util::shell_quote(util::join(ids, ","));
  }
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
  // Only where the output holds no diagnostic JSON (a test's message could quote these words).
  const auto unreachable = [&] {
    return fail(ErrorCode::io, fmt::format("DCGM's host engine is not reachable ({}): start it with "
                                           "`systemctl enable --now {}`",
                                           util::trim(util::tail_lines(run.output, 1)), service));
  };
  if (!run.problem.empty()) return host_engine_unreachable(run.output) ? unreachable() : fail(ErrorCode::io, run.problem);
  if (run.exit_code == 124 || run.exit_code == 137)
    return fail(ErrorCode::timeout, fmt::format("dcgmi diag -r {} did not finish within {} s (killed by timeout)", run.level,
                                                dcgm_diag_timeout_s(run.level)));
  auto report = parse_dcgm_diag(run.output);
  if (report) return report;
  if (host_engine_unreachable(run.output)) return unreachable();
  // DCGM_ST_NVVS_ERROR (exit 226): the diagnostic itself failed to run, its reason on the
  // following "Error:" line (NVIDIA/DCGM #254: "Cannot load plugins. ..."). No verdict on a GPU.
  if (contains(run.output, "Unable to complete diagnostic")) {
    std::vector<std::string> errors;
    for (const auto& line : util::split_lines(run.output))
      if (util::trim(line).starts_with("Error:")) errors.emplace_back(util::trim(line));
    return fail(ErrorCode::io, fmt::format("DCGM's diagnostic could not run (dcgmi diag -r {}, exit status {}): {}; that is "
                                           "DCGM's own failure, not the GPUs': fix its install (see nvvs.log and "
                                           "nv-hostengine.log in /var/log/nvidia-dcgm), restart {} and run it again",
                                           run.level, run.exit_code, util::join(errors, " "), service));
  }
  auto error = report.error();
  error.message = fmt::format("dcgmi diag -r {} (exit status {}): {}", run.level, run.exit_code, error.message);
  return std::unexpected(error);
}

namespace {

constexpr std::string_view k_discovery_script =
    "export LC_ALL=C\n"
    "PATH=\"$PATH:/usr/bin:/usr/local/bin:/usr/sbin\"\n"
    "command -v dcgmi >/dev/null 2>&1 || { echo '@@dcgm problem no-dcgmi'; exit 0; }\n"
    "echo '@@dcgm command dcgmi discovery -l'\n"
    "dcgmi discovery -l 2>&1\n"
    "echo \"@@dcgm rc $?\"\n";

// DCGM's ids of the requested GPUs. Where they cannot be had, `run` says why: its problem,
// and the listing as its command and output.
Result<std::vector<int>> dcgm_gpu_ids(Transport& transport, const DcgmDiagRequest& request, ObservedDcgmDiag& run) {
  auto result = transport.run("sh -s", CommandOptions{std::chrono::seconds(60), std::string(k_discovery_script), false});
  if (!result) return std::unexpected(result.error());
  auto listed = parse_dcgm_diag_run(result->out + result->err, request.level);
  if (!listed) {
    run.problem = listed.error().message;
    return std::vector<int>{};
  }
  run.command = listed->command;
  run.output = listed->output;
  run.exit_code = listed->exit_code;
  if (!listed->problem.empty()) {
    run.problem = listed->problem;
    return std::vector<int>{};
  }
  const auto gpus = parse_dcgm_discovery(listed->output);
  if (!gpus) {
    run.problem = fmt::format("{} (exit status {})", gpus.error().message, listed->exit_code);
    return std::vector<int>{};
  }
  std::vector<int> ids;
  std::vector<std::string> named;
  for (const auto& uuid : request.gpu_uuids) {
    const auto it = std::ranges::find(*gpus, uuid, &std::pair<std::string, int>::first);
    if (it == gpus->end()) {
      run.problem = fmt::format("DCGM does not list GPU {} (dcgmi discovery -l; `dcgmi discovery -l --all` shows the "
                                "GPUs it lost): check the card with nvidia-smi, then restart DCGM's host engine",
                                uuid);
      return std::vector<int>{};
    }
    ids.push_back(it->second);
    named.push_back(fmt::format("DCGM GPU {} ({})", it->second, uuid));
  }
  run.gpus = util::join(named, ", ");
  return ids;
}

}  // namespace

Result<ObservedDcgmDiag> run_dcgm_diag(Transport& transport, const DcgmDiagRequest& request) {
  const int level = request.level;
  ObservedDcgmDiag listing;
  listing.level = level;
  std::vector<int> ids;
  if (!request.gpu_uuids.empty()) {
    auto found = dcgm_gpu_ids(transport, request, listing);
    if (!found) return std::unexpected(found.error());
    if (!listing.problem.empty()) return listing;
    ids = std::move(*found);
  }
  auto result = transport.run("sh -s", CommandOptions{std::chrono::seconds(dcgm_diag_timeout_s(level) + 30),
                                                      dcgm_diag_script(level, ids), false});
  if (!result) return std::unexpected(result.error());
  auto run = parse_dcgm_diag_run(result->out + result->err, level);
  if (run) run->gpus = listing.gpus;
  return run;
}

}  // namespace gpuctl
