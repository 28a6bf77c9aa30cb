// The run recorder (api/run_recorder.hpp) writing into a real state database, the hooks
// fan-out, and the history views (report/history.hpp) of what was recorded.
#include <gpuctl/api/run_recorder.hpp>
#include <gpuctl/apply/tee_hooks.hpp>
#include <gpuctl/report/history.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <thread>
#include <unistd.h>

namespace gpuctl {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

class RecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "gpuctl-recorder-XXXXXX").string();
    ASSERT_TRUE(::mkdtemp(pattern.data()));
    m_dir = pattern;
    auto store = state::StateStore::open(m_dir + "/state.db");
    ASSERT_TRUE(store) << store.error().to_string();
    m_store = std::move(*store);
  }
  void TearDown() override {
    m_store.reset();
    fs::remove_all(m_dir);
  }
  state::RunId begin() {
    auto run = m_store->begin_run({"apply", "gpuctl apply c.yaml", "/c.yaml", "d", state::current_process()},
                                  state::LockMode::exclusive);
    EXPECT_TRUE(run) << run.error().to_string();
    return run ? run->id : 0;
  }

  std::string m_dir;
  std::unique_ptr<state::StateStore> m_store;
};

TEST_F(RecorderTest, ConcurrentStepWritesFromThreadsAllLand) {
  const auto run = begin();
  RunRecorder recorder(*m_store, run);
  constexpr int k_threads = 8;
  constexpr int k_steps = 40;
  std::vector<std::thread> threads;
  for (int t = 0; t < k_threads; ++t)
    threads.emplace_back([&, t] {
      const auto node = "gpu" + std::to_string(t);
      for (int s = 0; s < k_steps; ++s) {
        const auto step = "step" + std::to_string(s);
        recorder.on_step_start(node, step);
        recorder.on_step_done(node, step, s % 2 ? StepStatus::changed : StepStatus::ok, std::chrono::milliseconds(s));
      }
    });
  for (auto& thread : threads) thread.join();
  recorder.finish(state::RunStatus::ok);
  EXPECT_FALSE(recorder.first_error()) << recorder.first_error()->to_string();
  const auto steps = *m_store->steps(run);
  ASSERT_EQ(steps.size(), static_cast<std::size_t>(k_threads * k_steps));
  for (const auto& step : steps) {
    EXPECT_TRUE(step.status == "ok" || step.status == "changed") << step.node << " " << step.step << " " << step.status;
    EXPECT_EQ(step.step, "step" + std::to_string(step.duration_ms));
  }
  EXPECT_EQ(m_store->get_run(run)->status, state::RunStatus::ok);
}

TEST_F(RecorderTest, FailedNodeErrorLandsOnItsFailingStep) {
  const auto run = begin();
  RunRecorder recorder(*m_store, run);
  recorder.on_step_start("gpu01", "driver");
  recorder.on_step_done("gpu01", "driver", StepStatus::failed, 3s);
  recorder.on_step_done("gpu01", "cuda", StepStatus::skipped, 0ms);   // never started
  NodeApplyOutcome failed;
  failed.outcome = {"gpu01", exec::NodeStatus::failed, "step 'driver': apt-get exited 100", 3s};
  failed.result.failed = true;
  failed.result.failed_step = "driver";
  failed.result.error = "apt-get exited 100";
  NodeApplyOutcome fine;
  fine.outcome = {"gpu02", exec::NodeStatus::changed, "", 2s};
  recorder.record_outcomes(std::vector{failed, fine});
  recorder.finish(state::RunStatus::failed);

  const auto steps = *m_store->steps(run, "gpu01");
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].step, "driver");
  EXPECT_EQ(steps[0].status, "failed");
  EXPECT_EQ(steps[0].duration_ms, 3000);
  EXPECT_EQ(steps[0].error, "apt-get exited 100");
  EXPECT_EQ(steps[1].status, "skipped");
  const auto nodes = *m_store->node_results(run);
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[0].status, "failed");
  EXPECT_EQ(nodes[1].status, "changed");
}

TEST_F(RecorderTest, RunNotFinishedExplicitlyEndsAsFailedAndReleasesTheLock) {
  const auto run = begin();
  { RunRecorder recorder(*m_store, run); }
  EXPECT_EQ(m_store->get_run(run)->status, state::RunStatus::failed);
  EXPECT_FALSE(*m_store->lock_holder("/c.yaml"));
}

