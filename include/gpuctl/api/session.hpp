#pragma once
// A run over many nodes: plan, apply and verify share one Transport per node (a pool) and
// each node's resolved program. Nodes run in parallel with bounded concurrency; a node's
// failure is isolated and reported in its outcome. Does network I/O; never prints (hooks).

#include <gpuctl/apply/apply.hpp>
#include <gpuctl/apply/outcome.hpp>
#include <gpuctl/apply/rollout.hpp>
#include <gpuctl/exec/executor.hpp>
#include <gpuctl/exec/transport_pool.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/plan/node_state.hpp>
#include <gpuctl/plan/plan.hpp>
#include <gpuctl/playbook/playbook.hpp>
#include <gpuctl/transport/transport_factory.hpp>
#include <gpuctl/verify/checks.hpp>
#include <gpuctl/verify/dcgm_run.hpp>
#include <gpuctl/verify/outcome.hpp>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace gpuctl {

struct SessionOptions {
  int forks = exec::k_default_forks;
  const util::CancellationToken* cancel = nullptr;
  ApplyOptions apply;
  RolloutPolicy rollout;                     // batches and --max-fail for apply
  // With Slurm enabled in the inventory, a node whose plan reboots it or changes its
  // nvidia-driver-* package is drained first, its jobs waited for (at most drain_timeout),
  // verified after apply and resumed only when verify passed (apply/drain.hpp).
  std::chrono::seconds drain_timeout{3600};
  // Before the drain, fetch the packages the node's plan installs (apply/prefetch.hpp): the
  // drained window is then install + reboot + verify, not the download.
  bool prefetch = true;
  std::chrono::milliseconds drain_poll{2000};
  bool drain_stop_jobs = false;              // cancel a drained node's jobs instead of waiting (remediate --stop-jobs)
  std::chrono::milliseconds settle_poll{5000};  // between verify attempts after a drained node's apply
  ProgramSources sources;
  // Reaches the Slurm nodes outside the session, for their hardware (slurm.conf lists every
  // node); empty: the session's own factory. Set where --connection overrides the nodes' own
  // connections: a run local to one node reaches the others as the inventory says.
  TransportFactory peer_transports;
  // verify --slurm-job: one short job through Slurm on each node that has check slurm_gpu_job.
  bool slurm_job = false;
  std::vector<std::string> playbook_names;   // as given (names or paths), for the plan's record
};

// Which Slurm drain verify looks past (slurmd_registered), see Session::verify.
enum class IgnoredDrain { none, own, any };

class Session {
 public:
  Session(const Inventory& inventory, std::vector<const Node*> nodes, std::vector<Playbook> playbooks,
          TransportFactory factory, SessionOptions options, RunHooks& hooks);
  ~Session();

  // Resolves each node's program, gathers its state, plans. Unreachable nodes and nodes whose
  // program cannot be built are in the plan with their reason.
  Plan plan();

  // Applies `plan`, in the batches of SessionOptions::rollout: once more than max_fail_percent
  // of the nodes attempted so far failed or were unreachable, later batches are skipped. When `check_fresh` is set (a saved plan), each node's state is gathered
  // again and a node whose fingerprint (or the inventory, playbooks, templates) changed is
  // refused as stale (failed, reason "stale plan: ...") without any change.
  std::vector<NodeApplyOutcome> apply(const Plan& plan, bool check_fresh);

  // Generates the secrets a plan made under SecretMode::load_only found missing (the plan
  // says "a new secret"), puts them into the resolved programs, and resolves later programs
  // with SecretMode::load_or_create. Called by apply after the plan was confirmed or matched a
  // saved one, before any change. Errors: the secret store refuses or cannot be written.
  Result<void> generate_missing_secrets();

