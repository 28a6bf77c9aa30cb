#pragma once
// Collecting what a node has for the resources of its program: the facts batch
// (collect_facts) and then a state probe script, two commands on one session. The script is
// built by the planner (plan/node_state.hpp: node_state_script) and its output is parsed there
// by a pure function (parse_node_state), so facts/ knows nothing of programs and plan/ does no
// I/O.

#include <gpuctl/core/error.hpp>
#include <gpuctl/facts/facts.hpp>
#include <gpuctl/transport/transport.hpp>

#include <string>

namespace gpuctl::facts {

// What the two commands returned: the node's facts and the probe script's stdout.
struct StateProbeOutput {
  NodeFacts facts;
  std::string output;
};

// Collects the node's facts, then runs `script` with sh (at most 120 s). With `become`, the
// script runs through sudo so it can read root-only files (the munge key). Does I/O. Errors:
// the transport's, collect_facts', or ErrorCode::transport when the script exits non-zero
// (the message quotes the last lines of its stderr).
Result<StateProbeOutput> run_state_probe(Transport& transport, const std::string& script, bool become = false);

}  // namespace gpuctl::facts
