// The SQLite state store (state/state_store.hpp) against a real database in a temp directory:
// schema migrations, file permissions, the inventory lock between two stores, dead-holder
// takeover, step and GPU slot records.
#include <gpuctl/state/state_store.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gpuctl::state {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "gpuctl-state-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
  }
  ~TempDir() { fs::remove_all(m_path); }
  const std::string& path() const { return m_path; }

 private:
  std::string m_path;
};

std::unique_ptr<StateStore> open_store(const std::string& path, StoreOptions options = {}) {
  auto store = StateStore::open(path, std::move(options));
  if (!store) throw std::runtime_error(store.error().to_string());
  return std::move(*store);
}

NewRun new_run(const std::string& inventory, ProcessIdentity process = current_process()) {
  return NewRun{"apply", "gpuctl apply " + inventory + " --yes", inventory, "digest", std::move(process)};
}

// A pid that surely names no process: a child that has exited and been reaped.
int dead_pid() {
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

unsigned mode_of(const std::string& path) {
  struct stat st {};
  ::stat(path.c_str(), &st);
  return st.st_mode & 0777;
}

TEST(StateStore, MigratesAnEmptyFileToTheNewestSchema) {
  TempDir dir;
  const auto path = dir.path() + "/state.db";
  std::ofstream(path).close();   // an empty file, as a crashed first start would leave
  ::chmod(path.c_str(), 0600);
  auto store = open_store(path);
  EXPECT_EQ(store->schema_version(), 2);
  EXPECT_EQ(static_cast<int>(builtin_migrations().size()), 2);
  auto started = store->begin_run(new_run("/inv.yaml"), LockMode::exclusive);
  ASSERT_TRUE(started) << started.error().to_string();
  EXPECT_GT(started->id, 0);
}

TEST(StateStore, CreatesAPrivateDirectoryAndFile) {
  TempDir dir;
  const auto path = dir.path() + "/a/b/state.db";
  auto store = open_store(path);
  EXPECT_EQ(mode_of(path), 0600u);
  EXPECT_EQ(mode_of(dir.path() + "/a/b"), 0700u);
  EXPECT_EQ(mode_of(dir.path() + "/a"), 0700u);
}

TEST(StateStore, RefusesALooseFileAndChangesNothing) {
  TempDir dir;
  const auto sub = dir.path() + "/state";
  fs::create_directory(sub);
  ::chmod(sub.c_str(), 0755);   // readable by others: allowed for the directory
  const auto path = sub + "/state.db";
  std::ofstream(path).close();
  ::chmod(path.c_str(), 0644);
  auto store = StateStore::open(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::validation);
  EXPECT_NE(store.error().hint.find("chmod 600 " + path), std::string::npos) << store.error().to_string();
  EXPECT_EQ(mode_of(path), 0644u);
  EXPECT_EQ(mode_of(sub), 0755u);
}

TEST(StateStore, UpgradesAnOlderSchemaWithTheNextMigration) {
  TempDir dir;
  const auto path = dir.path() + "/state.db";
  { open_store(path); }
  StoreOptions v2;
  v2.migrations.push_back("ALTER TABLE runs ADD COLUMN note TEXT NOT NULL DEFAULT ''");
  auto store = open_store(path, v2);
  EXPECT_EQ(store->schema_version(), 3);
  // The v1 data path still works on the upgraded schema.
  auto started = store->begin_run(new_run("/inv.yaml"), LockMode::none);
  ASSERT_TRUE(started) << started.error().to_string();
  EXPECT_TRUE(store->get_run(started->id));
}

TEST(StateStore, RefusesASchemaNewerThanItKnows) {
  TempDir dir;
  const auto path = dir.path() + "/state.db";
  {
    StoreOptions v2;
    v2.migrations.push_back("CREATE TABLE later (x INTEGER)");
    open_store(path, v2);
  }
  auto store = StateStore::open(path);
  ASSERT_FALSE(store);
  EXPECT_NE(store.error().message.find("schema version 3 is newer"), std::string::npos) << store.error().message;
}

TEST(StateStore, RefusesAFileThatIsNotADatabase) {
  TempDir dir;
  const auto path = dir.path() + "/state.db";
  std::ofstream(path) << "this is not SQLite, but it is long enough to look like a header of a file......";
  ::chmod(path.c_str(), 0600);
  auto store = StateStore::open(path);
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code, ErrorCode::io);
  EXPECT_NE(store.error().hint.find("--state"), std::string::npos) << store.error().to_string();
}

