#pragma once
// The verify report of a past run, read back from the state store: the check results that
// `gpuctl verify` (or apply's verify of a drained node) recorded, as NodeVerifyOutcomes for the
// same writers verify uses (table, JSON, JUnit, HTML, Prometheus). Loading reads the store.

#include <gpuctl/core/error.hpp>
#include <gpuctl/state/state_store.hpp>
#include <gpuctl/verify/outcome.hpp>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace gpuctl {

struct RunReport {
  state::RunRecord run;
  std::vector<NodeVerifyOutcome> outcomes;  // by node name
};

// "last" (the newest run with check results) or a run id as `gpuctl history` prints it.
// Errors: invalid_argument for anything else, not_found when no run has check results.
Result<state::RunId> resolve_report_run(state::StateStore& store, std::string_view ref);

// The run's recorded checks per node. A node is ok when every check passed or was skipped,
// else failed. Nodes with no checks appear only with a verify run's outcome (unreachable,
// skipped) or an unreachable/skipped node of another run. Errors: not_found for no such run or
// a run that recorded no checks (a plan, or an apply that verified nothing); the store's.
Result<RunReport> load_run_report(state::StateStore& store, state::RunId run);

// Seconds since the epoch of an ISO 8601 UTC time "YYYY-MM-DDTHH:MM:SSZ"; nullopt otherwise.
std::optional<std::int64_t> unix_time_of(std::string_view iso_utc);

}  // namespace gpuctl
