#pragma once
// Day-two workflows on one node, each a scripted sequence that ends verified and recorded:
// replace_gpu (a GPU board was swapped) and reimage (the node's disk was reinstalled). Both
// run through a Session made for exactly that one node and record into a run already begun
// (the CLI begins it with the inventory's lock). Do network I/O (the node) and file I/O (the
// state store); never print.

#include <gpuctl/api/run_recorder.hpp>
#include <gpuctl/api/session.hpp>
#include <gpuctl/apply/drain.hpp>
#include <gpuctl/facts/gpu_changes.hpp>
#include <gpuctl/state/state_store.hpp>

#include <optional>
#include <string>
#include <vector>

namespace gpuctl {

// What a workflow did on its node, step by step; what it did not reach stays empty.
struct NodeWorkflowReport {
  std::string node;
  // replace-gpu: the recorded snapshot compared with, and what changed since.
  state::RunId compared_run = 0;
  std::string compared_taken;
  std::vector<facts::GpuChange> changes;
  int expected_gpus = 0;                  // inventory gpu.count (0: not declared)
  int nvidia_smi_gpus = 0;                // GPUs nvidia-smi lists
  std::optional<int> pci_gpus;            // NVIDIA 3D controllers lspci lists; empty without lspci
  std::vector<int> ecc_reset_slots;       // slots whose ECC counters were reset
  // reimage: the host key before, and whether gpuctl replaced the known_hosts entry.
  std::string host_key_state;             // known | unknown | changed; empty for local nodes
  bool host_key_replaced = false;
  std::string host_key_fingerprint;
  // Slurm (inventory slurm.enabled): what was decided before the work (empty: Slurm not
  // enabled, or the workflow stopped before), the drain reason (gpuctl's, or the one someone
  // else had set), whether the node was resumed, and why it stays drained otherwise.
  std::optional<DrainDecision> slurm_decision;
  std::string slurm_drain_reason;
  bool slurm_resumed = false;
  std::string slurm_left_drained;
  std::vector<NodeApplyOutcome> apply;    // empty when the plan had no change
  std::vector<NodeVerifyOutcome> verify;
  exec::NodeOutcome outcome;              // the workflow's: ok | changed | failed | unreachable
};

// Everything a workflow works with. `session` is made for exactly one node; `factory` opens
// the extra connection for the workflow's own commands; `recorder` records into the run.
struct WorkflowContext {
  Session& session;
  const TransportFactory& factory;
  state::StateStore& store;
  RunRecorder& recorder;
  // Resume a node that someone else drained (typically the admin, before the swap) once it
  // verifies; by default such a node is worked on and left drained.
  bool resume_drained_by_other = false;
};

// A GPU board was replaced: compares the node's GPUs now with its latest recorded facts and
// names the changed slots; with Slurm enabled, drains the node (reason "gpuctl run:
// replace-gpu"; a node drained by someone else is worked on but never resumed) and waits for
// its jobs (SessionOptions::drain_timeout); checks that inventory gpu.count GPUs are visible to nvidia-smi
// (and to lspci when installed); resets the volatile and aggregate ECC counters of each new
// card (nvidia-smi -i SLOT -p 0 / -p 1); restarts a running nvidia-persistenced so the new
// card is in persistence mode; plans and applies the node's playbooks; verifies, with DCGM's
// diagnostic at gpu.dcgm_diag.replace_gpu_level (2 by default; 0: none) over all GPUs;
// records the new facts (and so the new serials in the slot history); resumes the node in
// Slurm when it verified, else leaves it drained with the reason. A step that fails ends
// the workflow with outcome failed (or unreachable) and its reason. Errors: not_found when
// the node has no recorded facts (run verify first), parse when they cannot be read.
Result<NodeWorkflowReport> replace_gpu(const WorkflowContext& context);

struct ReimageOptions {
  bool accept_new_host_key = false;
};

// The node's disk was re-imaged: an ssh node's host key is compared with known_hosts; a
// changed or unknown key is refused (outcome unreachable) unless accept_new_host_key, and
// then only this node's known_hosts entry is replaced. Then drains the node in Slurm when
// Slurm knows it (as replace_gpu), plans, applies everything, verifies, records the facts,
// and resumes the node when it verified.
NodeWorkflowReport reimage(const WorkflowContext& context, const ReimageOptions& options);

// Reports as JSON: {"node", "status", "reason", "compared_run", "changes": [{"slot",
// "pci_bus_id", "kind", "old_serial", "new_serial", "old_uuid", "new_uuid"}],
// "gpus": {"expected", "nvidia_smi", "pci"}, "ecc_reset_slots", "host_key": {"state",
// "replaced", "fingerprint"}, "apply": {"status", "reason"}, "verify": {"status", "failed_checks"}}.
std::string workflow_report_to_json(const NodeWorkflowReport& report);
// The same as text for a terminal.
std::string render_workflow_report(const NodeWorkflowReport& report);

}  // namespace gpuctl
