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
  // remediate: the faults found and the remedy the health policy gives, each step done (or,
  // with --dry-run, planned), and whether a failed reset was escalated to a reboot.
  std::vector<std::string> findings;      // "Xid 109 on 0000:b3:00 (context switch timeout) -> reset_gpu"
  std::string remedy;                     // health::Remedy as text; empty: not a remediate
  std::vector<std::string> remedy_steps;
  bool dry_run = false;
  bool escalated = false;
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

struct RemediateOptions {
  bool dry_run = false;  // diagnose and say what would be done; touch nothing
};

// A node failed verify on a GPU fault: diagnoses it (verify, looking past any drain), maps the
// failed checks through the health policy (verify/remediation.hpp) to one remedy and, unless
// dry_run: drains it in Slurm (reason "gpuctl run: remediate"; someone else's drain is kept
// and never lifted), waits for its jobs, takes the remedy (reset_gpu: the GPU's clients
// stopped, nvidia-smi -r, started again, the reset recorded on the node so the Xids before it
// count as dealt with; a failed reset escalates to reboot; reboot: a new boot_id waited for),
// runs DCGM's diagnostic at the policy's level where the node has DCGM, verifies, and resumes
// only on a pass. contact_support and investigate drain the node and leave it drained with
// the faults as the reason. A node that passes, or fails only checks remediation does not
// handle (configuration: gpuctl apply), is not touched.
NodeWorkflowReport remediate(const WorkflowContext& context, const RemediateOptions& options);

// Reports as JSON: {"node", "status", "reason", "compared_run", "changes": [{"slot",
// "pci_bus_id", "kind", "old_serial", "new_serial", "old_uuid", "new_uuid"}],
// "gpus": {"expected", "nvidia_smi", "pci"}, "ecc_reset_slots", "host_key": {"state",
// "replaced", "fingerprint"}, "remediation": {"findings", "remedy", "steps", "dry_run",
// "escalated"} (remediate only), "apply": {"status", "reason"}, "verify": {"status",
// "failed_checks"}}.
std::string workflow_report_to_json(const NodeWorkflowReport& report);
// The same as text for a terminal.
std::string render_workflow_report(const NodeWorkflowReport& report);

}  // namespace gpuctl
