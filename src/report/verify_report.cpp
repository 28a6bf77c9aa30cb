#include <gpuctl/plan/fold.hpp>
#include <gpuctl/report/reports.hpp>
#include <gpuctl/util/strings.hpp>
#include <gpuctl/verify/nccl_nodes.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <nlohmann/json.hpp>

namespace gpuctl {
namespace {

std::vector<std::string> check_columns(const std::vector<NodeVerifyOutcome>& outcomes) {
  std::vector<std::string> columns;
  for (const auto& o : outcomes)
    for (const auto& check : o.checks)
      if (std::ranges::find(columns, check.name) == columns.end()) columns.push_back(check.name);
  return columns;
}

std::string xml_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters, even escaped.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') out += '?';
        else out += c;
    }
  }
  return out;
}

}  // namespace

namespace {

bool not_checked(const NodeVerifyOutcome& o) { return o.outcome.status == exec::NodeStatus::unreachable || o.checks.empty(); }

std::string failure_text(const CheckResult& check) {
  return fmt::format("observed {}, expected {}{}", check.observed.empty() ? "-" : check.observed,
                     check.expected.empty() ? "-" : check.expected, check.detail.empty() ? "" : " (" + check.detail + ")");
}

// "Skipped: a on 3 nodes, b on 1 node (...)": skips (checks the inventory does not ask for, or
// that do not apply to the node: no AER counters, an A100's fabric, no partner for
// --nccl-nodes) are counted per check, never listed, so that at hundreds of nodes they bury
// nothing. Each skip's reason is in `verify --json`.
std::string skipped_line(const std::vector<NodeVerifyOutcome>& outcomes) {
  std::vector<std::pair<std::string, int>> skipped;  // check name, nodes; in column order
  for (const auto& o : outcomes)
    for (const auto& check : o.checks) {
      if (check.status != CheckStatus::skipped) continue;
      auto it = std::ranges::find(skipped, check.name, &std::pair<std::string, int>::first);
      if (it == skipped.end()) skipped.emplace_back(check.name, 1);
      else ++it->second;
    }
  if (skipped.empty()) return {};
  std::string counts;
  for (const auto& [name, nodes] : skipped)
    counts += fmt::format("{}{} on {} node{}", counts.empty() ? "" : ", ", name, nodes, nodes == 1 ? "" : "s");
  return fmt::format("\nSkipped: {} (not asked for by the inventory, or not applicable there; each reason: verify --json)\n", counts);
}

// verify --nccl-nodes: each set's bus bandwidth once (a passing nccl_allreduce_nodes check's
// observed value is the same on every node of its set). Up to k_listed_sets sets are listed,
// slowest first; beyond, the spread and the slowest few, since a slow set is what to look at.
std::string nccl_sets_lines(const std::vector<NodeVerifyOutcome>& outcomes) {
  constexpr std::size_t k_listed_sets = 10, k_slowest = 5;
  std::vector<std::pair<double, std::string>> sets;  // busbw, observed
  for (const auto& o : outcomes)
    for (const auto& check : o.checks) {
      const auto busbw = nccl_nodes_busbw(check);
      if (!busbw || std::ranges::find(sets, check.observed, &std::pair<double, std::string>::second) != sets.end()) continue;
      sets.emplace_back(*busbw, check.observed);
    }
  if (sets.empty()) return {};
  std::ranges::sort(sets);
  std::string out = fmt::format("\nNCCL all-reduce across nodes ({} set{} that passed, slowest first):\n", sets.size(),
                                sets.size() == 1 ? "" : "s");
  if (sets.size() > k_listed_sets)
    out += fmt::format("  busbw min {:.1f}, median {:.1f}, max {:.1f} GB/s; the {} slowest:\n", sets.front().first,
                       sets[sets.size() / 2].first, sets.back().first, k_slowest);
  const auto listed = sets.size() > k_listed_sets ? k_slowest : sets.size();
  for (std::size_t i = 0; i < listed; ++i) out += "  " + sets[i].second + "\n";
  return out;
}

std::string verdict_line(const std::vector<NodeVerifyOutcome>& outcomes) {
  const auto passed = std::ranges::count_if(outcomes, [](const auto& o) { return o.outcome.status == exec::NodeStatus::ok; });
  return fmt::format("\nVerify: {} of {} nodes pass every check.\n", passed, outcomes.size());
}

// The GPU serials a check's text names ("GPU 3 (1650123456789): ..."): a node's own, so that
// the same failure on many nodes folds into one line with <serial>.
std::vector<std::pair<std::string, std::string>> serials_in(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> serials;
  for (auto open = text.find('('); open != std::string_view::npos; open = text.find('(', open + 1)) {
    const auto close = text.find(')', open);
    if (close == std::string_view::npos) break;
    const auto inside = text.substr(open + 1, close - open - 1);
    if (inside.size() >= 6 && inside.find_first_not_of("0123456789") == std::string_view::npos)
      serials.emplace_back(std::string(inside), "<serial>");
  }
  return serials;
}

std::string nodes_label(const TextGroup& group) {
  return group.members.size() == 1 ? group.hostlist : fmt::format("{} ({} nodes)", group.hostlist, group.members.size());
}

// One row per node, one column per check; every non-pass of every node on its own line.
std::string render_per_node(const std::vector<NodeVerifyOutcome>& outcomes) {
  const auto columns = check_columns(outcomes);
  std::size_t node_width = 4;
  for (const auto& o : outcomes) node_width = std::max(node_width, o.outcome.node.size());
  // Columns are numbered to keep the table narrow; the legend names them.
  std::string out = fmt::format("{:<{}}", "node", node_width);
  for (std::size_t c = 0; c < columns.size(); ++c) out += fmt::format(" {:>4}", fmt::format("c{}", c + 1));
  out += "\n";
  for (const auto& o : outcomes) {
    out += fmt::format("{:<{}}", o.outcome.node, node_width);
    if (not_checked(o)) {
      out += fmt::format(" {}: {}\n", exec::to_string(o.outcome.status), o.outcome.reason);
      continue;
    }
    for (const auto& column : columns) {
      const auto it = std::ranges::find(o.checks, column, &CheckResult::name);
      out += fmt::format(" {:>4}", it == o.checks.end() ? "-" : grid_label(it->status));
    }
    out += "\n";
  }
  out += "\n";
  for (std::size_t c = 0; c < columns.size(); ++c) out += fmt::format("  c{} = {}\n", c + 1, columns[c]);
  bool header = false;
  for (const auto& o : outcomes)
    for (const auto& check : o.checks) {
      if (check.status == CheckStatus::pass || check.status == CheckStatus::skipped) continue;
      if (!header) out += "\nNot passing:\n";
      header = true;
      out += fmt::format("  {} {} {}: {}\n", o.outcome.node, check.name, to_string(check.status), failure_text(check));
    }
  return out;
}

// Checks as rows with the number of nodes per result; then the failures grouped.
std::string render_folded(const std::vector<NodeVerifyOutcome>& outcomes) {
  const auto columns = check_columns(outcomes);
  std::size_t width = 5;
  for (const auto& column : columns) width = std::max(width, column.size());
  const auto cell = [](int n) { return n == 0 ? std::string("-") : std::to_string(n); };
  std::string out = fmt::format("{:<{}}  {:>5}  {:>5}  {:>5}  {:>5}\n", "check", width, "pass", "fail", "error", "skip");
  for (const auto& column : columns) {
    std::map<CheckStatus, int> counts;
    for (const auto& o : outcomes)
      for (const auto& check : o.checks)
        if (check.name == column) ++counts[check.status];
    out += fmt::format("{:<{}}  {:>5}  {:>5}  {:>5}  {:>5}\n", column, width, cell(counts[CheckStatus::pass]),
                       cell(counts[CheckStatus::fail]), cell(counts[CheckStatus::error]), cell(counts[CheckStatus::skipped]));
  }

  // Failures first, by check in column order, then by what they observed.
  std::string failures;
  for (const auto& column : columns) {
    for (const auto status : {CheckStatus::fail, CheckStatus::error}) {
      std::vector<NodeText> items;
      for (const auto& o : outcomes)
        for (const auto& check : o.checks)
          if (check.name == column && check.status == status) {
            auto text = failure_text(check);
            auto serials = serials_in(text);
            items.push_back({o.outcome.node, o.address, std::move(text), std::move(serials)});
          }
      for (const auto& group : fold_texts(items))
        failures += fmt::format("  {} {} on {}: {}\n", column, to_string(status), nodes_label(group), group.text);
    }
  }
  // Nodes that were not checked at all (unreachable, or their probe failed), by their error.
  std::vector<NodeText> unchecked;
  for (const auto& o : outcomes)
    if (not_checked(o))
      unchecked.push_back({o.outcome.node, o.address, fmt::format("{}: {}", exec::to_string(o.outcome.status), o.outcome.reason)});
  for (const auto& group : fold_texts(unchecked)) {
    const auto colon = group.text.find(':');
    failures += fmt::format("  {} on {}:{}\n", group.text.substr(0, colon), nodes_label(group), group.text.substr(colon + 1));
  }
  if (!failures.empty()) out += "\nNot passing:\n" + failures;
  return out;
}

}  // namespace

