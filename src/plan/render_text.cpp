#include <gpuctl/plan/fold.hpp>
#include <gpuctl/plan/render.hpp>

#include <gpuctl/inventory/hostlist.hpp>
#include <gpuctl/util/strings.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace gpuctl {
namespace {

struct Palette {
  bool on = false;
  std::string paint(std::string_view text, std::string_view code) const {
    return on ? fmt::format("\x1b[{}m{}\x1b[0m", code, text) : std::string(text);
  }
  std::string action(Action a, std::string_view text) const {
    switch (a) {
      case Action::create: return paint(text, "32");
      case Action::update: return paint(text, "33");
      case Action::remove: return paint(text, "31");
      case Action::run: return paint(text, "36");
      case Action::restart:
      case Action::reboot: return paint(text, "35");
    }
    return std::string(text);
  }
  std::string diff_line(std::string_view line) const {
    if (line.starts_with("+++") || line.starts_with("---")) return paint(line, "1");
    if (line.starts_with('+')) return paint(line, "32");
    if (line.starts_with('-')) return paint(line, "31");
    if (line.starts_with("@@")) return paint(line, "36");
    return std::string(line);
  }
};

std::map<Action, int> count_actions(const Plan& plan) {
  std::map<Action, int> counts;
  for (const auto& node : plan.nodes)
    for (const auto& change : node.changes) ++counts[change.action];
  return counts;
}

std::string change_counts(const std::vector<Change>& changes) {
  std::map<Action, int> counts;
  for (const auto& change : changes) ++counts[change.action];
  std::vector<std::string> parts;
  for (const auto& [action, n] : counts) parts.push_back(fmt::format("{} {}", n, action_name(action)));
  return util::join(parts, ", ");
}

// One block: a node, or a group of nodes whose plans read the same (`who` is then a hostlist
// and `members` their number).
// Diffs already shown, by text, with the block that showed them: a file that is the same on
// every node (slurm.conf) is printed once, in the first block that has it.
using ShownDiffs = std::map<std::string, std::string, std::less<>>;

std::string render_block(std::string_view who, std::size_t members, NodePlanStatus status, std::string_view error,
                         const std::vector<Change>& changes, const std::vector<std::string>& notes, bool placeholders,
                         const Palette& palette, const TextOptions& options, ShownDiffs* shown) {
  const auto many = members > 1 ? fmt::format(" ({} nodes)", members) : std::string();
  std::string out;
  if (status != NodePlanStatus::planned) {
    return fmt::format("  {}  {}{}: {}\n", palette.paint(who, "1"),
                       palette.paint(status == NodePlanStatus::unreachable ? "unreachable" : "failed", "31"), many,
                       util::terminal_safe(error));
  }
  if (changes.empty()) out += fmt::format("  {}  no changes{}\n", palette.paint(who, "1"), many);
  else
    out += fmt::format("  {}  {}({})\n", palette.paint(who, "1"), members > 1 ? fmt::format("{} nodes ", members) : "",
                       change_counts(changes));
  for (const auto& note : notes) out += fmt::format("    {} {}\n", palette.paint("note:", "33"), util::terminal_safe(note));
  if (changes.empty()) return out;
  if (placeholders)
    out += fmt::format("    {}\n", palette.paint(fmt::format("{} and {} below stand for each node's own name and address",
                                                                k_node_placeholder, k_address_placeholder), "2"));
  std::string current_step;
  for (const auto& change : changes) {
    if (change.step != current_step) {
      current_step = change.step;
      out += fmt::format("    [{}]\n", current_step);
    }
    // What a node printed (an error, a file's lines) may hold escape sequences: shown, never obeyed.
    out += fmt::format("      {} {}\n", palette.action(change.action, action_symbol(change.action)),
                       util::terminal_safe(change.summary));
    if (!change.reason.empty()) out += fmt::format("          {}\n", palette.paint(util::terminal_safe(change.reason), "2"));
    if (options.show_diffs && !change.diff.empty()) {
      const auto diff = util::split_lines(change.diff);
      if (shown && diff.size() > 5) {
        if (const auto it = shown->find(change.diff); it != shown->end()) {
          out += fmt::format("          {}\n", palette.paint(fmt::format("(the same diff as shown above for {})", it->second), "2"));
          continue;
        }
        shown->emplace(change.diff, std::string(who));
      }
      const auto limit = options.expand || options.diff_lines == 0 ? diff.size() : std::min(diff.size(), options.diff_lines);
      for (std::size_t i = 0; i < limit; ++i) out += "          " + palette.diff_line(util::terminal_safe(diff[i])) + "\n";
      if (limit < diff.size())
        out += fmt::format("          {}\n", palette.paint(fmt::format("... {} more lines of this diff not shown: --expand "
                                                                        "or --json show them all", diff.size() - limit), "2"));
    }
  }
  return out;
}

// "CPUs=2 Boards=1 (slurmd -C); RealMemory=22528 (24105 MiB ... reserve)": values of one
// source together, in slurm.conf's order.
std::string hardware_line(const SlurmNodeHardware& hardware) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < hardware.values.size();) {
    std::vector<std::string> words;
    const auto& source = hardware.values[i].source;
    for (; i < hardware.values.size() && hardware.values[i].source == source; ++i)
      words.push_back(fmt::format("{}={}", hardware.values[i].key, hardware.values[i].value));
    parts.push_back(fmt::format("{} ({})", util::join(words, " "), source));
  }
  if (!hardware.gpu_cores.empty())
    parts.push_back(fmt::format("GPU cores {} ({})", util::join(hardware.gpu_cores, " "), hardware.gpu_cores_source));
  else if (!hardware.gpu_cores_source.empty())
    parts.push_back("GPU cores " + hardware.gpu_cores_source);
  return util::join(parts, "; ");
}

