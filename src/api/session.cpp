#include <gpuctl/api/session.hpp>

#include "drain_sequence.hpp"

#include <gpuctl/api/saved_plan.hpp>
#include <gpuctl/apply/drain.hpp>
#include <gpuctl/apply/prefetch.hpp>
#include <gpuctl/facts/state_probe.hpp>
#include <gpuctl/template/renderer.hpp>
#include <gpuctl/util/clock.hpp>
#include <gpuctl/util/open_files.hpp>
#include <gpuctl/util/sha256.hpp>
#include <gpuctl/verify/catalog.hpp>
#include <gpuctl/verify/dcgm_diag.hpp>
#include <gpuctl/verify/nccl_allreduce.hpp>
#include <gpuctl/verify/container_run.hpp>
#include <gpuctl/verify/exporter_scrape.hpp>
#include <gpuctl/verify/slurm_job.hpp>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fmt/format.h>
#include <map>
#include <thread>

namespace gpuctl {

struct Session::NodeData {
  std::optional<NodeProgram> program;
  // The facts of the last state gathered. The rest of a state (observed file contents,
  // packages, services) is dropped once the node's plan or checks are made: a run over
  // hundreds of nodes keeps per node only what its history records.
  std::optional<NodeFacts> facts;
};

namespace {

exec::TaskResult from_error(const Error& error) {
  return {is_connection_error(error) ? exec::NodeStatus::unreachable : exec::NodeStatus::failed, error.to_string()};
}

}  // namespace

Session::Session(const Inventory& inventory, std::vector<const Node*> nodes, std::vector<Playbook> playbooks,
                 TransportFactory factory, SessionOptions options, RunHooks& hooks)
    : m_inventory(inventory),
      m_nodes(std::move(nodes)),
      m_playbooks(std::move(playbooks)),
      m_options(std::move(options)),
      m_hooks(hooks),
      m_pool(std::move(factory)) {
  for (std::size_t i = 0; i < m_nodes.size(); ++i) m_data.push_back(std::make_unique<NodeData>());
  m_keep_sessions = exec::can_keep_sessions_open(m_nodes.size(), util::open_file_limit());
  if (!m_options.sources.cluster_context)
    m_options.sources.cluster_context = std::make_shared<const PreparedClusterContext>(m_inventory);
}

Session::~Session() = default;

void Session::drop_connections() {
  for (const auto* node : m_nodes) m_pool.close(node->name);
}

const NodeFacts* Session::probed_facts(std::size_t index) const {
  if (index >= m_data.size() || !m_data[index]->facts) return nullptr;
  return &*m_data[index]->facts;
}

Result<const NodeProgram*> Session::node_program(std::size_t index) {
  std::call_once(m_hardware_once, [this] { gather_slurm_hardware(); });
  auto& data = *m_data[index];
  if (!data.program) {
    auto program = resolve_program(m_inventory, *m_nodes[index], m_playbooks, m_options.sources);
    if (!program) return std::unexpected(program.error());
    data.program = std::move(*program);
  }
  return &*data.program;
}

Result<NodeState> Session::probe_node(std::size_t index, std::string_view purpose, const ProbeExtras& extras) {
  auto& data = *m_data[index];
  const Node& node = *m_nodes[index];
  if (auto program = node_program(index); !program) return std::unexpected(program.error());
  auto transport = m_pool.get(node);
  if (!transport) return std::unexpected(transport.error());
  auto probe = facts::run_state_probe(**transport, node_probe_options(*data.program, extras), node.connection.become);
  if (!probe) return std::unexpected(probe.error());
  m_hooks.on_probe_done(node.name, purpose, probe->duration);
  auto state = parse_node_state(*data.program, *probe);
  // Package names are an OS's: a node of another OS than the profile's is refused, not planned.
  if (state && state->facts.os.present()) {
    const auto& os = *state->facts.os.value;
    if (auto mismatch = os_mismatch(m_inventory.cluster.profile, os.id, os.version_id, os.pretty_name)) {
      Location where;
      where.node = node.name;
      return fail(ErrorCode::validation, *mismatch, where);
    }
  }
  return state;
}

void Session::keep_facts(std::size_t index, NodeState&& state) { m_data[index]->facts = std::move(state.facts); }

void Session::end_node_task(const Node& node) {
  if (!m_keep_sessions) m_pool.close(node.name);
}

exec::ExecutorOptions Session::executor_options(std::string_view phase) {
  m_hooks.on_phase_start(phase, m_nodes.size());
  return {m_options.forks, m_options.cancel, [this](std::size_t, const exec::NodeOutcome& o) { m_hooks.on_node_done(o); }};
}

Plan Session::plan() {
  Plan plan;
  plan.created_at = util::utc_timestamp();
  plan.inventory_path = m_inventory.path;
  plan.inventory_digest = m_inventory.digest;
  plan.nodes.resize(m_nodes.size());
  const auto options = executor_options("plan");
  const auto outcomes = exec::run_on_nodes(m_nodes, [&](std::size_t i, const Node& node) -> exec::TaskResult {
    m_hooks.on_node_start(node.name, "plan");
    auto state = probe_node(i, "plan");
    if (!state) {
      plan.nodes[i] = NodePlan{node.name, is_connection_error(state.error()) ? NodePlanStatus::unreachable : NodePlanStatus::failed,
                               state.error().to_string(), {}, {}};
      end_node_task(node);
      return from_error(state.error());
    }
    plan.nodes[i] = make_node_plan(*m_data[i]->program, *state);
    keep_facts(i, std::move(*state));
    end_node_task(node);
    return {plan.nodes[i].changes.empty() ? exec::NodeStatus::ok : exec::NodeStatus::changed, {}};
  }, options);
  for (std::size_t i = 0; i < outcomes.size(); ++i)
    if (outcomes[i].status == exec::NodeStatus::skipped)
      plan.nodes[i] = NodePlan{m_nodes[i]->name, NodePlanStatus::failed, "skipped: " + outcomes[i].reason, {}, {}};
  for (std::size_t i = 0; i < plan.nodes.size(); ++i) plan.nodes[i].address = m_nodes[i]->connection.address;
  std::vector<const NodeProgram*> programs;
  for (const auto& data : m_data)
    if (data->program) programs.push_back(&*data->program);
  bind_plan_inputs(plan, m_playbooks, m_options.playbook_names, m_options.sources.templates_dir, programs);
  plan.slurm_hardware = m_slurm_hardware;
  return plan;
}

Result<void> Session::generate_missing_secrets() {
  m_options.sources.secrets = SecretMode::load_or_create;
  for (auto& data : m_data) {
    if (!data->program) continue;
    for (auto& step : data->program->steps)
      for (auto& resolved : step.resources) {
        if (!resolved.secret_missing) continue;
        auto secret = m_options.sources.secret_store.load_or_create(resolved.resource.file.secret);
        if (!secret) return std::unexpected(secret.error());
        resolved.content = std::move(*secret);
        resolved.content_digest = util::sha256_hex(resolved.content);
        resolved.secret_missing = false;
      }
  }
  return {};
}

exec::TaskResult Session::apply_one(std::size_t i, const NodePlan* node_plan, bool check_fresh, NodeApplyResult& result) {
  const Node& node = *m_nodes[i];
  result.node = node.name;
  if (!node_plan) return {exec::NodeStatus::skipped, "not in the plan"};
  if (node_plan->status != NodePlanStatus::planned)
    return {node_plan->status == NodePlanStatus::unreachable ? exec::NodeStatus::unreachable : exec::NodeStatus::failed,
            node_plan->error};
  m_hooks.on_node_start(node.name, "apply");
  if (check_fresh || !m_data[i]->program) {
    auto fresh = probe_node(i, "plan");
    if (!fresh) return from_error(fresh.error());
    const bool stale = check_fresh && fresh->fingerprint() != node_plan->state_fingerprint;
    keep_facts(i, std::move(*fresh));
    if (stale) return {exec::NodeStatus::failed, "stale plan: the node changed since the plan was made; run gpuctl plan again"};
  }
  if (node_plan->changes.empty()) return {exec::NodeStatus::ok, {}};
  return apply_changes(i, *node_plan, result);
}

exec::TaskResult Session::apply_changes(std::size_t i, const NodePlan& node_plan, NodeApplyResult& result) {
  const Node& node = *m_nodes[i];
  const auto applied = [&]() -> exec::TaskResult {
    result = apply_node(m_pool, node, *m_data[i]->program, node_plan, m_options.apply, m_hooks);
    if (result.failed) return {exec::NodeStatus::failed, fmt::format("step '{}': {}", result.failed_step, result.error)};
    return {result.changed ? exec::NodeStatus::changed : exec::NodeStatus::ok, {}};
  };
  const auto& packages = m_inventory.cluster.packages;
  const std::vector<std::string> driver_packages{packages.package("driver"), packages.package("kernel_module")};
  const Change* disruptive = m_inventory.cluster.slurm.enabled ? disruptive_change(node_plan, driver_packages) : nullptr;
  if (!disruptive) return applied();
  // While the node still runs jobs: the drained window is then install + reboot + verify.
  if (m_options.prefetch) prefetch_packages(m_pool, node, *m_data[i]->program, node_plan, m_hooks);

  // Out of service for the change, back only once it verified (drain_sequence.hpp).
  drain_sequence::Sequence sequence{
      .node = node,
      .step = disruptive->step,
      .wait = {m_options.drain_timeout, m_options.drain_poll, m_options.cancel},
      .policy = {},
      .connect = [&] { return m_pool.get(node); },  // reopened after a reboot
      .work = applied,
      .verify = [&] {
        // A rebooted slurmd takes a moment to register again: a failed verify is retried briefly.
        std::vector<CheckResult> checks;
        exec::TaskResult verified;
        for (int attempt = 0; attempt < 6; ++attempt) {
          if (attempt > 0) std::this_thread::sleep_for(m_options.settle_poll);
          verified = verify_one(i, IgnoredDrain::own, {}, checks);
          if (verified.status == exec::NodeStatus::ok) break;
          if (m_options.cancel && m_options.cancel->cancelled()) break;
        }
        return drain_sequence::Verification{verified.status == exec::NodeStatus::ok,
                                            drain_sequence::first_failed_check(checks), verified.reason};
      },
      .on_message = [&](const std::string& text) { m_hooks.on_message(node.name, text); },
  };
  drain_sequence::Record record;
  return drain_sequence::run(sequence, record);
}

std::vector<NodeApplyOutcome> Session::apply(const Plan& plan, bool check_fresh) {
  std::map<std::string, const NodePlan*> by_node;
  for (const auto& node_plan : plan.nodes) by_node[node_plan.node] = &node_plan;
  std::vector<NodeApplyOutcome> results(m_nodes.size());
  const auto options = executor_options("apply");
  std::size_t attempted = 0, failed = 0;
  std::string stop_reason;
  for (const auto& batch : make_batches(m_nodes.size(), m_options.rollout)) {
    if (stop_reason.empty() && rollout_should_stop(failed, attempted, m_options.rollout))
      stop_reason = fmt::format("not started: {} of {} nodes failed, over --max-fail {}%", failed, attempted,
                                m_options.rollout.max_fail_percent);
    if (!stop_reason.empty()) {
      for (const auto i : batch) {
        results[i].outcome = {m_nodes[i]->name, exec::NodeStatus::skipped, stop_reason, {}};
        m_hooks.on_node_done(results[i].outcome);
      }
      continue;
    }
    std::vector<const Node*> nodes;
    for (const auto i : batch) nodes.push_back(m_nodes[i]);
    const auto outcomes = exec::run_on_nodes(nodes, [&](std::size_t b, const Node& node) -> exec::TaskResult {
      const auto it = by_node.find(node.name);
      auto done = apply_one(batch[b], it == by_node.end() ? nullptr : it->second, check_fresh, results[batch[b]].result);
      end_node_task(node);
      return done;
    }, options);
    for (std::size_t b = 0; b < batch.size(); ++b) {
      results[batch[b]].outcome = outcomes[b];
      ++attempted;
      failed += outcomes[b].status == exec::NodeStatus::failed || outcomes[b].status == exec::NodeStatus::unreachable;
    }
  }
  for (std::size_t i = 0; i < results.size(); ++i) results[i].address = m_nodes[i]->connection.address;
  return results;
}

exec::TaskResult Session::verify_one(std::size_t i, IgnoredDrain ignored, DcgmDiagRequest dcgm, std::vector<CheckResult>& checks) {
  auto resolved = node_program(i);
  if (!resolved) return from_error(resolved.error());
  const NodeProgram& program = **resolved;
  const auto checks_wanted = program.checks();
  // The catalog says what the checks read and run; the session knows no check by name.
  const auto needs = check_needs(checks_wanted);
  auto gathered = probe_node(i, "verify", needs.probe_extras());
  if (!gathered) return from_error(gathered.error());
  NodeState& state = *gathered;
  m_data[i]->facts = state.facts;  // a copy: recorded even when the all-reduce below cannot run
  if (ignored != IgnoredDrain::none && state.slurm_node && state.slurm_node->exit_code == 0)
    state.slurm_node->output = without_own_drain(state.slurm_node->output, ignored == IgnoredDrain::any);
  // The all-reduce runs only here (never in plan), and only where the inventory declares it.
  const auto& nccl_spec = m_nodes[i]->gpu.nccl_allreduce;
  std::optional<ObservedNcclRun> nccl_run;
  if (nccl_spec && nccl_spec->enabled && needs.needs(NodeRunner::nccl_allreduce)) {
    auto transport = m_pool.get(*m_nodes[i]);
    if (!transport) return from_error(transport.error());
    auto run = run_nccl_allreduce(**transport, *nccl_spec);
    if (!run && is_connection_error(run.error()) && run.error().code != ErrorCode::timeout) return from_error(run.error());
    if (run) nccl_run = std::move(*run);
    else nccl_run = ObservedNcclRun{{}, {}, -1, {}, run.error().message};
  }
  // DCGM's diagnostic likewise: verify only, where declared (or asked for by replace-gpu).
  const auto& dcgm_spec = m_nodes[i]->gpu.dcgm_diag;
  if (dcgm.level <= 0 && dcgm_spec && dcgm_spec->enabled) dcgm.level = dcgm_spec->level;
  std::optional<ObservedDcgmDiag> dcgm_run;
  if (dcgm.level > 0 && needs.needs(NodeRunner::dcgm_diag)) {
    auto transport = m_pool.get(*m_nodes[i]);
    if (!transport) return from_error(transport.error());
    auto run = run_dcgm_diag(**transport, dcgm);
    if (!run && is_connection_error(run.error()) && run.error().code != ErrorCode::timeout) return from_error(run.error());
    if (run) dcgm_run = std::move(*run);
    else dcgm_run = ObservedDcgmDiag{dcgm.level, {}, -1, {}, run.error().message, {}};
  }
  // verify --slurm-job: a real job through Slurm, from the node itself.
  std::optional<ObservedSlurmJob> slurm_job;
  if (m_options.slurm_job && needs.needs(NodeRunner::slurm_job)) {
    auto transport = m_pool.get(*m_nodes[i]);
    if (!transport) return from_error(transport.error());
    slurm_job = run_slurm_job(**transport, *m_nodes[i]);
  }
  // The exporters' pages, where a check reads them (exporter_metrics).
  std::optional<ObservedExporterScrapes> scrapes;
  if (needs.needs(NodeRunner::exporter_scrape)) {
    auto transport = m_pool.get(*m_nodes[i]);
    if (!transport) return from_error(transport.error());
    scrapes = scrape_exporters(**transport, m_inventory, *m_nodes[i]);
  }
  // A container through CDI, where the node declares a test image (container_gpu).
  std::optional<ObservedContainerRun> container_run;
  if (needs.needs(NodeRunner::container_gpu) && m_nodes[i]->containers && !m_nodes[i]->containers->gpu_test_image.empty()) {
    auto transport = m_pool.get(*m_nodes[i]);
    if (!transport) return from_error(transport.error());
    container_run = run_container_gpu(**transport, *m_nodes[i]);
  }
  const CheckInput input{m_inventory, *m_nodes[i], program, state, nccl_run ? &*nccl_run : nullptr,
                         dcgm_run ? &*dcgm_run : nullptr, slurm_job ? &*slurm_job : nullptr,
                         scrapes ? &*scrapes : nullptr, container_run ? &*container_run : nullptr};
  checks = run_checks(checks_wanted, input);
  m_hooks.on_checks_done(m_nodes[i]->name, checks);
  for (const auto& check : checks)
    if (check.status == CheckStatus::fail || check.status == CheckStatus::error)
      return {exec::NodeStatus::failed, fmt::format("check {} {}", check.name, to_string(check.status))};
  return {exec::NodeStatus::ok, {}};
}

std::vector<NodeVerifyOutcome> Session::verify(IgnoredDrain ignored, const DcgmDiagRequest& dcgm) {
  std::vector<NodeVerifyOutcome> results(m_nodes.size());
  const auto options = executor_options("verify");
  const auto outcomes = exec::run_on_nodes(m_nodes, [&](std::size_t i, const Node& node) -> exec::TaskResult {
    m_hooks.on_node_start(node.name, "verify");
    auto done = verify_one(i, ignored, dcgm, results[i].checks);
    end_node_task(node);
    return done;
  }, options);
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    results[i].outcome = outcomes[i];
    results[i].address = m_nodes[i]->connection.address;
  }
  return results;
}

}  // namespace gpuctl
