// DCGM's diagnostic behind verify's dcgm_diag check: the parser on real captures of both
// layouts (tests/data/dcgm/README.md), the script, the run split, and the check's verdicts.
#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/verify/checks.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/dcgm_diag.hpp>
#include <gpuctl_build_paths.hpp>

#include <fmt/format.h>

#include "dcgm_test_documents.hpp"
#include "fake_transport.hpp"
#include "probe_capture.hpp"
#include "program_builder.hpp"
#include "template_test_inventory.hpp"

#include <gtest/gtest.h>

namespace gpuctl {
namespace {

using testing::dcgm3_document_around_categories;
using testing::dcgm4_document_around_test;
using testing::read_test_data;

ObservedDcgmDiag ran(std::string output, int level = 1, int exit_code = 0) {
  return ObservedDcgmDiag{level, fmt::format("dcgmi diag -r {} -j", level), exit_code, std::move(output), {}, {}};
}

TEST(DcgmDiagParser, ReadsTheReal423Gb10FailureWithItsWarningAndInfo) {
  const auto report = parse_dcgm_diag(read_test_data("dcgm/dcgm4.2.3-r1-gb10-software-fail.json"));
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->dcgm_version, "4.2.3");
  EXPECT_EQ(report->driver_version, "580.82.09");
  ASSERT_EQ(report->tests.size(), 1u);
  const auto& test = report->tests[0];
  EXPECT_EQ(test.category, "Deployment");
  EXPECT_EQ(test.name, "software");
  EXPECT_EQ(test.status(), DcgmStatus::fail);
  ASSERT_EQ(test.results.size(), 1u);
  EXPECT_EQ(test.results[0].gpu, 0);
  ASSERT_EQ(test.results[0].warnings.size(), 1u);
  EXPECT_TRUE(test.results[0].warnings[0].starts_with("Persistence Mode: Persistence mode for GPU 0 is disabled."));
  ASSERT_TRUE(test.summary);
  EXPECT_FALSE(test.summary->gpu);
  ASSERT_EQ(test.summary->info.size(), 1u);
  EXPECT_TRUE(test.summary->info[0].starts_with("Error getting the SRAM Threshold Count"));
}

TEST(DcgmDiagParser, ReadsEveryGpuOfThe4xLayout) {
  const auto report = parse_dcgm_diag(dcgm4_document_around_test("Hardware"));
  ASSERT_TRUE(report) << report.error().message;
  EXPECT_EQ(report->dcgm_version, "4.1.1");
  ASSERT_EQ(report->tests.size(), 1u);
  const auto& test = report->tests[0];
  EXPECT_EQ(test.name, "diagnostic");
  ASSERT_EQ(test.results.size(), 8u);
  for (int gpu = 0; gpu < 8; ++gpu) {
    EXPECT_EQ(test.results[gpu].gpu, gpu);
    EXPECT_EQ(test.results[gpu].status, DcgmStatus::pass);
  }
  EXPECT_EQ(test.results[0].info.size(), 3u);
  EXPECT_EQ(test.status(), DcgmStatus::pass);
}

TEST(DcgmDiagParser, Reads3xGpuIdStringsAndSkips) {
  const auto report = parse_dcgm_diag(dcgm3_document_around_categories());
  ASSERT_TRUE(report) << report.error().message;
  ASSERT_EQ(report->tests.size(), 4u);
  EXPECT_EQ(report->tests[0].category, "Integration");
  EXPECT_EQ(report->tests[0].name, "PCIe");
  EXPECT_EQ(report->tests[3].name, "EUD Test");
  for (const auto& test : report->tests) {
    EXPECT_EQ(test.status(), DcgmStatus::skip) << test.name;
    ASSERT_EQ(test.results.size(), 1u);
    EXPECT_EQ(test.results[0].gpu, 0);  // "gpu_id" : "0"
  }
}

TEST(DcgmDiagParser, NonJsonOutputIsAClearError) {
  const auto text = read_test_data("dcgm/dcgmi-no-hostengine.txt");
  const auto report = parse_dcgm_diag(text);
  ASSERT_FALSE(report);
  EXPECT_NE(report.error().message.find("dcgmi printed no JSON"), std::string::npos) << report.error().message;
  EXPECT_NE(report.error().message.find("Unable to connect to host engine"), std::string::npos);
  EXPECT_FALSE(parse_dcgm_diag("{\"DCGM Diagnostic\": {\"test_categories\": [] }"));  // truncated
  EXPECT_FALSE(parse_dcgm_diag("{\"something\": 1}"));
  // Text after the document (stderr merged into stdout) does not hide it.
  EXPECT_TRUE(parse_dcgm_diag(read_test_data("dcgm/dcgm4.2.3-r1-gb10-software-fail.json") + "a warning on stderr\n"));
  EXPECT_FALSE(parse_dcgm_diag("{\"DCGM Diagnostic\": {\"test_categories\": []}}"));  // no test: nothing proven
}

// The shape Diag::HelperDisplayFailureMessage writes with -j (no real capture found, README.md).
TEST(DcgmDiagParser, ARuntimeErrorIsTheReason) {
  const auto report = parse_dcgm_diag(
      "{\n\t\"DCGM Diagnostic\" : \n\t{\n\t\t\"runtime_error\" : \"A diag instance is already running, cannot run a new diag "
      "until the current one finishes\",\n\t\t\"version\" : \"4.2.3\"\n\t}\n}\n");
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().message, "A diag instance is already running, cannot run a new diag until the current one finishes");
}

