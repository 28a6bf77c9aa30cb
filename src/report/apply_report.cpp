#include <gpuctl/plan/fold.hpp>
#include <gpuctl/report/reports.hpp>
#include <gpuctl/util/strings.hpp>

#include <algorithm>
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

namespace {

// What the recap says of a node apart from its name and duration: its status and changed
// steps on the first line, then why it failed, the output's last lines and the fix.
std::string recap_text(const NodeApplyOutcome& o) {
  int changed_steps = 0;
  for (const auto& step : o.result.steps) changed_steps += step.status == StepStatus::changed;
  std::string text = fmt::format("{:<12}", exec::to_string(o.outcome.status));
  if (changed_steps) text += fmt::format(" {} step{} changed", changed_steps, changed_steps == 1 ? "" : "s");
  text += "\n";
  if (o.outcome.status == exec::NodeStatus::failed || o.outcome.status == exec::NodeStatus::unreachable ||
      o.outcome.status == exec::NodeStatus::skipped) {
    if (!o.outcome.reason.empty()) text += fmt::format("      {}\n", o.outcome.reason);
    if (!o.result.output_tail.empty()) {
      text += "      output (last lines):\n";
      for (const auto& line : util::split_lines(o.result.output_tail)) text += "        | " + line + "\n";
    }
    if (!o.result.hint.empty()) text += fmt::format("      fix: {}\n", o.result.hint);
  }
  return text;
}

}  // namespace

// Nodes whose recap reads the same fold into one entry headed by their hostlist (plan/fold.hpp),
// with the longest duration among them.
std::string render_apply_recap(const std::vector<NodeApplyOutcome>& outcomes) {
  std::string out = "\nRecap:\n";
  std::vector<exec::NodeOutcome> plain;
  std::vector<NodeText> items;
  for (const auto& o : outcomes) {
    plain.push_back(o.outcome);
    items.push_back({o.outcome.node, o.address, recap_text(o)});
  }
  for (const auto& group : fold_texts(items)) {
    double longest = 0;
    for (const auto m : group.members) longest = std::max(longest, outcomes[m].outcome.duration.count() / 1000.0);
    const auto first_line = group.text.find('\n');
    const auto many = group.members.size() > 1;
    out += fmt::format("  {:<20} {}{}\n", group.hostlist, group.text.substr(0, first_line),
                       many ? fmt::format(" ({} nodes, longest {:.1f}s)", group.members.size(), longest)
                            : fmt::format(" ({:.1f}s)", longest));
    out += group.text.substr(first_line + 1);
  }
  const auto c = count_outcomes(plain);
  out += fmt::format("\n{} nodes: {} ok, {} changed, {} failed, {} unreachable, {} skipped\n", outcomes.size(), c.ok,
                     c.changed, c.failed, c.unreachable, c.skipped);
  return util::terminal_safe(out);  // the reasons are what nodes printed
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
