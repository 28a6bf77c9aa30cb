#pragma once
// Collecting what a node has for the resources of its program in ONE round trip: the facts
// batch (facts/collect.hpp) with the planner's state script run inside it as one more probe,
// and the program's packages asked in the batch's one dpkg-query. The script is built by the
// planner (plan/node_state.hpp: node_state_script) and its output is parsed there by a pure
// function (parse_node_state), so facts/ knows nothing of programs and plan/ does no I/O.

#include <gpuctl/core/error.hpp>
#include <gpuctl/facts/collect.hpp>
#include <gpuctl/facts/facts.hpp>
#include <gpuctl/transport/transport.hpp>

#include <chrono>
#include <string>

namespace gpuctl::facts {

// What the round trip returned: the node's facts, the state probe's stdout, the batch's
// dpkg-query lines ("package<TAB>version<TAB>status", the program's packages among them), and
// how long it took.
struct StateProbeOutput {
  NodeFacts facts;
  std::string output;
  std::string package_lines;
  std::chrono::milliseconds duration{0};
};

// Runs the batch described by `options` (its state_script and exact_packages set by the
// planner) as one `sh -s` on the node; with `become`, through sudo so the script can read
// root-only files (the munge key). Does I/O. Errors: the transport's, run_probe_batch's, or
// ErrorCode::transport when the state probe is missing or exits non-zero (the message quotes
// the last lines of its stderr).
Result<StateProbeOutput> run_state_probe(Transport& transport, const CollectOptions& options, bool become = false);

}  // namespace gpuctl::facts
