#pragma once
// gpuctl's local state: every run (who, when, command, inventory, plan, outcome), each node's
// step outcomes, facts snapshots, the history of GPU serials per slot, and the lock that
// keeps two runs off one inventory. Stored in one SQLite database (WAL mode, 0600 file);
// docs/state.md describes the schema. Every method does file I/O and is thread-safe: calls
// from several threads are serialised on the one connection.

#include <gpuctl/core/error.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl::state {

using RunId = std::int64_t;

enum class RunStatus { running, ok, failed, interrupted, abandoned };
std::string_view to_string(RunStatus status);
std::optional<RunStatus> run_status_from_string(std::string_view text);

// Who is running and where: the process a lock or a running run belongs to.
struct ProcessIdentity {
  std::string who;          // "user@host"
  std::string host;         // gethostname()
  int pid = 0;
  // Tells a live process from a later one that reused its pid: "<boot_id>:<start ticks>".
  std::string process_tag;
};

// This process, read from the system (hostname, pid, /proc). Does I/O; never fails (unknown
// parts are left empty).
ProcessIdentity current_process();

// Whether `process` still runs: only answerable on this host; a process of another host is
// assumed alive. Reads /proc.
bool process_alive(const ProcessIdentity& process);

// What a run is about, given when it starts.
struct NewRun {
  std::string command;            // "apply", "verify"
  std::string command_line;       // as typed, shell-quoted
  std::string inventory_path;     // absolute; also the lock's key
  std::string inventory_digest;
  ProcessIdentity process;
};

struct RunRecord {
  RunId id = 0;
  std::string command;
  std::string command_line;
  std::string inventory_path;
  std::string inventory_digest;
  ProcessIdentity process;
  std::string started;            // ISO 8601 UTC
  std::string finished;           // empty while running
  std::string plan_json;          // empty when the run made no plan
  RunStatus status = RunStatus::running;
};

struct NodeStepRecord {
  RunId run = 0;
  std::int64_t id = 0;
  std::string node;
  std::string step;
  std::string status;             // running | ok | changed | failed | skipped | interrupted | abandoned
  std::string started;
  std::int64_t duration_ms = 0;
  std::string error;
};

// A node's overall outcome in a run (ok | changed | failed | unreachable | skipped).
struct NodeResultRecord {
  RunId run = 0;
  std::string node;
  std::string status;
  std::string reason;
  std::int64_t duration_ms = 0;
};

struct FactsSnapshot {
  RunId run = 0;
  std::string node;
  std::string taken;
  std::string facts_json;
};

// One verify check's result on a node in a run (verify/checks.hpp CheckResult, as text):
// from `gpuctl verify` and from apply's verify of a drained node.
struct CheckRecord {
  std::string check;
  std::string status;             // pass | fail | error | skipped
  std::string observed;
  std::string expected;
  std::string detail;
  std::string command;            // the node command the check read (non-passes only)
  std::string output;             // its output, trimmed
};

// One GPU seen in a slot (nvidia-smi index) of a node.
struct GpuObservation {
  int slot = 0;
  std::string serial;
  std::string uuid;
  std::string pci_bus_id;
};

// A card's tenure in a slot: a new row starts whenever the slot shows another serial.
struct GpuSlotRecord {
  std::string node;
  int slot = 0;
  std::string serial;
  std::string uuid;
  std::string pci_bus_id;
  std::string first_seen;
  std::string last_seen;
};

enum class LockMode { none, exclusive };

struct StartedRun {
  RunId id = 0;
  // Runs of this host whose process died while they ran; marked abandoned just now.
  std::vector<RunRecord> abandoned;
};

struct RunQuery {
  std::string node;               // only runs that touched this node; empty: all
  int limit = 20;                 // newest first
};

// SQL that migrates the schema from version i to i+1 is migrations[i]. The built-in list
// (schema version 2) is the default; tests pass a longer one to exercise an upgrade.
std::vector<std::string> builtin_migrations();

