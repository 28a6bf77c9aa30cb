#pragma once
// `apply PLAN.json` on the command line: a saved plan names its inventory, node selection
// (--limit), playbooks, templates directory and connection override, and the run is set up
// from those, resolved the usual way, then planned again and compared (api/saved_plan.hpp).
// Prints to stderr (this is the CLI).

#include "run_support.hpp"

#include <gpuctl/plan/plan.hpp>

#include <optional>

namespace gpuctl::cli {

// When `target.inventory` is a saved plan (a file starting with '{'): reads it and points
// `target` at what it names. nullopt for an inventory (exit_code untouched); nullopt with
// exit_code 2 for a plan that cannot be read, is of another format_version, or that the
// command line contradicts (--limit, --playbook, --templates, --connection other than the plan's).
std::optional<Plan> load_saved_plan(TargetOptions& target, int& exit_code);

}  // namespace gpuctl::cli