std::string render_verify_table(const std::vector<NodeVerifyOutcome>& outcomes, const VerifyTextOptions& options) {
  std::string out = options.expand ? render_per_node(outcomes) : render_folded(outcomes);
  // Uncoloured text: what nodes printed is made terminal-safe in one place.
  return util::terminal_safe(out + nccl_sets_lines(outcomes) + skipped_line(outcomes) + verdict_line(outcomes));
}

std::string verify_to_json(const std::vector<NodeVerifyOutcome>& outcomes) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& o : outcomes) {
    nlohmann::json checks = nlohmann::json::array();
    for (const auto& c : o.checks)
      checks.push_back({{"check", c.name}, {"status", to_string(c.status)}, {"observed", c.observed},
                        {"expected", c.expected}, {"detail", c.detail}, {"command", c.command}, {"output", c.output}});
    nodes.push_back({{"node", o.outcome.node}, {"status", exec::to_string(o.outcome.status)},
                     {"reason", o.outcome.reason}, {"checks", checks}});
  }
  return nlohmann::json{{"format_version", 1}, {"nodes", nodes}}.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string verify_to_junit(const std::vector<NodeVerifyOutcome>& outcomes) {
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"gpuctl verify\">\n";
  for (const auto& o : outcomes) {
    int failures = 0, errors = 0, skipped = 0;
    for (const auto& c : o.checks) {
      failures += c.status == CheckStatus::fail;
      errors += c.status == CheckStatus::error;
      skipped += c.status == CheckStatus::skipped;
    }
    const bool unreachable = o.checks.empty();
    out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\">\n",
                       xml_escape(o.outcome.node), unreachable ? 1 : o.checks.size(), failures,
                       unreachable ? 1 : errors, skipped);
    if (unreachable)
      out += fmt::format("    <testcase classname=\"{0}\" name=\"reachable\"><error message=\"{1}\"/></testcase>\n",
                         xml_escape(o.outcome.node), xml_escape(o.outcome.reason));
    for (const auto& c : o.checks) {
      const auto message = xml_escape(fmt::format("observed {}, expected {}{}", c.observed, c.expected,
                                                  c.detail.empty() ? "" : " (" + c.detail + ")"));
      out += fmt::format("    <testcase classname=\"{}\" name=\"{}\">", xml_escape(o.outcome.node), xml_escape(c.name));
      // The body holds what the check read, so a CI page shows the evidence.
      const auto body = c.command.empty() ? std::string{} : xml_escape(fmt::format("$ {}\n{}", c.command, c.output));
      const auto element = [&](std::string_view tag) {
        return body.empty() ? fmt::format("<{} message=\"{}\"/>", tag, message)
                            : fmt::format("<{0} message=\"{1}\">{2}</{0}>", tag, message, body);
      };
      if (c.status == CheckStatus::fail) out += element("failure");
      if (c.status == CheckStatus::error) out += element("error");
      if (c.status == CheckStatus::skipped) out += fmt::format("<skipped message=\"{}\"/>", xml_escape(c.detail));
      out += "</testcase>\n";
    }
    out += "  </testsuite>\n";
  }
  return out + "</testsuites>\n";
}

}  // namespace gpuctl
