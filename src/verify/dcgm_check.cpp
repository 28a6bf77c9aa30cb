// verify's dcgm_diag check: every test of DCGM's diagnostic passed, on every GPU.
#include "check_result.hpp"
#include "check_sources.hpp"

#include <gpuctl/facts/collect.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/catalog.hpp>
#include <gpuctl/verify/dcgm_diag.hpp>

#include <algorithm>
#include <fmt/format.h>

namespace gpuctl::verify_detail {
namespace {

// "memory on GPU 3 (message)", or the test's own message when no GPU is named.
std::string describe(const DcgmTestResult& test, DcgmStatus status) {
  std::vector<std::string> gpus, messages;
  for (const auto& result : test.results) {
    if (result.status != status) continue;
    if (result.gpu) gpus.push_back(std::to_string(*result.gpu));
    for (const auto& warning : result.warnings)
      if (std::ranges::find(messages, warning) == messages.end()) messages.push_back(warning);
  }
  if (messages.empty() && test.summary)
    for (const auto& warning : test.summary->warnings) messages.push_back(warning);
  auto text = test.name;
  if (!gpus.empty()) text += fmt::format(" on GPU {}", util::join(gpus, ", "));
  if (status == DcgmStatus::unknown) {
    for (const auto& result : test.results)
      if (result.status == DcgmStatus::unknown) return fmt::format("{} (status '{}')", text, result.status_text);
    if (test.summary) return fmt::format("{} (status '{}')", text, test.summary->status_text);
    return text + " (no result)";
  }
  if (!messages.empty()) text += fmt::format(" ({})", util::join(messages, "; "));
  return text;
}

// DCGM_FR_INTERNAL's text (dcgmlib/dcgm_errors.h): the diagnostic's own machinery failed (a
// plugin's helper process, say: NVIDIA/DCGM #254), which says nothing of the GPU.
constexpr std::string_view k_dcgm_internal = "There was an internal error during the test";

bool internal_error(const std::string& message) { return message.starts_with(k_dcgm_internal); }

// A failing test whose every failing result says only that DCGM itself failed. A failing
// test_summary without a message of its own (4.x writes them so) only echoes its results.
bool failed_internally(const DcgmTestResult& test) {
  bool internal = false, other = false;
  const auto judge = [&](const DcgmGpuResult& result, bool summary) {
    if (result.status != DcgmStatus::fail) return;
    if (result.warnings.empty()) other = other || !summary;
    else if (std::ranges::all_of(result.warnings, internal_error)) internal = true;
    else other = true;
  };
  for (const auto& result : test.results) judge(result, false);
  if (test.summary) judge(*test.summary, true);
  return internal && !other;
}

}  // namespace

CheckResult check_dcgm_diag(const CheckInput& in) {
  const auto& spec = in.node.gpu.dcgm_diag;
  if (!in.dcgm_diag) {
    if (!spec) return skipped("gpu.dcgm_diag is not declared in the inventory");
    if (!spec->enabled) return skipped("gpu.dcgm_diag.enabled is false in the inventory");
    return cannot_run("DCGM's diagnostic did not run on the node (verify runs it)");
  }
  const int level = in.dcgm_diag->level;
  const auto expected = in.dcgm_diag->gpus.empty()
                            ? fmt::format("level {}: every test passes on every GPU", level)
                            : fmt::format("level {}: every test passes on {}", level, in.dcgm_diag->gpus);
  const DcgmNames names{in.inventory.cluster.packages.package("dcgm"), in.inventory.cluster.packages.service("dcgm")};
  const auto report = dcgm_diag_result(*in.dcgm_diag, names);
  if (!report) return cannot_run(report.error().message);

  std::vector<std::string> failing, warning, unknown, skipped_tests, not_run;
  bool hardware_passed = false;  // a test outside Deployment (the software checks) passed
  int passed = 0;
  for (const auto& test : report->tests) {
    switch (test.status()) {
      case DcgmStatus::fail:
        (failed_internally(test) ? not_run : failing).push_back(describe(test, DcgmStatus::fail));
        break;
      case DcgmStatus::warn: warning.push_back(describe(test, DcgmStatus::warn)); break;
      case DcgmStatus::unknown: unknown.push_back(describe(test, DcgmStatus::unknown)); break;
      case DcgmStatus::skip: skipped_tests.push_back(test.name); break;
      case DcgmStatus::pass:
        ++passed;
        hardware_passed = hardware_passed || test.category != "Deployment";
        break;
    }
  }
  const auto total = report->tests.size();
  auto observed = fmt::format("level {}: {} tests", level, total);
  if (!failing.empty()) observed += fmt::format(", {} failed: {}", failing.size(), util::join(failing, "; "));
  if (!not_run.empty()) observed += fmt::format(", {} could not run (DCGM's internal error)", not_run.size());
  if (!warning.empty()) observed += fmt::format(", {} warned: {}", warning.size(), util::join(warning, "; "));
  if (!skipped_tests.empty()) observed += fmt::format(", {} skipped: {}", skipped_tests.size(), util::join(skipped_tests, ", "));
  if (failing.empty() && warning.empty() && skipped_tests.empty() && not_run.empty()) observed += ", all passed";
  if (!report->dcgm_version.empty()) observed += fmt::format(" (DCGM {})", report->dcgm_version);

  const auto also_unknown = unknown.empty() ? std::string{} : fmt::format("; also unknown: {}", util::join(unknown, "; "));
  // A failing or warning test is DCGM's verdict on the node; DCGM's own message above says which
  // fix (a setting such as persistence mode, or the card itself).
  // A test DCGM could not run (its own error) is no verdict on the card: never an RMA.
  const auto could_not_run =
      not_run.empty() ? std::string{}
                      : fmt::format("DCGM could not run {}: its own error, not the GPU's; see nvvs.log and nv-hostengine.log "
                                    "in /var/log/nvidia-dcgm (a missing plugin or CUDA support package of DCGM's, say), "
                                    "restart DCGM (systemctl restart {}) and run `dcgmi diag -r {}` again",
                                    util::join(not_run, "; "), names.service.empty() ? "nvidia-dcgm" : names.service, level);
  if (!failing.empty() || !warning.empty())
    return failed(observed, expected,
                  fmt::format("DCGM's diagnostic found a problem: fix what its message names, or for a hardware test drain the "
                              "node, reset the GPU (nvidia-smi -r) or reboot and run `dcgmi diag -r {}` again; a card that keeps "
                              "failing goes to NVIDIA's field diagnostic and RMA{}{}",
                              level, also_unknown, could_not_run.empty() ? "" : "; also: " + could_not_run));
  if (!not_run.empty()) return cannot_run(fmt::format("{}: {}", observed, could_not_run));
  if (!unknown.empty())
    return cannot_run(fmt::format("{}: dcgmi gave a status gpuctl does not know: {} (an unknown result is never a pass)",
                                  observed, util::join(unknown, "; ")));
  if (passed == 0)
    return cannot_run(fmt::format("{}: DCGM skipped every test, nothing was proven (see `dcgmi diag -r {}` and nvvs.log "
                                  "in /var/log/nvidia-dcgm)", observed, level));
  // Levels 2 and 3 are asked for to exercise the GPUs; only the software checks passing is not that.
  if (level >= 2 && !hardware_passed)
    return cannot_run(fmt::format("{}: only the deployment (software) checks passed, DCGM ran no hardware test at level {}",
                                  observed, level));
  auto result = pass(observed, expected);
  if (!skipped_tests.empty())
    result.detail = fmt::format("DCGM skipped {} (not judged)", util::join(skipped_tests, ", "));
  return result;
}

namespace {

// What ran on the node and what it printed; why it could not run where it did not.
void cite_dcgm_run(CheckResult& result, const CheckInput& in) {
  cite_node_run(result, in.dcgm_diag, "DCGM's diagnostic",
                fmt::format("dcgmi diag -r {} -j", in.dcgm_diag ? in.dcgm_diag->level : 0));
}

const CheckRegistration k_dcgm{{
    .name = "dcgm_diag",
    .description = "DCGM's diagnostic (dcgmi diag -r gpu.dcgm_diag.level) passes every test on every GPU",
    .section = CheckSection::health,
    .runner = NodeRunner::dcgm_diag,
    .judge = check_dcgm_diag,
    .cite = cite_dcgm_run,
    .source = "dcgmi diag -r LEVEL -j",
}};

}  // namespace
}  // namespace gpuctl::verify_detail
