#pragma once
// Writes a run into the state store as it happens: each node's steps when they start and end
// (so a killed run leaves its in-flight steps visible), verify check results, the plan, facts snapshots with the GPU
// slot history, each node's outcome, and the run's end. A RunHooks, so it sits next to the
// progress display (TeeHooks). Thread-safe. A failed write never stops the run: the
// first error is kept for the caller to report (first_error). Does file I/O (the store).

#include <gpuctl/api/session.hpp>
#include <gpuctl/apply/hooks.hpp>
#include <gpuctl/state/state_store.hpp>

#include <map>
#include <mutex>
#include <optional>
#include <span>

namespace gpuctl {

class RunRecorder : public RunHooks {
 public:
  // Records into the run `run` already begun in `store` (StateStore::begin_run).
  RunRecorder(state::StateStore& store, state::RunId run);
  // Ends the run as failed when finish() was never called (an early return is not success).
  ~RunRecorder() override;
  RunRecorder(const RunRecorder&) = delete;
  RunRecorder& operator=(const RunRecorder&) = delete;

  state::RunId run_id() const { return m_run; }

  void on_step_start(const std::string& node, const std::string& step) override;
  void on_step_done(const std::string& node, const std::string& step, StepStatus status,
                    std::chrono::milliseconds duration) override;

  // Stores the node's check results (replacing an earlier attempt's in this run).
  void on_checks_done(const std::string& node, const std::vector<CheckResult>& checks) override;

  void record_plan(const Plan& plan);
  // Every node whose facts the session gathered: a snapshot and its GPUs' slots.
  void record_facts(const Session& session);
  void record_facts(const NodeFacts& facts);
  // Each node's outcome; a failed node's error goes onto its failing step as well.
  void record_outcomes(std::span<const NodeApplyOutcome> outcomes);
  void record_outcomes(std::span<const NodeVerifyOutcome> outcomes);
  void finish(state::RunStatus status);

  std::optional<Error> first_error() const;

 private:
  void record_outcome(const exec::NodeOutcome& outcome);
  template <typename T>
  void keep(const Result<T>& result);

  state::StateStore& m_store;
  state::RunId m_run;
  bool m_finished = false;
  mutable std::mutex m_mutex;
  std::map<std::string, std::int64_t> m_open_steps;   // node -> its running step's row (a node runs one step at a time)
  std::optional<Error> m_first_error;
};

// A run's end status from its nodes: interrupted when cancelled, failed when any node failed,
// was unreachable or skipped, else ok.
state::RunStatus run_status_for(std::span<const exec::NodeOutcome> outcomes, bool interrupted);

}  // namespace gpuctl