// Where slurm.conf's CPUs and memory come from, one line per set of nodes alike.
std::string render_slurm_hardware(const SlurmHardwareTable& table) {
  if (table.empty()) return {};
  std::vector<std::pair<std::string, std::vector<std::string>>> lines;  // line -> nodes
  for (const auto& [node, hardware] : table) {
    const auto line = hardware_line(hardware);
    auto it = std::ranges::find(lines, line, &std::pair<std::string, std::vector<std::string>>::first);
    if (it == lines.end()) it = lines.insert(lines.end(), {line, {}});
    it->second.push_back(node);
  }
  std::string out = "Slurm node hardware (slurm.conf, gres.conf):\n";
  for (const auto& [line, nodes] : lines) out += fmt::format("  {}: {}\n", hostlist::compress(nodes), line);
  return out + "\n";
}

}  // namespace

std::string render_plan_summary(const Plan& plan) {
  int with_changes = 0, unreachable = 0, failed = 0;
  for (const auto& node : plan.nodes) {
    if (!node.changes.empty()) ++with_changes;
    if (node.status == NodePlanStatus::unreachable) ++unreachable;
    if (node.status == NodePlanStatus::failed) ++failed;
  }
  const auto counts = count_actions(plan);
  const auto count = [&](Action a) { const auto it = counts.find(a); return it == counts.end() ? 0 : it->second; };
  std::string out = fmt::format("Plan: {} node{}, {} with changes", plan.nodes.size(), plan.nodes.size() == 1 ? "" : "s",
                                with_changes);
  if (with_changes > 0)
    out += fmt::format(" ({} to create, {} to update, {} to remove, {} to run, {} restarts, {} reboots)",
                       count(Action::create), count(Action::update), count(Action::remove), count(Action::run),
                       count(Action::restart), count(Action::reboot));
  if (unreachable) out += fmt::format("; {} unreachable", unreachable);
  if (failed) out += fmt::format("; {} failed", failed);
  return out + ".";
}

std::string render_plan_text(const Plan& plan, const TextOptions& options) {
  const Palette palette{options.color == ColorMode::always};
  std::string out;
  // Which files the plan came from, so a reader can tell the reviewed playbooks were used.
  if (!plan.playbooks.empty()) {
    std::vector<std::string> paths;
    for (const auto& playbook : plan.playbooks) paths.push_back(playbook.path);
    out += fmt::format("Playbooks: {}\n\n", util::join(paths, ", "));
  }
  out += render_slurm_hardware(plan.slurm_hardware);
  if (options.expand) {
    for (const auto& node : plan.nodes)
      out += render_block(node.node, 1, node.status, node.error, node.changes, node.notes, false, palette, options,
                          nullptr);
  } else {
    ShownDiffs shown;
    for (const auto& group : fold_node_plans(plan))
      out += render_block(group.hostlist, group.members.size(), group.status, group.error, group.changes,
                          group.notes, group.placeholders, palette, options, &shown);
  }
  out += "\n" + render_plan_summary(plan) + "\n";
  return out;
}

}  // namespace gpuctl
