// `scontrol show node` -> SlurmNodeInfo (facts/slurm.hpp). Pure.
#include <gpuctl/facts/slurm.hpp>
#include <gpuctl/util/strings.hpp>

#include <algorithm>
#include <array>
#include <fmt/format.h>
#include <map>

namespace gpuctl::facts {
namespace {

// Keys whose values may hold spaces: scontrol prints them last on their line.
constexpr std::array<std::string_view, 4> k_rest_of_line_keys{"OS", "Reason", "Comment", "Extra"};

// Splits "   NodeAddr=127.0.120.1 NodeHostName=node01 Version=22.05.8" into its pairs. A word
// without '=' continues the previous value (Slurm prints values unquoted, spaces and all).
void parse_line(std::string_view line, std::map<std::string, std::string>& pairs) {
  std::string* last = nullptr;
  std::size_t pos = 0;
  while (pos < line.size()) {
    while (pos < line.size() && line[pos] == ' ') ++pos;
    if (pos >= line.size()) break;
    const auto end = std::min(line.find(' ', pos), line.size());
    const auto word = line.substr(pos, end - pos);
    const auto equals = word.find('=');
    if (equals == std::string_view::npos || equals == 0) {
      if (last) *last += (last->empty() ? "" : " ") + std::string(word);
      pos = end;
      continue;
    }
    const std::string key(word.substr(0, equals));
    if (std::ranges::find(k_rest_of_line_keys, key) != k_rest_of_line_keys.end()) {
      pairs[key] = std::string(util::trim(line.substr(pos + equals + 1)));
      return;
    }
    last = &(pairs[key] = std::string(word.substr(equals + 1)));
    pos = end;
  }
}

// "gpuctl test: maintenance [root@2026-12-02T17:36:18]" -> "gpuctl test: maintenance".
std::string strip_reason_stamp(std::string reason) {
  if (!reason.empty() && reason.back() == ']') {
    const auto open = reason.rfind(" [");
    if (open != std::string::npos && reason.find('@', open) != std::string::npos) reason.erase(open);
  }
  return reason;
}

// Base states in which a node takes no jobs.
constexpr std::array<std::string_view, 3> k_bad_base_states{"DOWN", "UNKNOWN", "FUTURE"};
// Flags that keep a node from taking new jobs. Slurm 22.05 spellings; "DRAIN" also covers
// "draining" (ALLOCATED+DRAIN).
constexpr std::array<std::string_view, 8> k_bad_flags{"DRAIN",       "FAIL",          "NOT_RESPONDING", "INVALID_REG",
                                                      "POWERED_DOWN", "POWERING_DOWN", "POWER_DOWN",     "REBOOT_ISSUED"};

}  // namespace

bool SlurmNodeInfo::has_state(std::string_view state) const { return std::ranges::find(states, state) != states.end(); }

Result<SlurmNodeInfo> parse_scontrol_node(std::string_view text) {
  std::map<std::string, std::string> pairs;
  for (const auto& line : util::split_lines(text)) parse_line(line, pairs);
  SlurmNodeInfo node;
  const auto name = pairs.find("NodeName");
  if (name == pairs.end() || name->second.empty())
    return fail(ErrorCode::parse, fmt::format("no NodeName= in scontrol output: {}", util::tail_lines(text, 2)));
  const auto state = pairs.find("State");
  if (state == pairs.end() || state->second.empty())
    return fail(ErrorCode::parse, fmt::format("no State= for node {} in scontrol output", name->second));
  node.name = name->second;
  // Older releases mark a non-responding node with a trailing '*' (DOWN*); 22.05 prints +NOT_RESPONDING.
  std::string states = state->second;
  if (states.ends_with('*')) {
    states.pop_back();
    states += "+NOT_RESPONDING";
  }
  node.states = util::split(states, '+');
  if (const auto it = pairs.find("Gres"); it != pairs.end()) node.gres = it->second;
  if (const auto it = pairs.find("Reason"); it != pairs.end()) node.reason = strip_reason_stamp(it->second);
  if (const auto it = pairs.find("NodeAddr"); it != pairs.end()) node.address = it->second;
  return node;
}

std::string slurm_gpu_gres(std::string_view gres) {
  for (const auto& entry : util::split(gres, ',')) {
    auto item = std::string_view(entry);
    item = item.substr(0, item.find('('));  // "(S:0-1)": the sockets the GPUs are bound to
    if (item.starts_with("gpu:") || item == "gpu") return std::string(item);
  }
  return {};
}

std::optional<std::string> slurm_node_problem(const SlurmNodeInfo& node) {
  const auto with_reason = [&node](std::string what) {
    return node.reason.empty() ? what : fmt::format("{}: {}", what, node.reason);
  };
  const auto joined = util::join(node.states, "+");
  if (node.states.empty()) return "no state";
  const auto& base = node.states.front();
  if (base == "UNKNOWN" || node.has_state("INVALID_REG"))
    return fmt::format("not registered (State={}): slurmd has not reached slurmctld, or registered a different configuration", joined);
  if (node.has_state("DRAIN")) {
    const bool draining = base == "ALLOCATED" || base == "MIXED" || base == "COMPLETING";
    return with_reason(fmt::format("{} (State={})", draining ? "draining" : "drained", joined));
  }
  if (node.has_state("NOT_RESPONDING")) return with_reason(fmt::format("not responding (State={})", joined));
  if (std::ranges::find(k_bad_base_states, base) != k_bad_base_states.end() ||
      std::ranges::any_of(k_bad_flags, [&node](std::string_view flag) { return node.has_state(flag); }))
    return with_reason(fmt::format("{} (State={})", util::to_lower(base), joined));
  return std::nullopt;
}

}  // namespace gpuctl::facts