  // Gathers state and runs every check of each node's program. `ignored` drains are not held
  // against slurmd_registered: gpuctl's own (a workflow resumes the node once it verifies), or
  // any (a workflow that reports the node as left drained by someone else). `dcgm.level` > 0
  // runs DCGM's diagnostic at that level on every node whose program has the dcgm_diag check,
  // declared or not, on the GPUs it names (replace-gpu's level 2 on the new cards); 0: where
  // gpu.dcgm_diag declares it, on every GPU.
  std::vector<NodeVerifyOutcome> verify(IgnoredDrain ignored = IgnoredDrain::none, const DcgmDiagRequest& dcgm = {});

  // verify --nccl-nodes: one NCCL all-reduce across each set of `nodes_per_set` nodes through
  // Slurm (verify/nccl_nodes.hpp), launched from slurm.controller, over the GPU nodes of
  // `results` (this session's verify()) that passed every check. Adds nccl_allreduce_nodes to
  // each GPU node's checks (skipped where the node could not be in a set) and marks a node
  // whose check did not pass as failed. Does I/O on the controller only.
  void verify_nccl_across_nodes(std::vector<NodeVerifyOutcome>& results, int nodes_per_set);

  // Closes every node's connection: the next plan, apply or verify opens a fresh one (after a
  // reboot done outside the session, e.g. by remediate).
  void drop_connections();
  const std::vector<const Node*>& nodes() const { return m_nodes; }
  const SessionOptions& options() const { return m_options; }
  const Inventory& inventory() const { return m_inventory; }

  // The facts gathered for nodes()[index] by the last plan, apply or verify that reached it;
  // nullptr when its state was never gathered (unreachable, skipped). Call between runs, not
  // during one. For the run history's facts snapshots.
  const NodeFacts* probed_facts(std::size_t index) const;

 private:
  struct NodeData;
  // Resolves the node's program (once per session) and gathers the node's current state.
  // The node's program, resolved once. The first call reads every Slurm node's hardware
  // first (gather_slurm_hardware): slurm.conf is one file for all nodes.
  Result<const NodeProgram*> node_program(std::size_t index);
  // Reads the hardware of every node slurm.conf declares, the session's or not, in parallel,
  // and prepares the cluster context with it; a node whose values are not known makes the
  // templates that list the nodes fail with why. Without Slurm: nothing.
  void gather_slurm_hardware();
  // `purpose` names the probe in the run's hooks ("plan", "verify").
  Result<NodeState> probe_node(std::size_t index, std::string_view purpose, const ProbeExtras& extras = {});
  // Keeps the facts of a state whose plan or checks are made (probed_facts); drops the rest.
  void keep_facts(std::size_t index, NodeState&& state);
  // Called when a node's task in a phase ends: closes its session unless every node's session
  // fits in the open-file limit for the whole run (exec::can_keep_sessions_open).
  void end_node_task(const Node& node);
  exec::TaskResult apply_one(std::size_t index, const NodePlan* plan, bool check_fresh, NodeApplyResult& result);
  // Applies a node's changes, inside a Slurm drain when they are disruptive (apply/drain.hpp).
  exec::TaskResult apply_changes(std::size_t index, const NodePlan& plan, NodeApplyResult& result);
  // Gathers the node's state and runs its program's checks, looking past `ignored` drains.
  exec::TaskResult verify_one(std::size_t index, IgnoredDrain ignored, DcgmDiagRequest dcgm, std::vector<CheckResult>& checks);
  // Announces the phase to the hooks and forwards each node's outcome to them.
  exec::ExecutorOptions executor_options(std::string_view phase);

  const Inventory& m_inventory;
  std::vector<const Node*> m_nodes;
  std::vector<Playbook> m_playbooks;
  SessionOptions m_options;
  RunHooks& m_hooks;
  exec::TransportPool m_pool;
  bool m_keep_sessions = true;  // exec::can_keep_sessions_open at construction
  std::vector<std::unique_ptr<NodeData>> m_data;
  std::once_flag m_hardware_once;
  SlurmHardwareTable m_slurm_hardware;
};

}  // namespace gpuctl