TEST(DcgmDiagParser, AnUnknownStatusWordIsNeverAPass) {
  const auto report = parse_dcgm_diag(
      R"({"DCGM Diagnostic": {"test_categories": [{"category": "Hardware", "tests": [{"name": "memory", "results": [
          {"entity_group": "GPU", "entity_id": 0, "status": "Pass"}, {"entity_group": "GPU", "entity_id": 1, "status": "Inconclusive"}]}]}]}})");
  ASSERT_TRUE(report);
  EXPECT_EQ(report->tests[0].status(), DcgmStatus::unknown);
}

TEST(DcgmDiagScript, QuotesTheLevelBoundsTheRunAndSaysWhenDcgmiIsMissing) {
  const auto script = dcgm_diag_script(2);
  EXPECT_NE(script.find("$T dcgmi diag -r 2 -j 2>&1"), std::string::npos) << script;  // shell_quote: a bare digit
  EXPECT_NE(script.find("timeout -k 10 1200"), std::string::npos);
  EXPECT_NE(script.find("command -v dcgmi"), std::string::npos);
  EXPECT_NE(script.find("@@dcgm problem no-dcgmi"), std::string::npos);
  EXPECT_LT(dcgm_diag_timeout_s(1), dcgm_diag_timeout_s(2));
  EXPECT_LT(dcgm_diag_timeout_s(2), dcgm_diag_timeout_s(3));
}