TEST(StateLock, SecondStoreFailsFastNamingTheHolder) {
  TempDir dir;
  const auto path = dir.path() + "/state.db";
  auto first = open_store(path);
  auto second = open_store(path);
  auto held = first->begin_run(new_run("/site/cluster.yaml"), LockMode::exclusive);
  ASSERT_TRUE(held) << held.error().to_string();

  auto refused = second->begin_run(new_run("/site/cluster.yaml"), LockMode::exclusive);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::locked);
  const auto& message = refused.error().message;
  EXPECT_NE(message.find("run " + std::to_string(held->id)), std::string::npos) << message;
  EXPECT_NE(message.find("pid " + std::to_string(::getpid())), std::string::npos) << message;
  EXPECT_NE(message.find(current_process().host), std::string::npos) << message;
  EXPECT_NE(message.find("since "), std::string::npos) << message;

  // Another inventory is not locked; a run without a lock never is.
  EXPECT_TRUE(second->begin_run(new_run("/site/other.yaml"), LockMode::exclusive));
  EXPECT_TRUE(second->begin_run(new_run("/site/cluster.yaml"), LockMode::none));

  ASSERT_TRUE(first->finish_run(held->id, RunStatus::ok));
  auto after = second->begin_run(new_run("/site/cluster.yaml"), LockMode::exclusive);
  EXPECT_TRUE(after) << after.error().to_string();
}

TEST(StateLock, DeadHolderIsAbandonedAndTheLockTakenOver) {
  TempDir dir;
  const auto path = dir.path() + "/state.db";
  auto store = open_store(path);
  auto ghost_process = current_process();
  ghost_process.pid = dead_pid();
  auto ghost = store->begin_run(new_run("/inv.yaml", ghost_process), LockMode::exclusive);
  ASSERT_TRUE(ghost) << ghost.error().to_string();
  auto step = store->start_step(ghost->id, "gpu01", "driver");
  ASSERT_TRUE(step);

  auto other = open_store(path);
  auto taken = other->begin_run(new_run("/inv.yaml"), LockMode::exclusive);
  ASSERT_TRUE(taken) << taken.error().to_string();
  ASSERT_EQ(taken->abandoned.size(), 1u);
  EXPECT_EQ(taken->abandoned[0].id, ghost->id);
  EXPECT_EQ(other->get_run(ghost->id)->status, RunStatus::abandoned);
  EXPECT_FALSE(other->get_run(ghost->id)->finished.empty());
  EXPECT_EQ(other->steps(ghost->id)->at(0).status, "abandoned");
  EXPECT_EQ((*other->lock_holder("/inv.yaml"))->id, taken->id);
}

TEST(StateLock, ReusedPidIsNotTheHolder) {
  TempDir dir;
  auto store = open_store(dir.path() + "/state.db");
  auto before_reboot = current_process();   // same pid, but a process tag of another boot
  before_reboot.process_tag = "00000000-0000-0000-0000-000000000000:42";
  ASSERT_TRUE(store->begin_run(new_run("/inv.yaml", before_reboot), LockMode::exclusive));
  auto taken = store->begin_run(new_run("/inv.yaml"), LockMode::exclusive);
  ASSERT_TRUE(taken) << taken.error().to_string();
  EXPECT_EQ(taken->abandoned.size(), 1u);
}

TEST(StateLock, HolderOnAnotherHostIsAssumedAlive) {
  TempDir dir;
  auto store = open_store(dir.path() + "/state.db");
  ProcessIdentity remote{"alice@elsewhere", "elsewhere.invalid", dead_pid(), ""};
  ASSERT_TRUE(store->begin_run(new_run("/inv.yaml", remote), LockMode::exclusive));
  auto refused = store->begin_run(new_run("/inv.yaml"), LockMode::exclusive);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("elsewhere.invalid"), std::string::npos) << refused.error().message;
}

TEST(ProcessIdentity, ThisProcessIsAliveAndAReapedChildIsNot) {
  auto me = current_process();
  EXPECT_FALSE(me.process_tag.empty());
  EXPECT_NE(me.who.find('@'), std::string::npos) << me.who;
  EXPECT_TRUE(process_alive(me));
  me.pid = dead_pid();
  EXPECT_FALSE(process_alive(me));
}

