#pragma once
// Views of the run history for `gpuctl history` and `gpuctl show`: text for people, JSON for
// scripts (format_version 1, docs/state.md). Loading reads the state store (file I/O);
// rendering is pure.

#include <gpuctl/core/error.hpp>
#include <gpuctl/state/state_store.hpp>

#include <string>
#include <vector>

namespace gpuctl {

// One run with what was recorded for it.
struct RunView {
  state::RunRecord run;
  std::vector<state::NodeResultRecord> nodes;
  std::vector<state::NodeStepRecord> steps;
  std::vector<state::FactsSnapshot> facts;     // loaded for `show` only
};

struct HistoryView {
  std::string node;                            // the --node filter; empty: all nodes
  std::vector<RunView> runs;                   // newest first
  std::vector<state::GpuSlotRecord> gpu_slots; // with a node filter: that node's serials per slot
};

// Reads the newest runs (steps restricted to `query.node` when set). Errors: the store's.
Result<HistoryView> load_history(state::StateStore& store, const state::RunQuery& query);
// Reads one run with all its steps, node results and facts snapshots. Errors: not_found.
Result<RunView> load_run(state::StateStore& store, state::RunId run);

std::string render_history_text(const HistoryView& history);
std::string history_to_json(const HistoryView& history);
std::string render_run_text(const RunView& run);
std::string run_to_json(const RunView& run);

}  // namespace gpuctl