TEST(DcgmDiagRun, SplitsMarkersAndNamesTheFixes) {
  const DcgmNames names{"datacenter-gpu-manager-4-cuda12", "nvidia-dcgm"};
  auto run = parse_dcgm_diag_run("@@dcgm problem no-dcgmi\n", 1);
  ASSERT_TRUE(run);
  auto result = dcgm_diag_result(*run, names);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::not_found);
  EXPECT_NE(result.error().message.find("install datacenter-gpu-manager-4-cuda12"), std::string::npos) << result.error().message;

  run = parse_dcgm_diag_run("@@dcgm command dcgmi diag -r 1 -j\n" + read_test_data("dcgm/dcgmi-no-hostengine.txt") + "@@dcgm rc 1\n", 1);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->exit_code, 1);
  EXPECT_EQ(run->command, "dcgmi diag -r 1 -j");
  result = dcgm_diag_result(*run, names);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("DCGM's host engine is not reachable"), std::string::npos) << result.error().message;
  EXPECT_NE(result.error().message.find("systemctl enable --now nvidia-dcgm"), std::string::npos);
  // `dcgmi diag` itself falls back to an embedded engine; its words when that fails, as
  // dcgmi/Diag.cpp writes them (no real capture, tests/data/dcgm/README.md).
  run = parse_dcgm_diag_run("@@dcgm command dcgmi diag -r 1 -j\nError: Unable to start an embedded host engine. "
                            "Host engine connection invalid/disconnected.\n@@dcgm rc 230\n", 1);
  ASSERT_TRUE(run);
  result = dcgm_diag_result(*run, names);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("DCGM's host engine is not reachable"), std::string::npos) << result.error().message;

  run = parse_dcgm_diag_run("@@dcgm command dcgmi diag -r 3 -j\n@@dcgm rc 124\n", 3);
  ASSERT_TRUE(run);
  result = dcgm_diag_result(*run, names);
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, ErrorCode::timeout);

  // dcgmi exits non-zero (226 on the GB10) when a test fails: the JSON is still the result.
  run = parse_dcgm_diag_run("@@dcgm command dcgmi diag -r 1 -j\n" + read_test_data("dcgm/dcgm4.2.3-r1-gb10-software-fail.json") +
                                "@@dcgm rc 226\n", 1);
  ASSERT_TRUE(run);
  EXPECT_TRUE(dcgm_diag_result(*run, names));

  EXPECT_FALSE(parse_dcgm_diag_run("sh: 1: Syntax error\n", 1));
  run = parse_dcgm_diag_run("@@dcgm command dcgmi diag -r 1 -j\n{\n", 1);  // cut off: no exit status
  ASSERT_TRUE(run);
  EXPECT_FALSE(run->problem.empty());
}

class DcgmDiagCheck : public ::testing::Test {
 protected:
  DcgmDiagCheck() : inventory(testing::example_inventory()), node(inventory.nodes[1]) {}

  CheckResult run() {
    const auto results = run_checks({"dcgm_diag"}, CheckInput{inventory, node, fixture.program, state, nullptr,
                                                               observed ? &*observed : nullptr});
    EXPECT_EQ(results.size(), 1u);
    return results.at(0);
  }

  Inventory inventory;
  Node& node;
  NodeState state;
  std::optional<ObservedDcgmDiag> observed;
  testing::ProgramFixture fixture{std::vector<testing::StepSpec>{}};
};

TEST_F(DcgmDiagCheck, SkippedUnlessDeclaredAndAnErrorWhenDeclaredButNotRun) {
  auto r = run();
  EXPECT_EQ(r.status, CheckStatus::skipped);
  EXPECT_EQ(r.detail, "gpu.dcgm_diag is not declared in the inventory");
  node.gpu.dcgm_diag = DcgmDiagSpec{false, 1};
  EXPECT_EQ(run().status, CheckStatus::skipped);
  node.gpu.dcgm_diag = DcgmDiagSpec{};
  r = run();
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.detail.find("did not run"), std::string::npos);
}

TEST_F(DcgmDiagCheck, TheRealGb10FailureFailsNamingTheTestGpuAndMessage) {
  node.gpu.dcgm_diag = DcgmDiagSpec{};
  observed = ran(read_test_data("dcgm/dcgm4.2.3-r1-gb10-software-fail.json"), 1, 226);
  const auto r = run();
  EXPECT_EQ(r.status, CheckStatus::fail);
  EXPECT_TRUE(r.observed.starts_with("level 1: 1 tests, 1 failed: software on GPU 0 (Persistence Mode: Persistence mode for GPU 0 "
                                     "is disabled."))
      << r.observed;
  EXPECT_TRUE(r.observed.ends_with("(DCGM 4.2.3)")) << r.observed;
  EXPECT_EQ(r.expected, "level 1: every test passes on every GPU");
  EXPECT_NE(r.detail.find("dcgmi diag -r 1"), std::string::npos) << r.detail;
  EXPECT_EQ(r.command, "dcgmi diag -r 1 -j");  // cited
  EXPECT_NE(r.output.find("\"software\""), std::string::npos);
}

