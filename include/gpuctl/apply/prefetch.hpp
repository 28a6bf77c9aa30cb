#pragma once
// Before a node leaves service for a disruptive change (a Slurm drain, apply/drain.hpp), the
// packages its plan installs or changes are downloaded into apt's cache (apt-get install
// --download-only), so the drained window is install + reboot + verify, not download: on a
// rolling driver upgrade the download is the driver, CUDA and their dependencies, often
// gigabytes from a remote mirror. Best effort: a download that fails is reported and the
// install downloads again inside the drain. Does network I/O on the node.

#include <gpuctl/apply/hooks.hpp>
#include <gpuctl/exec/transport_pool.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/plan/plan.hpp>
#include <gpuctl/plan/program.hpp>

#include <string>

namespace gpuctl {

// The download script for the package installs and upgrades of `plan`, in plan order; empty
// when the plan installs no package.
std::string prefetch_script(const NodeProgram& program, const NodePlan& plan);

// Runs prefetch_script on the node (with become, under its command timeout) and reports the
// outcome through `hooks` (on_command, and on_message when it failed). Returns whether the
// packages are in the node's cache (true when there was nothing to fetch).
bool prefetch_packages(exec::TransportPool& pool, const Node& node, const NodeProgram& program, const NodePlan& plan,
                       RunHooks& hooks);

}  // namespace gpuctl
