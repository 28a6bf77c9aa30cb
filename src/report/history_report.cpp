#include <gpuctl/report/history.hpp>

#include <gpuctl/plan/render.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpuctl {
namespace {

using nlohmann::json;
constexpr int k_history_format_version = 1;

// "3 ok, 1 changed, 1 failed" from the node results (or "-" before any node finished).
std::string node_counts(const RunView& view) {
  std::map<std::string, int> counts;
  for (const auto& node : view.nodes) ++counts[node.status];
  std::string out;
  for (const char* status : {"ok", "changed", "failed", "unreachable", "skipped"})
    if (counts[status]) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", counts[status], status);
  return out.empty() ? "-" : out;
}

std::string seconds(std::int64_t ms) { return fmt::format("{:.1f}s", ms / 1000.0); }

void append_steps(std::string& out, const std::vector<state::NodeStepRecord>& steps, const std::string& node,
                  const std::string& indent) {
  for (const auto& step : steps) {
    if (step.node != node) continue;
    out += fmt::format("{}{:<24} {:<12} {:>7}", indent, step.step, step.status, seconds(step.duration_ms));
    if (!step.error.empty()) out += "  " + step.error.substr(0, step.error.find('\n'));
    out += '\n';
  }
}

// Every node of the run: those with a result, then those with steps only (a killed run).
std::vector<std::string> run_nodes(const RunView& view) {
  std::vector<std::string> nodes;
  for (const auto& result : view.nodes) nodes.push_back(result.node);
  for (const auto& step : view.steps)
    if (std::ranges::find(nodes, step.node) == nodes.end()) nodes.push_back(step.node);
  return nodes;
}

json run_json(const RunView& view, bool with_details) {
  const auto& r = view.run;
  json out = {{"id", r.id},
              {"command", r.command},
              {"status", std::string(state::to_string(r.status))},
              {"who", r.process.who},
              {"host", r.process.host},
              {"pid", r.process.pid},
              {"started", r.started},
              {"finished", r.finished.empty() ? json(nullptr) : json(r.finished)},
              {"command_line", r.command_line},
              {"inventory", {{"path", r.inventory_path}, {"digest", r.inventory_digest}}}};
  json nodes = json::array();
  for (const auto& n : view.nodes)
    nodes.push_back({{"node", n.node}, {"status", n.status}, {"reason", n.reason}, {"duration_ms", n.duration_ms}});
  out["nodes"] = std::move(nodes);
  json steps = json::array();
  for (const auto& s : view.steps)
    steps.push_back({{"node", s.node}, {"step", s.step}, {"status", s.status}, {"started", s.started},
                     {"duration_ms", s.duration_ms}, {"error", s.error}});
  out["steps"] = std::move(steps);
  if (with_details) {
    out["plan"] = r.plan_json.empty() ? json(nullptr) : json::parse(r.plan_json, nullptr, false);
    json facts = json::array();
    for (const auto& f : view.facts)
      facts.push_back({{"node", f.node}, {"taken", f.taken}, {"facts", json::parse(f.facts_json, nullptr, false)}});
    out["facts"] = std::move(facts);
  }
  return out;
}

}  // namespace

Result<HistoryView> load_history(state::StateStore& store, const state::RunQuery& query) {
  HistoryView history;
  history.node = query.node;
  auto runs = store.list_runs(query);
  if (!runs) return std::unexpected(runs.error());
  for (auto& run : *runs) {
    RunView view;
    view.run = std::move(run);
    auto nodes = store.node_results(view.run.id);
    if (!nodes) return std::unexpected(nodes.error());
    for (auto& n : *nodes)
      if (query.node.empty() || n.node == query.node) view.nodes.push_back(std::move(n));
    auto steps = store.steps(view.run.id, query.node);
    if (!steps) return std::unexpected(steps.error());
    view.steps = std::move(*steps);
    history.runs.push_back(std::move(view));
  }
  if (!query.node.empty()) {
    auto slots = store.gpu_slot_history(query.node);
    if (!slots) return std::unexpected(slots.error());
    history.gpu_slots = std::move(*slots);
  }
  return history;
}

Result<RunView> load_run(state::StateStore& store, state::RunId id) {
  RunView view;
  auto run = store.get_run(id);
  if (!run) return std::unexpected(run.error());
  view.run = std::move(*run);
  auto nodes = store.node_results(id);
  if (!nodes) return std::unexpected(nodes.error());
  view.nodes = std::move(*nodes);
  auto steps = store.steps(id);
  if (!steps) return std::unexpected(steps.error());
  view.steps = std::move(*steps);
  auto facts = store.facts_snapshots(id);
  if (!facts) return std::unexpected(facts.error());
  view.facts = std::move(*facts);
  return view;
}

