#pragma once
// A run recorded in the state store: begun (with the inventory's lock when asked), its
// recorder listening to the run's hooks, and finished with a status. Internal to src/api.
// Does file I/O (the store); never prints (notices go to RunEnvironment::on_notice).

#include "run_inputs.hpp"

#include <gpuctl/api/run_recorder.hpp>
#include <gpuctl/state/state_store.hpp>

#include <expected>
#include <memory>
#include <string_view>

namespace gpuctl::use_case {

// Opens the state database at `path` (empty: the default one).
Result<std::unique_ptr<state::StateStore>> open_state_store(const std::string& path);

struct RecordedRun {
  std::unique_ptr<state::StateStore> store;
  std::unique_ptr<RunRecorder> recorder;
};

// Begins a run of `command` on the inputs' inventory, taking its lock with `lock`, and adds
// the recorder to inputs.hooks (so call it before the Session is made). Runs found abandoned
// are told through env.on_notice. Failure: locked when another run holds the lock, else error.
std::expected<RecordedRun, Failure> begin_recorded_run(RunInputs& inputs, const RunEnvironment& env,
                                                       std::string_view command, state::LockMode lock);

// Ends the run; tells env.on_notice when some of it could not be recorded.
void finish_recorded_run(RecordedRun& run, state::RunStatus status, const RunEnvironment& env);

// Whether env's cancellation token was set.
inline bool cancelled(const RunEnvironment& env) { return env.cancel != nullptr && env.cancel->cancelled(); }

// Tells env.on_notice, when set.
inline void notice(const RunEnvironment& env, const std::string& text) {
  if (env.on_notice) env.on_notice(text);
}

}  // namespace gpuctl::use_case
