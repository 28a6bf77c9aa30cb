#include <gpuctl/report/reports.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpuctl {

OutcomeCounts count_outcomes(const std::vector<exec::NodeOutcome>& outcomes) {
  OutcomeCounts counts;
  for (const auto& outcome : outcomes) {
    switch (outcome.status) {
      case exec::NodeStatus::ok: ++counts.ok; break;
      case exec::NodeStatus::changed: ++counts.changed; break;
      case exec::NodeStatus::failed: ++counts.failed; break;
      case exec::NodeStatus::unreachable: ++counts.unreachable; break;
      case exec::NodeStatus::skipped: ++counts.skipped; break;
    }
  }
  return counts;
}

std::string render_apply_recap(const std::vector<NodeApplyOutcome>& outcomes) {
  std::string out = "\nRecap:\n";
  std::vector<exec::NodeOutcome> plain;
  for (const auto& o : outcomes) {
    plain.push_back(o.outcome);
    int changed_steps = 0;
    for (const auto& step : o.result.steps) changed_steps += step.status == StepStatus::changed;
    out += fmt::format("  {:<20} {:<12}", o.outcome.node, exec::to_string(o.outcome.status));
    if (changed_steps) out += fmt::format(" {} step{} changed", changed_steps, changed_steps == 1 ? "" : "s");
    out += fmt::format(" ({:.1f}s)\n", o.outcome.duration.count() / 1000.0);
    if (o.outcome.status == exec::NodeStatus::failed || o.outcome.status == exec::NodeStatus::unreachable ||
        o.outcome.status == exec::NodeStatus::skipped) {
      if (!o.outcome.reason.empty()) out += fmt::format("      {}\n", o.outcome.reason);
      if (!o.result.output_tail.empty()) {
        out += "      output (last lines):\n";
        std::size_t start = 0;
        while (start < o.result.output_tail.size()) {
          const auto end = o.result.output_tail.find('\n', start);
          out += "        | " + o.result.output_tail.substr(start, end - start) + "\n";
          if (end == std::string::npos) break;
          start = end + 1;
        }
      }
      if (!o.result.hint.empty()) out += fmt::format("      fix: {}\n", o.result.hint);
    }
  }
  const auto c = count_outcomes(plain);
  out += fmt::format("\n{} nodes: {} ok, {} changed, {} failed, {} unreachable, {} skipped\n", outcomes.size(), c.ok,
                     c.changed, c.failed, c.unreachable, c.skipped);
  return out;
}

std::string apply_to_json(const std::vector<NodeApplyOutcome>& outcomes) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& o : outcomes) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& step : o.result.steps)
      steps.push_back({{"step", step.name}, {"status", to_string(step.status)}, {"duration_ms", step.duration.count()}});
    nodes.push_back({{"node", o.outcome.node}, {"status", exec::to_string(o.outcome.status)},
                     {"reason", o.outcome.reason}, {"duration_ms", o.outcome.duration.count()},
                     {"failed_step", o.result.failed_step}, {"output_tail", o.result.output_tail},
                     {"hint", o.result.hint}, {"steps", steps}});
  }
  return nlohmann::json{{"format_version", 1}, {"nodes", nodes}}.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace gpuctl