std::string render_history_text(const HistoryView& history) {
  if (history.runs.empty())
    return history.node.empty() ? "No runs recorded.\n" : fmt::format("No runs recorded for {}.\n", history.node);
  std::string out = fmt::format("{:>5}  {:<20}  {:<11}  {:<7}  {:<24}  {}\n", "RUN", "STARTED", "STATUS", "COMMAND",
                                "WHO", "NODES");
  for (const auto& view : history.runs) {
    const auto& r = view.run;
    out += fmt::format("{:>5}  {:<20}  {:<11}  {:<7}  {:<24}  {}\n", r.id, r.started, state::to_string(r.status),
                       r.command, r.process.who, node_counts(view));
    if (!history.node.empty()) {
      for (const auto& n : view.nodes)
        if (!n.reason.empty()) out += fmt::format("       {}: {}\n", n.node, n.reason);
      append_steps(out, view.steps, history.node, "       ");
    }
  }
  if (!history.gpu_slots.empty()) {
    out += fmt::format("\nGPU serials per slot on {}:\n", history.node);
    out += fmt::format("  {:>4}  {:<16}  {:<42}  {:<18}  {:<20}  {}\n", "SLOT", "SERIAL", "UUID", "PCI BUS ID",
                       "FIRST SEEN", "LAST SEEN");
    for (const auto& s : history.gpu_slots)
      out += fmt::format("  {:>4}  {:<16}  {:<42}  {:<18}  {:<20}  {}\n", s.slot, s.serial.empty() ? "-" : s.serial,
                         s.uuid, s.pci_bus_id, s.first_seen, s.last_seen);
  }
  return out;
}

std::string history_to_json(const HistoryView& history) {
  json runs = json::array();
  for (const auto& view : history.runs) runs.push_back(run_json(view, false));
  json out = {{"format_version", k_history_format_version}, {"runs", std::move(runs)}};
  if (!history.node.empty()) {
    out["node"] = history.node;
    json slots = json::array();
    for (const auto& s : history.gpu_slots)
      slots.push_back({{"slot", s.slot}, {"serial", s.serial}, {"uuid", s.uuid}, {"pci_bus_id", s.pci_bus_id},
                       {"first_seen", s.first_seen}, {"last_seen", s.last_seen}});
    out["gpu_slots"] = std::move(slots);
  }
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string render_run_text(const RunView& view) {
  const auto& r = view.run;
  std::string out = fmt::format("Run {}: {} {}\n", r.id, r.command, state::to_string(r.status));
  out += fmt::format("  by        {} (pid {} on {})\n", r.process.who, r.process.pid, r.process.host);
  out += fmt::format("  started   {}\n  finished  {}\n", r.started, r.finished.empty() ? "-" : r.finished);
  out += fmt::format("  command   {}\n", r.command_line);
  out += fmt::format("  inventory {} (sha256 {})\n", r.inventory_path, r.inventory_digest.substr(0, 12));
  if (!r.plan_json.empty()) {
    if (auto plan = plan_from_json(r.plan_json, "run " + std::to_string(r.id))) {
      auto summary = render_plan_summary(*plan);
      if (!summary.ends_with('\n')) summary += '\n';
      out += "  plan      " + summary;
    }
  }
  const auto nodes = run_nodes(view);
  if (!nodes.empty()) out += "\nNodes:\n";
  for (const auto& node : nodes) {
    const auto result = std::ranges::find(view.nodes, node, &state::NodeResultRecord::node);
    if (result != view.nodes.end())
      out += fmt::format("  {:<20} {:<12} {:>7}{}\n", node, result->status, seconds(result->duration_ms),
                         result->reason.empty() ? "" : "  " + result->reason);
    else
      out += fmt::format("  {:<20} (no outcome recorded)\n", node);
    append_steps(out, view.steps, node, "    ");
  }
  if (!view.facts.empty()) {
    out += "\nFacts snapshots:\n";
    for (const auto& f : view.facts) {
      const auto facts = json::parse(f.facts_json, nullptr, false);
      std::string gpus = "GPUs absent";
      if (facts.is_object() && facts.contains("gpus") && facts["gpus"].is_array())
        gpus = fmt::format("{} GPUs", facts["gpus"].size());
      out += fmt::format("  {:<20} {}  {}\n", f.node, f.taken, gpus);
    }
  }
  return out;
}

std::string run_to_json(const RunView& view) {
  json out = run_json(view, true);
  out["format_version"] = k_history_format_version;
  return out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace gpuctl