struct StoreOptions {
  std::vector<std::string> migrations = builtin_migrations();
  int busy_timeout_ms = 5000;
};

class StateStore {
 public:
  // Opens (creating when missing) the database at `path`: missing directories are created
  // 0700, a new file 0600, the schema is migrated to the newest version. Nothing that exists
  // is chmodded and no symlink is followed. Errors: validation (refused, with the fix): the
  // directory is not the current user's or is writable by group/others; the file is a symlink,
  // not a regular file, not the current user's or open to group/others. io: the directory or
  // file cannot be created or opened, the file is not a gpuctl database, or its schema is newer
  // than this gpuctl knows.
  static Result<std::unique_ptr<StateStore>> open(const std::string& path, StoreOptions options = {});
  ~StateStore();
  StateStore(const StateStore&) = delete;
  StateStore& operator=(const StateStore&) = delete;

  const std::string& path() const;
  int schema_version();

  // Starts a run, in one transaction: first marks abandoned every running run of this host
  // whose process is gone (releasing its lock), then with LockMode::exclusive takes the lock
  // of `run.inventory_path`. Errors: locked (a live run holds the lock; the message names its
  // run id, pid, host and start), io.
  Result<StartedRun> begin_run(const NewRun& run, LockMode lock);

  // Ends a run with `status` and releases its lock; its steps still `running` take the
  // run's status. Idempotent for a run already ended.
  Result<void> finish_run(RunId run, RunStatus status);

  Result<void> set_plan(RunId run, const std::string& plan_json);

  // A step starts on a node: returns the step's row id for finish_step.
  Result<std::int64_t> start_step(RunId run, const std::string& node, const std::string& step);
  Result<void> finish_step(std::int64_t step_id, const std::string& status, std::int64_t duration_ms,
                           const std::string& error = {});
  // Sets the error text of the node's last step in `status` (the failing step) when known.
  Result<void> set_step_error(RunId run, const std::string& node, const std::string& step, const std::string& error);

  Result<void> record_node_result(const NodeResultRecord& result);

  // Stores a facts snapshot and updates the node's GPU slot history from `gpus`.
  Result<void> record_facts(RunId run, const std::string& node, const std::string& facts_json,
                            const std::vector<GpuObservation>& gpus);

  // Replaces the check results of `node` in `run` with `checks` (in their order), in one
  // transaction: a verify retried within a run keeps only its last attempt.
  Result<void> record_checks(RunId run, const std::string& node, const std::vector<CheckRecord>& checks);

  // Reading back, for history and show.
  Result<std::vector<RunRecord>> list_runs(const RunQuery& query);
  Result<RunRecord> get_run(RunId run);     // not_found when there is no such run
  Result<std::vector<NodeStepRecord>> steps(RunId run, const std::string& node = {});
  Result<std::vector<NodeResultRecord>> node_results(RunId run);
  Result<std::vector<FactsSnapshot>> facts_snapshots(RunId run);
  // The latest snapshot of `node` before or in `before_run` (0: any); not_found when none.
  Result<FactsSnapshot> latest_facts(const std::string& node, RunId before_run = 0);
  Result<std::vector<GpuSlotRecord>> gpu_slot_history(const std::string& node);
  // The check results of a run: node -> checks in recorded order; empty when none were recorded.
  Result<std::vector<std::pair<std::string, std::vector<CheckRecord>>>> check_results(RunId run);
  // The newest run that recorded check results; not_found when there is none.
  Result<RunId> latest_run_with_checks();

  // The run holding the lock of `inventory_path`, if any.
  Result<std::optional<RunRecord>> lock_holder(const std::string& inventory_path);

 private:
  struct Impl;
  explicit StateStore(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
};

// The database path: `explicit_path` when given, else <default state dir>/state.db.
std::string state_db_path(const std::string& explicit_path, const std::string& state_dir);

}  // namespace gpuctl::state