TEST(StateStore, FinishingReleasesTheLockAndEndsRunningSteps) {
  TempDir dir;
  auto store = open_store(dir.path() + "/state.db");
  auto run = store->begin_run(new_run("/inv.yaml"), LockMode::exclusive);
  ASSERT_TRUE(run);
  auto done = store->start_step(run->id, "gpu01", "nouveau");
  auto cut = store->start_step(run->id, "gpu01", "driver");
  ASSERT_TRUE(done && cut);
  ASSERT_TRUE(store->finish_step(*done, "changed", 1200));
  ASSERT_TRUE(store->finish_run(run->id, RunStatus::interrupted));
  EXPECT_FALSE(*store->lock_holder("/inv.yaml"));
  const auto steps = *store->steps(run->id);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].status, "changed");
  EXPECT_EQ(steps[0].duration_ms, 1200);
  EXPECT_EQ(steps[1].status, "interrupted");
  // A second finish does not rewrite the first.
  ASSERT_TRUE(store->finish_run(run->id, RunStatus::ok));
  EXPECT_EQ(store->get_run(run->id)->status, RunStatus::interrupted);
}

TEST(StateStore, UnknownRunIsNotFound) {
  TempDir dir;
  auto store = open_store(dir.path() + "/state.db");
  auto run = store->get_run(99);
  ASSERT_FALSE(run);
  EXPECT_EQ(run.error().code, ErrorCode::not_found);
}

TEST(GpuSlots, ANewSerialInASlotStartsANewTenure) {
  TempDir dir;
  auto store = open_store(dir.path() + "/state.db");
  auto run = *store->begin_run(new_run("/inv.yaml"), LockMode::none);
  const GpuObservation old_card{0, "1650123456789", "GPU-aaaa", "00000000:18:00.0"};
  const GpuObservation other{1, "1650999999999", "GPU-bbbb", "00000000:2A:00.0"};
  const GpuObservation new_card{0, "1650555555555", "GPU-cccc", "00000000:18:00.0"};
  ASSERT_TRUE(store->record_facts(run.id, "gpu01", "{}", {old_card, other}));
  ASSERT_TRUE(store->record_facts(run.id, "gpu01", "{}", {old_card, other}));
  ASSERT_TRUE(store->record_facts(run.id, "gpu01", "{}", {new_card, other}));
  const auto slots = *store->gpu_slot_history("gpu01");
  ASSERT_EQ(slots.size(), 3u);
  EXPECT_EQ(slots[0].slot, 0);
  EXPECT_EQ(slots[0].serial, "1650123456789");
  EXPECT_EQ(slots[1].slot, 0);
  EXPECT_EQ(slots[1].serial, "1650555555555");
  EXPECT_EQ(slots[1].uuid, "GPU-cccc");
  EXPECT_EQ(slots[2].slot, 1);
  EXPECT_EQ(store->facts_snapshots(run.id)->size(), 3u);
  EXPECT_TRUE(store->gpu_slot_history("gpu02")->empty());
}

TEST(StateStore, LatestFactsIsTheNodesNewestSnapshotUpToARun) {
  TempDir dir;
  auto store = open_store(dir.path() + "/state.db");
  const auto first = store->begin_run(new_run("/inv.yaml"), LockMode::none)->id;
  const auto second = store->begin_run(new_run("/inv.yaml"), LockMode::none)->id;
  ASSERT_TRUE(store->record_facts(first, "gpu01", R"({"n": 1})", {}));
  ASSERT_TRUE(store->record_facts(first, "gpu02", R"({"n": 2})", {}));
  ASSERT_TRUE(store->record_facts(second, "gpu01", R"({"n": 3})", {}));
  EXPECT_EQ(store->latest_facts("gpu01")->facts_json, R"({"n": 3})");
  EXPECT_EQ(store->latest_facts("gpu01", first)->facts_json, R"({"n": 1})");
  EXPECT_EQ(store->latest_facts("gpu02")->run, first);
  EXPECT_EQ(store->latest_facts("gpu03").error().code, ErrorCode::not_found);
}

TEST(StateStore, ListsRunsNewestFirstAndByNode) {
  TempDir dir;
  auto store = open_store(dir.path() + "/state.db");
  std::vector<RunId> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(store->begin_run(new_run("/inv.yaml"), LockMode::none)->id);
  ASSERT_TRUE(store->start_step(ids[0], "gpu01", "driver"));
  ASSERT_TRUE(store->record_node_result({ids[2], "gpu01", "failed", "step 'driver': exit 100", 5}));
  ASSERT_TRUE(store->record_node_result({ids[1], "gpu02", "ok", "", 5}));

  const auto all = *store->list_runs({"", 2});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].id, ids[2]);
  EXPECT_EQ(all[1].id, ids[1]);
  const auto gpu01 = *store->list_runs({"gpu01", 0});
  ASSERT_EQ(gpu01.size(), 2u);
  EXPECT_EQ(gpu01[0].id, ids[2]);
  EXPECT_EQ(gpu01[1].id, ids[0]);
}

}  // namespace
}  // namespace gpuctl::state