TEST_F(DcgmDiagCheck, PassesOnlyWhenTestsRanAndPassed) {
  observed = ran(dcgm4_document_around_test("Hardware"), 2);  // replace-gpu's run, not declared
  auto r = run();
  EXPECT_EQ(r.status, CheckStatus::pass) << r.detail;
  EXPECT_EQ(r.observed, "level 2: 1 tests, all passed (DCGM 4.1.1)");

  // Level 2 with only the deployment checks passing proves nothing about the GPUs.
  observed = ran(dcgm4_document_around_test("Deployment"), 2);
  r = run();
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.detail.find("no hardware test"), std::string::npos) << r.detail;

  // The T400's level 3: DCGM skipped every test.
  observed = ran(dcgm3_document_around_categories(), 3);
  r = run();
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.detail.find("skipped every test"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("4 skipped: PCIe, GPU Memory, Diagnostic, EUD Test"), std::string::npos) << r.detail;
}

TEST_F(DcgmDiagCheck, ErrorsWhenDcgmCannotRun) {
  node.gpu.dcgm_diag = DcgmDiagSpec{};
  observed = ran(read_test_data("dcgm/dcgmi-no-hostengine.txt"), 1, 1);
  auto r = run();
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.detail.find("host engine is not reachable"), std::string::npos) << r.detail;
  observed = ObservedDcgmDiag{1, {}, -1, {}, "dcgmi is not on the node's PATH", {}};
  r = run();
  EXPECT_EQ(r.status, CheckStatus::error);
  EXPECT_NE(r.detail.find("install"), std::string::npos) << r.detail;
  observed = ran("{ not json", 1, 0);
  EXPECT_EQ(run().status, CheckStatus::error);
}

// Issue #34: DCGM's own failure is no verdict on the GPU, never an RMA. The message is the real
// one of NVIDIA/DCGM #254 (tests/data/dcgm/dcgm4.4.1-r2-pcie-internal-error.txt, the table view
// unwrapped), put in the 4.x JSON layout of the real GB10 document as the pcie test's warning.
TEST_F(DcgmDiagCheck, DcgmsInternalErrorSaysTheDiagCouldNotRunNotRma) {
  node.gpu.dcgm_diag = DcgmDiagSpec{true, 2};
  const std::string message =
      "There was an internal error during the test: 'A child process (2378806) exited with non-zero status 1' Check DCGM "
      "and system logs for errors. Reset GPU. Restart DCGM. Rerun diagnostics.";
  // The capture's wrapped cells, rejoined, are exactly this message.
  std::string cells;
  for (const auto& line : util::split_lines(read_test_data("dcgm/dcgm4.4.1-r2-pcie-internal-error.txt"))) {
    if (!line.starts_with("| Warning") && !line.starts_with("|          ")) continue;
    const auto second = line.find('|', 1);
    cells += std::string(util::trim(line.substr(second + 1, line.rfind('|') - second - 1)));
    if (cells.ends_with(":")) cells += " ";  // DCGM wraps there at a space, elsewhere mid-word
  }
  EXPECT_EQ(cells, message);
  const auto pcie = R"({"DCGM Diagnostic": {"test_categories": [{"category": "Integration", "tests": [{"name": "pcie",
      "results": [{"entity_group": "GPU", "entity_group_id": 1, "entity_id": 0, "status": "Fail", "warnings": [
      {"error_category": 8, "error_id": 44, "error_severity": 1, "warning": ")" + message + R"("}]}],
      "test_summary": {"status": "Fail"}}]}]}, "metadata": {"version": "4.4.1"}})";
  observed = ran(pcie, 2, 226);
  const auto r = run();
  EXPECT_EQ(r.status, CheckStatus::error) << r.detail;
  EXPECT_NE(r.detail.find("DCGM could not run pcie on GPU 0"), std::string::npos) << r.detail;
  EXPECT_NE(r.detail.find("its own error, not the GPU's"), std::string::npos) << r.detail;
  EXPECT_EQ(r.detail.find("RMA"), std::string::npos) << r.detail;

  // dcgmi unable to start the diagnostic at all (exit 226): the reason, no verdict.
  observed = ran(read_test_data("dcgm/dcgmi-4.4.1-unable-to-complete.txt"), 3, 226);
  const auto start = run();
  EXPECT_EQ(start.status, CheckStatus::error);
  EXPECT_NE(start.detail.find("DCGM's diagnostic could not run (dcgmi diag -r 3, exit status 226): Error: Unable to "
                              "complete diagnostic"),
            std::string::npos)
      << start.detail;
  EXPECT_NE(start.detail.find("Cannot load plugins"), std::string::npos) << start.detail;
}

