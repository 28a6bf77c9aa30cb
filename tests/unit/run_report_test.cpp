// `gpuctl report`'s library side: check results recorded by the run recorder (through the
// hooks, as Session::verify reports them) read back as the verify outcomes of a past run.
#include <gpuctl/api/run_recorder.hpp>
#include <gpuctl/apply/tee_hooks.hpp>
#include <gpuctl/report/run_report.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

namespace gpuctl {
namespace {

namespace fs = std::filesystem;

class RunReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "gpuctl-report-XXXXXX").string();
    ASSERT_TRUE(::mkdtemp(pattern.data()));
    m_dir = pattern;
    m_store = std::move(*state::StateStore::open(m_dir + "/state.db"));
  }
  void TearDown() override {
    m_store.reset();
    fs::remove_all(m_dir);
  }
  state::RunId begin(const std::string& command) {
    return m_store->begin_run({command, "gpuctl " + command + " c.yaml", "/c.yaml", "d", state::current_process()},
                              state::LockMode::none)
        ->id;
  }

  std::string m_dir;
  std::unique_ptr<state::StateStore> m_store;
};

CheckResult failed_gpu_count() {
  return {"gpu_count", CheckStatus::fail, "7", "8", "a GPU may have fallen off the bus", "nvidia-smi --query-gpu=index",
          "0\n1\n"};
}

TEST_F(RunReportTest, ChecksHeardThroughTheHooksComeBackAsTheRunsOutcomes) {
  const auto run = begin("verify");
  RunRecorder recorder(*m_store, run);
  TeeHooks hooks;
  hooks.add_borrowed(recorder);
  hooks.on_checks_done("gpu02", {{"nvidia_loaded", CheckStatus::pass, "loaded", "loaded", "", "", ""}, failed_gpu_count()});
  hooks.on_checks_done("gpu01", {{"nvidia_loaded", CheckStatus::pass, "loaded", "loaded", "", "", ""}});
  recorder.record_outcomes(std::vector<NodeVerifyOutcome>{
      {{"gpu03", exec::NodeStatus::unreachable, "connect: Connection refused", {}}, {}}});
  recorder.finish(state::RunStatus::failed);
  ASSERT_FALSE(recorder.first_error());

  auto report = load_run_report(*m_store, run);
  ASSERT_TRUE(report) << report.error().to_string();
  EXPECT_EQ(report->run.command, "verify");
  ASSERT_EQ(report->outcomes.size(), 3u);
  EXPECT_EQ(report->outcomes[0].outcome.node, "gpu01");
  EXPECT_EQ(report->outcomes[0].outcome.status, exec::NodeStatus::ok);
  const auto& bad = report->outcomes[1];
  EXPECT_EQ(bad.outcome.status, exec::NodeStatus::failed);
  EXPECT_EQ(bad.outcome.reason, "check gpu_count fail");
  ASSERT_EQ(bad.checks.size(), 2u);
  const auto& c = bad.checks[1];
  const auto want = failed_gpu_count();
  EXPECT_EQ(std::tie(c.name, c.status, c.observed, c.expected, c.detail, c.command, c.output),
            std::tie(want.name, want.status, want.observed, want.expected, want.detail, want.command, want.output));
  EXPECT_EQ(report->outcomes[2].outcome.status, exec::NodeStatus::unreachable);
  EXPECT_EQ(report->outcomes[2].outcome.reason, "connect: Connection refused");
}

TEST_F(RunReportTest, AnApplyReportsOnlyTheNodesItVerified) {
  const auto run = begin("apply");
  RunRecorder recorder(*m_store, run);
  recorder.on_checks_done("gpu01", {failed_gpu_count()});
  recorder.record_outcomes(std::vector<NodeVerifyOutcome>{{{"gpu02", exec::NodeStatus::changed, "", {}}, {}}});
  recorder.finish(state::RunStatus::failed);
  auto report = load_run_report(*m_store, run);
  ASSERT_TRUE(report) << report.error().to_string();
  ASSERT_EQ(report->outcomes.size(), 1u);
  EXPECT_EQ(report->outcomes[0].outcome.node, "gpu01");
}

TEST_F(RunReportTest, ARunWithoutChecksIsAClearError) {
  const auto run = begin("plan");
  const auto report = load_run_report(*m_store, run);
  ASSERT_FALSE(report);
  EXPECT_EQ(report.error().code, ErrorCode::not_found);
  EXPECT_NE(report.error().message.find("recorded no verify check results"), std::string::npos) << report.error().message;
  EXPECT_EQ(load_run_report(*m_store, run + 100).error().code, ErrorCode::not_found);
}

TEST_F(RunReportTest, LastIsTheNewestRunWithChecksAndOtherWordsAreRefused) {
  EXPECT_EQ(resolve_report_run(*m_store, "last").error().code, ErrorCode::not_found);
  const auto verified = begin("verify");
  ASSERT_TRUE(m_store->record_checks(verified, "gpu01", {{"a", "pass", "", "", "", "", ""}}));
  begin("plan");
  EXPECT_EQ(resolve_report_run(*m_store, "last").value(), verified);
  EXPECT_EQ(resolve_report_run(*m_store, "17").value(), 17);
  for (const auto* bad : {"", "lats", "-3", "0", "12x"})
    EXPECT_EQ(resolve_report_run(*m_store, bad).error().code, ErrorCode::invalid_argument) << bad;
}

TEST(UnixTimeOf, ReadsTheStoresTimestamps) {
  EXPECT_EQ(unix_time_of("1970-01-02T00:00:00Z"), 86400);
  EXPECT_EQ(unix_time_of("2025-01-02T03:04:05Z"), 1735787045);
  EXPECT_FALSE(unix_time_of("yesterday"));
}

}  // namespace
}  // namespace gpuctl