TEST_F(RecorderTest, FactsSnapshotFeedsTheGpuSlotHistory) {
  const auto run = begin();
  RunRecorder recorder(*m_store, run);
  NodeFacts facts;
  facts.node = "gpu01";
  GpuInfo gpu;
  gpu.index = 0;
  gpu.serial = "1650724012345";
  gpu.uuid = "GPU-0123";
  gpu.pci_bus_id = "00000000:18:00.0";
  facts.gpus = Fact<std::vector<GpuInfo>>::of({gpu});
  recorder.record_facts(facts);
  recorder.finish(state::RunStatus::ok);
  const auto snapshots = *m_store->facts_snapshots(run);
  ASSERT_EQ(snapshots.size(), 1u);
  const auto json = nlohmann::json::parse(snapshots[0].facts_json);
  EXPECT_EQ(json["gpus"][0]["serial"], "1650724012345");
  const auto slots = *m_store->gpu_slot_history("gpu01");
  ASSERT_EQ(slots.size(), 1u);
  EXPECT_EQ(slots[0].uuid, "GPU-0123");
}

TEST(RunStatusFor, InterruptedWinsThenAnyBadNodeFails) {
  const std::vector<exec::NodeOutcome> good{{"a", exec::NodeStatus::ok, "", 0ms}, {"b", exec::NodeStatus::changed, "", 0ms}};
  auto bad = good;
  bad.push_back({"c", exec::NodeStatus::unreachable, "timeout", 0ms});
  EXPECT_EQ(run_status_for(good, false), state::RunStatus::ok);
  EXPECT_EQ(run_status_for(bad, false), state::RunStatus::failed);
  EXPECT_EQ(run_status_for(good, true), state::RunStatus::interrupted);
}

struct CountingHooks : RunHooks {
  int* starts;
  explicit CountingHooks(int* counter) : starts(counter) {}
  void on_step_start(const std::string&, const std::string&) override { ++*starts; }
};

TEST(TeeHooks, OwnedAndBorrowedListenersHearEveryEvent) {
  int first = 0, second = 0;
  CountingHooks borrowed(&second);
  TeeHooks hooks;
  hooks.add(std::make_unique<CountingHooks>(&first));
  hooks.add_borrowed(borrowed);
  hooks.on_step_start("gpu01", "driver");
  hooks.on_step_start("gpu02", "driver");
  EXPECT_EQ(first, 2);
  EXPECT_EQ(second, 2);
}

TEST_F(RecorderTest, HistoryShowsRunsStepsAndSlots) {
  const auto run = begin();
  RunRecorder recorder(*m_store, run);
  recorder.on_step_start("gpu01", "driver");
  recorder.on_step_done("gpu01", "driver", StepStatus::changed, 1500ms);
  recorder.record_outcomes(std::vector{NodeApplyOutcome{{"gpu01", exec::NodeStatus::changed, "", 2s}, {}}});
  recorder.finish(state::RunStatus::ok);

  auto history = load_history(*m_store, {"gpu01", 10});
  ASSERT_TRUE(history) << history.error().to_string();
  const auto text = render_history_text(*history);
  EXPECT_NE(text.find(std::to_string(run)), std::string::npos) << text;
  EXPECT_NE(text.find("1 changed"), std::string::npos) << text;
  EXPECT_NE(text.find("driver"), std::string::npos) << text;
  const auto json = nlohmann::json::parse(history_to_json(*history));
  EXPECT_EQ(json["format_version"], 1);
  EXPECT_EQ(json["runs"][0]["id"], run);
  EXPECT_EQ(json["runs"][0]["steps"][0]["duration_ms"], 1500);

  auto shown = load_run(*m_store, run);
  ASSERT_TRUE(shown);
  const auto details = render_run_text(*shown);
  EXPECT_NE(details.find("Run " + std::to_string(run) + ": apply ok"), std::string::npos) << details;
  EXPECT_NE(details.find("gpuctl apply c.yaml"), std::string::npos) << details;
  EXPECT_EQ(nlohmann::json::parse(run_to_json(*shown))["status"], "ok");

  auto empty = load_history(*m_store, {"gpu99", 10});
  EXPECT_EQ(render_history_text(*empty), "No runs recorded for gpu99.\n");
}

}  // namespace
}  // namespace gpuctl
