#pragma once
// How a check that did not pass cites its source: the node command whose output it read, and
// that output (private to src/verify). A check's CheckSpec names its facts or its own citation
// (verify/catalog.hpp); these are the citations checks share.

#include <gpuctl/facts/collect.hpp>
#include <gpuctl/verify/checks.hpp>

#include <fmt/format.h>

#include <string_view>

namespace gpuctl::verify_detail {

// Fills result.command and result.output for a check that did not pass: its spec's citation,
// or the first of its facts' probes. Pure.
void cite_source(CheckResult& result, const CheckInput& input);

// The probe's readable command and output as the batch gathered them; a failed probe's exit
// status is appended. Nothing when the batch did not run that probe.
void cite_probe(CheckResult& result, const NodeFacts& facts, std::string_view probe);

// /proc/modules, cut to the lines of `module` (the file is long).
void cite_module_lines(CheckResult& result, const NodeFacts& facts, std::string_view module);

// `systemctl show` of the service, as the state probe read it.
void cite_service(CheckResult& result, const NodeState& state, const std::string& service);

// What a runner ran on the node and printed, with why it could not run first (a run's
// `problem`); `command` where it recorded none, and a line naming `what` where it did not run.
template <typename Run>
void cite_node_run(CheckResult& result, const Run* run, std::string_view what, std::string command) {
  if (!run) {
    result.command = "(not run)";
    result.output = fmt::format("({} did not run on the node)", what);
    return;
  }
  result.command = run->command.empty() ? std::move(command) : run->command;
  result.output = facts::trim_output(run->problem.empty() ? run->output : run->problem + "\n" + run->output,
                                     k_source_output_limit);
}

// "; the fabric manager's log (PATH) says: LAST ERROR (N error lines)", for the detail of a
// fabric check that failed; empty where the log was not read, is missing or has no error.
std::string fabricmanager_log_says(const NodeFacts& facts);

// The DCGM exporter's service in the inventory's package profile (nvidia-dcgm-exporter for
// NVIDIA's package), "dcgm-exporter" where the profile names none.
std::string dcgm_exporter_service(const Inventory& inventory);

}  // namespace gpuctl::verify_detail
