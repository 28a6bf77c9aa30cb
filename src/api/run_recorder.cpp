#include <gpuctl/api/run_recorder.hpp>

#include <gpuctl/facts/json.hpp>
#include <gpuctl/plan/render.hpp>
#include <gpuctl/verify/checks.hpp>

namespace gpuctl {

RunRecorder::RunRecorder(state::StateStore& store, state::RunId run) : m_store(store), m_run(run) {}

RunRecorder::~RunRecorder() {
  if (!m_finished) (void)m_store.finish_run(m_run, state::RunStatus::failed);
}

template <typename T>
void RunRecorder::keep(const Result<T>& result) {
  if (result) return;
  const std::lock_guard lock(m_mutex);
  if (!m_first_error) m_first_error = result.error();
}

std::optional<Error> RunRecorder::first_error() const {
  const std::lock_guard lock(m_mutex);
  return m_first_error;
}

void RunRecorder::on_step_start(const std::string& node, const std::string& step) {
  auto id = m_store.start_step(m_run, node, step);
  keep(id);
  if (!id) return;
  const std::lock_guard lock(m_mutex);
  m_open_steps[node] = *id;
}

void RunRecorder::on_step_done(const std::string& node, const std::string& step, StepStatus status,
                               std::chrono::milliseconds duration) {
  std::optional<std::int64_t> id;
  {
    const std::lock_guard lock(m_mutex);
    if (const auto it = m_open_steps.find(node); it != m_open_steps.end()) {
      id = it->second;
      m_open_steps.erase(it);
    }
  }
  if (!id) {  // a step reported without a start (skipped): a row of its own
    auto started = m_store.start_step(m_run, node, step);
    keep(started);
    if (!started) return;
    id = *started;
  }
  keep(m_store.finish_step(*id, std::string(to_string(status)), duration.count()));
}

void RunRecorder::on_checks_done(const std::string& node, const std::vector<CheckResult>& checks) {
  std::vector<state::CheckRecord> records;
  records.reserve(checks.size());
  for (const auto& c : checks)
    records.push_back({c.name, std::string(to_string(c.status)), c.observed, c.expected, c.detail, c.command, c.output});
  keep(m_store.record_checks(m_run, node, records));
}

void RunRecorder::record_plan(const Plan& plan) { keep(m_store.set_plan(m_run, plan_to_json(plan))); }

void RunRecorder::record_facts(const NodeFacts& facts) {
  std::vector<state::GpuObservation> gpus;
  if (facts.gpus.value)
    for (const auto& gpu : *facts.gpus.value) gpus.push_back({gpu.index, gpu.serial, gpu.uuid, gpu.pci_bus_id});
  keep(m_store.record_facts(m_run, facts.node, facts::facts_to_json(facts), gpus));
}

void RunRecorder::record_facts(const Session& session) {
  for (std::size_t i = 0; i < session.nodes().size(); ++i)
    if (const auto* facts = session.probed_facts(i)) {
      // Facts carry the name they were gathered under; the inventory's name is the one history is keyed by.
      if (facts->node == session.nodes()[i]->name) {
        record_facts(*facts);
      } else {
        auto named = *facts;
        named.node = session.nodes()[i]->name;
        record_facts(named);
      }
    }
}

void RunRecorder::record_outcome(const exec::NodeOutcome& outcome) {
  keep(m_store.record_node_result(
      {m_run, outcome.node, std::string(exec::to_string(outcome.status)), outcome.reason, outcome.duration.count()}));
}

void RunRecorder::record_outcomes(std::span<const NodeApplyOutcome> outcomes) {
  for (const auto& o : outcomes) {
    record_outcome(o.outcome);
    if (o.result.failed && !o.result.failed_step.empty())
      keep(m_store.set_step_error(m_run, o.outcome.node, o.result.failed_step, o.result.error));
  }
}

void RunRecorder::record_outcomes(std::span<const NodeVerifyOutcome> outcomes) {
  for (const auto& o : outcomes) record_outcome(o.outcome);
}

void RunRecorder::finish(state::RunStatus status) {
  keep(m_store.finish_run(m_run, status));
  m_finished = true;
}

state::RunStatus run_status_for(std::span<const exec::NodeOutcome> outcomes, bool interrupted) {
  if (interrupted) return state::RunStatus::interrupted;
  for (const auto& o : outcomes)
    if (o.status == exec::NodeStatus::failed || o.status == exec::NodeStatus::unreachable ||
        o.status == exec::NodeStatus::skipped)
      return state::RunStatus::failed;
  return state::RunStatus::ok;
}

}  // namespace gpuctl
