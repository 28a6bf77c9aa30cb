#pragma once
// The check catalog: every check gpuctl knows is declared once, in its own file under
// src/verify/, by a CheckSpec (name, one-line description, the facts it reads, what it needs
// run on the node, its judge, what a non-pass cites). Everything else is derived from it:
// which probes verify runs, what a failure cites, which node-side runs a session starts,
// `gpuctl verify --list`, the table in docs/verify.md (a unit test compares them), shell
// completion of check names, and the error `validate` and `plan` give for a playbook step that
// names a check that does not exist. Pure; nothing here does I/O.

#include <gpuctl/verify/checks.hpp>

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

// What a check needs done on the node beyond the facts batch, so the session starts it only
// where a check that reads it is asked for. Verify only: plan never runs any of them.
enum class NodeRunner {
  none,
  slurm_node_view,  // `scontrol show node NODE` in the state probe (bounded by timeout 20)
  nccl_allreduce,   // gpuctl's NCCL all-reduce over the node's GPUs (gpu.nccl_allreduce)
  dcgm_diag,        // `dcgmi diag -r LEVEL` (gpu.dcgm_diag, or replace-gpu's request)
  nccl_nodes,       // an all-reduce across nodes through Slurm (verify --nccl-nodes); added by verify
  slurm_job,        // a short job through Slurm on the node (verify --slurm-job)
  exporter_scrape,  // one GET of each exporter's /metrics from the node (verify/exporter_scrape.hpp)
  container_gpu,    // one container through CDI running nvidia-smi -L (verify/container_run.hpp)
};
std::string_view to_string(NodeRunner runner);

// Where a check sits in `verify --list` and the docs table.
enum class CheckSection { kernel, gpu, health, fabric, software, containers, network, slurm, monitoring };
std::string_view to_string(CheckSection section);

using CheckJudge = CheckResult (*)(const CheckInput&);
// Fills result.command and result.output for a check that did not pass (result.name set).
using CheckCitation = void (*)(CheckResult& result, const CheckInput&);

struct CheckSpec {
  std::string_view name{};
  std::string_view description{};
  CheckSection section = CheckSection::gpu;
  // The facts batch's probes it reads (facts/fact_catalog.hpp names, or a base probe such as
  // "gpus"); verify asks the batch for the optional ones among them.
  std::vector<std::string_view> facts{};
  NodeRunner runner = NodeRunner::none;
  // Null only for a check verify adds across nodes (nccl_allreduce_nodes): no playbook names it.
  CheckJudge judge = nullptr;
  // Null: cite the first of `facts` (its command and output). A check that reads none of the
  // batch's probes must name its own citation; the catalog test holds every check to it.
  CheckCitation cite = nullptr;
  // What the citation is, in words, for `verify --list --json` and the docs ("systemctl show").
  std::string_view source = {};
};

// Declares a check: one static CheckRegistration in the check's file (anonymous namespace).
// Two registrations of one name abort at start-up, naming it: a catalog never holds twice.
struct CheckRegistration {
  explicit CheckRegistration(CheckSpec spec);
};

// Every check, by section then name.
std::vector<const CheckSpec*> check_catalog();
// The check of that name; null for a name gpuctl does not know.
const CheckSpec* find_check(std::string_view name);
// The names a playbook may list under `checks:` (every check with a judge), sorted.
std::vector<std::string> playbook_check_names();

// What a set of checks needs on the node: the optional probes their facts are, and the runners.
struct CheckNeeds {
  std::set<std::string> probes;
  std::set<NodeRunner> runners;
  bool needs(NodeRunner runner) const { return runners.contains(runner); }
  // What the node's probe must read for them (plan/node_state.hpp).
  ProbeExtras probe_extras() const { return {probes, needs(NodeRunner::slurm_node_view)}; }
};
// Unknown names need nothing (run_checks reports them as errors).
CheckNeeds check_needs(const std::vector<std::string>& names);

}  // namespace gpuctl