TEST(DcgmDiscovery, MapsUuidsToDcgmIdsInTheRealTableOfAnEightGpuH800) {
  const auto gpus = parse_dcgm_discovery(read_test_data("dcgm/dcgmi-discovery-h800-table.txt"));
  ASSERT_TRUE(gpus) << gpus.error().message;
  ASSERT_EQ(gpus->size(), 8u);
  EXPECT_EQ((*gpus)[0], (std::pair<std::string, int>{"GPU-34bf77d1-c686-6821-79a8-32d326c5039c", 0}));
  EXPECT_EQ((*gpus)[5], (std::pair<std::string, int>{"GPU-9a8ef0b8-9816-459d-fa13-cda74cf19d37", 5}));
  EXPECT_EQ((*gpus)[7], (std::pair<std::string, int>{"GPU-474d838c-171f-d249-4f45-bbc01a8eb74a", 7}));
}

TEST(DcgmDiscovery, ReadsTheLaterPlainListLayoutAndStopsBeforeOtherEntities) {
  const auto gpus = parse_dcgm_discovery(read_test_data("dcgm/dcgmi-discovery-4.4-list.txt"));
  ASSERT_TRUE(gpus) << gpus.error().message;
  ASSERT_EQ(gpus->size(), 4u);
  EXPECT_EQ((*gpus)[3], (std::pair<std::string, int>{"GPU-893e8405-030d-31eb-a44e-982d4d646a22", 3}));
}

TEST(DcgmDiscovery, NoGpuListedIsAnErrorQuotingDcgmi) {
  const auto gpus = parse_dcgm_discovery(read_test_data("dcgm/dcgmi-no-hostengine.txt"));
  ASSERT_FALSE(gpus);
  EXPECT_NE(gpus.error().message.find("Error:"), std::string::npos) << gpus.error().message;
  // A UUID line with no id before it (a truncated table) names no GPU.
  EXPECT_FALSE(parse_dcgm_discovery("|        | Device UUID: GPU-34bf77d1-c686-6821-79a8-32d326c5039c |\n"));
}

std::string marked(std::string_view command, std::string_view output, int rc) {
  return fmt::format("@@dcgm command {}\n{}@@dcgm rc {}\n", command, output, rc);
}

