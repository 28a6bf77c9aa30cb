#pragma once
// Verification: each check proves one property of a node from gathered facts and state, with
// the observed and expected values. Pure. A check that cannot run (its fact is absent) is an
// `error` with the reason, never a pass.

#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/plan/node_state.hpp>
#include <gpuctl/plan/program.hpp>
#include <gpuctl/verify/dcgm_run.hpp>
#include <gpuctl/verify/nccl_run.hpp>

#include <string>
#include <vector>

namespace gpuctl {

struct ObservedSlurmJob;        // verify/slurm_job.hpp
struct ObservedExporterScrapes;  // verify/exporter_scrape.hpp
struct ObservedContainerRun;     // verify/container_run.hpp

enum class CheckStatus { pass, fail, error, skipped };
std::string_view to_string(CheckStatus status);
// The four-letter cell of a nodes x checks grid: PASS, FAIL, ERR, skip.
std::string_view grid_label(CheckStatus status);

struct CheckResult {
  std::string name{};
  CheckStatus status = CheckStatus::error;
  std::string observed{};
  std::string expected{};
  std::string detail{};    // why it failed or could not run
  // For a check that failed or could not run: the node command whose output it read, and that
  // output (facts::trim_output, at most ~4 KiB). Empty for passes and for checks of local data.
  std::string command{};   // (default member initializers: older brace-inits stay warning-free)
  std::string output{};
};

struct CheckInput {
  const Inventory& inventory;
  const Node& node;
  const NodeProgram& program;
  const NodeState& state;
  // What verify's NCCL all-reduce printed on the node; null when it did not run (plan never
  // runs it; verify runs it only where the inventory declares gpu.nccl_allreduce).
  const ObservedNcclRun* nccl_allreduce = nullptr;
  // What verify's DCGM diagnostic printed; null when it did not run (only verify runs it, where
  // the inventory declares gpu.dcgm_diag, and replace-gpu).
  const ObservedDcgmDiag* dcgm_diag = nullptr;
  // What verify --slurm-job's job printed; null when it did not run (verify/slurm_job.hpp).
  const ObservedSlurmJob* slurm_job = nullptr;
  // The exporters' /metrics as verify read them on the node; null when not read (plan never does).
  const ObservedExporterScrapes* exporter_scrapes = nullptr;
  // verify's container_gpu run; null when it did not run (plan never does; verify only with
  // containers.gpu_test_image).
  const ObservedContainerRun* container_run = nullptr;
};

// The checks gpuctl knows, in display order, with one-line descriptions.
struct CheckInfo {
  std::string name;
  std::string description;
};
const std::vector<CheckInfo>& known_checks();
// The description of a check by name: a known check's, or of a check verify adds across nodes
// (nccl_allreduce_nodes, verify/nccl_nodes.hpp); empty for a name gpuctl does not know.
std::string check_description(std::string_view name);

// Runs the named checks in order. An unknown name yields an `error` result naming it. Results
// that are not a pass cite their source (command, output) from the gathered state.
std::vector<CheckResult> run_checks(const std::vector<std::string>& names, const CheckInput& input);

}  // namespace gpuctl