namespace gpuctl::state {
namespace {

TEST(StateStoreChecks, AVersionOneDatabaseGainsTheCheckResultsTableAndKeepsItsRuns) {
  TempDir dir;
  const auto path = dir.path() + "/state.db";
  RunId old_run = 0;
  {
    StoreOptions v1;
    v1.migrations = {builtin_migrations().front()};
    auto store = open_store(path, v1);
    EXPECT_EQ(store->schema_version(), 1);
    old_run = store->begin_run(new_run("/inv.yaml"), LockMode::none)->id;
  }
  auto store = open_store(path);
  EXPECT_EQ(store->schema_version(), 2);
  ASSERT_TRUE(store->get_run(old_run));
  ASSERT_TRUE(store->record_checks(old_run, "gpu01", {{"gpu_count", "pass", "8", "8", "", "", ""}}));
  EXPECT_EQ(store->check_results(old_run)->size(), 1u);
}

TEST(StateStoreChecks, RoundTripsEveryFieldInOrderAndALaterAttemptReplacesTheNodes) {
  TempDir dir;
  auto store = open_store(dir.path() + "/state.db");
  const auto run = store->begin_run(new_run("/inv.yaml"), LockMode::none)->id;
  const CheckRecord failed{"gpu_count", "fail", "7", "8", "a GPU fell off", "nvidia-smi --query-gpu=index",
                           "0\n1\n'quoted' \"text\"\n"};
  ASSERT_TRUE(store->record_checks(run, "gpu02", {{"nvidia_loaded", "error", "", "", "x", "cat /proc/modules", ""}}));
  ASSERT_TRUE(store->record_checks(run, "gpu02", {{"nvidia_loaded", "pass", "loaded", "loaded", "", "", ""}, failed}));
  ASSERT_TRUE(store->record_checks(run, "gpu01", {{"nvidia_loaded", "pass", "loaded", "loaded", "", "", ""}}));
  auto back = store->check_results(run);
  ASSERT_TRUE(back) << back.error().to_string();
  ASSERT_EQ(back->size(), 2u);
  EXPECT_EQ((*back)[0].first, "gpu01");
  EXPECT_EQ((*back)[1].first, "gpu02");
  ASSERT_EQ((*back)[1].second.size(), 2u) << "the second attempt replaced the first";
  EXPECT_EQ((*back)[1].second[0].status, "pass");
  const auto& c = (*back)[1].second[1];
  EXPECT_EQ(std::tie(c.check, c.status, c.observed, c.expected, c.detail, c.command, c.output),
            std::tie(failed.check, failed.status, failed.observed, failed.expected, failed.detail, failed.command,
                     failed.output));
}

TEST(StateStoreChecks, RejectsAnUnknownStatusAndWritesNothingOfThatNode) {
  TempDir dir;
  auto store = open_store(dir.path() + "/state.db");
  const auto run = store->begin_run(new_run("/inv.yaml"), LockMode::none)->id;
  ASSERT_TRUE(store->record_checks(run, "gpu01", {{"a", "pass", "", "", "", "", ""}}));
  EXPECT_FALSE(store->record_checks(run, "gpu01", {{"a", "fail", "", "", "", "", ""}, {"b", "bogus", "", "", "", "", ""}}));
  const auto back = store->check_results(run);
  ASSERT_EQ(back->size(), 1u);
  ASSERT_EQ(back->front().second.size(), 1u) << "the failed write rolled back, the earlier one stays";
  EXPECT_EQ(back->front().second[0].status, "pass");
}

TEST(StateStoreChecks, LatestRunWithChecksSkipsRunsWithoutThem) {
  TempDir dir;
  auto store = open_store(dir.path() + "/state.db");
  EXPECT_EQ(store->latest_run_with_checks().error().code, ErrorCode::not_found);
  const auto verified = store->begin_run(new_run("/inv.yaml"), LockMode::none)->id;
  ASSERT_TRUE(store->record_checks(verified, "gpu01", {{"a", "pass", "", "", "", "", ""}}));
  (void)store->begin_run(new_run("/inv.yaml"), LockMode::none);   // a later plan: no checks
  EXPECT_EQ(store->latest_run_with_checks().value(), verified);
}

}  // namespace
}  // namespace gpuctl::state