TEST(DcgmDiagRun, ReplaceGpuRunsOnlyTheNewCardByItsDcgmId) {
  testing::FakeTransport node;
  node.on_command("dcgmi discovery -l", {0, marked("dcgmi discovery -l", read_test_data("dcgm/dcgmi-discovery-h800-table.txt"), 0), "", {}});
  // Answered only when the diagnostic is limited to DCGM's GPU 5: anything else is "not found".
  node.on_command("dcgmi diag -r 2 -i 5 -j",
                  {0, marked("dcgmi diag -r 2 -i 5 -j", read_test_data("dcgm/dcgm4.2.3-r1-gb10-software-fail.json"), 226), "", {}});
  const auto run = run_dcgm_diag(node, {2, {"GPU-9a8ef0b8-9816-459d-fa13-cda74cf19d37"}});
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_EQ(run->problem, "");
  EXPECT_EQ(run->exit_code, 226);
  EXPECT_EQ(run->gpus, "DCGM GPU 5 (GPU-9a8ef0b8-9816-459d-fa13-cda74cf19d37)");
  EXPECT_EQ(node.commands.size(), 2u);

  // No GPU named: one run over every GPU, no -i, no listing.
  node.on_command("dcgmi diag -r 2 -j", {0, marked("dcgmi diag -r 2 -j", "{}", 0), "", {}});
  const auto all = run_dcgm_diag(node, {2, {}});
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(all->command, "dcgmi diag -r 2 -j");
  EXPECT_EQ(all->gpus, "");
  EXPECT_EQ(node.commands.size(), 3u);
}

TEST(DcgmDiagRun, ACardDcgmDoesNotListIsTheRunsProblemNeverAPass) {
  testing::FakeTransport node;
  node.on_command("dcgmi discovery -l", {0, marked("dcgmi discovery -l", read_test_data("dcgm/dcgmi-discovery-4.4-list.txt"), 0), "", {}});
  const auto run = run_dcgm_diag(node, {2, {"GPU-00000000-0000-0000-0000-000000000000"}});
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_NE(run->problem.find("DCGM does not list GPU GPU-00000000-0000-0000-0000-000000000000"), std::string::npos) << run->problem;
  EXPECT_EQ(node.commands.size(), 1u);  // no diagnostic run on the wrong GPUs
  EXPECT_FALSE(dcgm_diag_result(*run, {}));

  testing::FakeTransport down;  // no host engine: dcgmi's own words, and the service to start
  down.on_command("dcgmi discovery -l", {0, marked("dcgmi discovery -l", read_test_data("dcgm/dcgmi-no-hostengine.txt"), 255), "", {}});
  const auto unreachable = run_dcgm_diag(down, {2, {"GPU-9a8ef0b8-9816-459d-fa13-cda74cf19d37"}});
  ASSERT_TRUE(unreachable);
  const auto result = dcgm_diag_result(*unreachable, {"datacenter-gpu-manager-4-cuda12", "nvidia-dcgm"});
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message.find("host engine is not reachable"), std::string::npos) << result.error().message;
  EXPECT_NE(result.error().message.find("systemctl enable --now nvidia-dcgm"), std::string::npos);
}

TEST(DcgmDiagInventory, DeclaredKeyByKeyWithReplaceGpuOnItsOwn) {
  const auto result = load_inventory(std::string(GPUCTL_TEST_DATA_DIR) + "/inventories/good/dcgm-diag.yaml");
  ASSERT_TRUE(result.inventory) << result.diagnostics.size();
  const auto* gpu01 = result.inventory->find_node("gpu01");
  const auto* gpu02 = result.inventory->find_node("gpu02");
  const auto* gpu04 = result.inventory->find_node("gpu04");
  ASSERT_TRUE(gpu01 && gpu02 && gpu04);
  ASSERT_TRUE(gpu01->gpu.dcgm_diag);
  EXPECT_TRUE(gpu01->gpu.dcgm_diag->enabled);
  EXPECT_EQ(gpu01->gpu.dcgm_diag->level, 2);
  EXPECT_EQ(gpu01->gpu.replace_gpu_diag_level, 2);
  ASSERT_TRUE(gpu02->gpu.dcgm_diag);
  EXPECT_FALSE(gpu02->gpu.dcgm_diag->enabled);
  EXPECT_EQ(gpu02->gpu.dcgm_diag->level, 2);
  EXPECT_FALSE(gpu04->gpu.dcgm_diag);  // replace_gpu_level alone does not turn on verify's run
  EXPECT_EQ(gpu04->gpu.replace_gpu_diag_level, 0);
}

}  // namespace
}  // namespace gpuctl
