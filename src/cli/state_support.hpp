#pragma once
// The CLI side of the state store: the --state option, opening the database, and a recorded
// run (begun in the store, with the inventory lock for apply, its recorder added to the run's
// hooks). Prints to stderr (this is the CLI).

#include "run_support.hpp"

#include <gpuctl/api/run_recorder.hpp>
#include <gpuctl/state/state_store.hpp>

#include <memory>
#include <optional>
#include <string>

namespace gpuctl::cli {

struct StateCliOptions {
  std::string path;   // --state; empty: $GPUCTL_STATE_DIR/state.db or ~/.local/state/gpuctl/state.db
};

void add_state_option(CLI::App& command, StateCliOptions& options);

// Opens the state database; on failure prints why and returns nullptr.
std::unique_ptr<state::StateStore> open_state(const StateCliOptions& options);

struct RecordedRun {
  std::unique_ptr<state::StateStore> store;
  std::unique_ptr<RunRecorder> recorder;
};

// Begins a run of `command` on the setup's inventory (taking its lock with LockMode::exclusive)
// and adds the recorder to setup.hooks, so call it before the Session is made. Reports runs
// found abandoned. On failure prints why and sets exit_code: 5 when locked, 1 otherwise.
std::optional<RecordedRun> start_recorded_run(RunSetup& setup, const StateCliOptions& options, std::string_view command,
                                              state::LockMode lock, int& exit_code);

// Ends the run; warns when some of it could not be recorded.
void finish_recorded_run(RecordedRun& run, state::RunStatus status);

}  // namespace gpuctl::cli
