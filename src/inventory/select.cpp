// select_nodes: --limit patterns of hostlists and group names, `all`, `@group` and exclusions.
#include <gpuctl/inventory/hostlist.hpp>
#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <set>
#include <unordered_map>
#include <unordered_set>

namespace gpuctl {
namespace {

// The pattern's comma-separated terms; a comma inside brackets belongs to a hostlist range.
std::vector<std::string_view> terms_of(std::string_view pattern) {
  std::vector<std::string_view> terms;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= pattern.size(); ++i) {
    if (i < pattern.size() && pattern[i] == '[') ++depth;
    if (i < pattern.size() && pattern[i] == ']' && depth > 0) --depth;
    if (i == pattern.size() || (pattern[i] == ',' && depth == 0)) {
      terms.push_back(util::trim(pattern.substr(start, i - start)));
      start = i + 1;
    }
  }
  return terms;
}

class Selector {
 public:
  explicit Selector(const Inventory& inventory) : m_inventory(inventory) {
    for (const auto& node : inventory.nodes) m_candidates.push_back(node.name);
    for (const auto& group : inventory.groups) m_candidates.push_back(group.name);
    // Hash lookups: a --limit may name every one of 100 000 hosts.
    for (const auto& group : inventory.groups) m_groups.try_emplace(group.name, &group);
    for (const auto& node : inventory.nodes) m_nodes.insert(node.name);
  }

  // The node names one term selects: `all`, `@group`, or a hostlist of node and group names.
  Result<std::set<std::string>> resolve(std::string_view term) {
    std::set<std::string> names;
    if (term == "all" && !m_groups.contains("all") && !m_nodes.contains("all")) {
      for (const auto& node : m_inventory.nodes) names.insert(node.name);
      return names;
    }
    if (term.starts_with('@')) {
      const auto group = m_groups.find(term.substr(1));
      if (group == m_groups.end()) return unknown(term, "is not a group of the inventory", term.substr(1));
      names.insert(group->second->members.begin(), group->second->members.end());
      return names;
    }
    // A group name can contain no brackets, so expanding first and then looking each word up
    // as a group or a node handles "gpu,head01,node[1-2]" in one pass.
    auto words = hostlist::expand(term);
    if (!words) {
      auto error = words.error();
      error.message = fmt::format("bad --limit term '{}': {}", term, error.message);
      return std::unexpected(error);
    }
    for (const auto& word : *words) {
      if (const auto group = m_groups.find(word); group != m_groups.end())
        names.insert(group->second->members.begin(), group->second->members.end());
      else if (m_nodes.contains(word))
        names.insert(word);
      else
        return unknown(word, "is neither a host nor a group of the inventory", word);
    }
    return names;
  }

 private:
  std::unexpected<Error> unknown(std::string_view what, std::string_view problem, std::string_view name) const {
    const auto match = util::closest_match(name, m_candidates);
    return std::unexpected(Error{ErrorCode::not_found, fmt::format("--limit: '{}' {}", what, problem), {},
                                 match ? fmt::format("did you mean '{}'?", *match) : ""});
  }

  const Inventory& m_inventory;
  std::vector<std::string> m_candidates;
  std::unordered_map<std::string_view, const Group*> m_groups;
  std::unordered_set<std::string_view> m_nodes;
};

}  // namespace

Result<std::vector<const Node*>> select_nodes(const Inventory& inventory, std::string_view pattern) {
  std::vector<const Node*> all;
  for (const auto& node : inventory.nodes) all.push_back(&node);
  if (util::trim(pattern).empty()) return all;

  Selector selector(inventory);
  std::set<std::string> wanted, excluded;
  bool any_include = false;
  for (const auto term : terms_of(pattern)) {
    if (term.empty() || term == "!")
      return fail(ErrorCode::parse, fmt::format("bad --limit '{}': an empty term", pattern), {},
                  "separate hostlists, groups, @groups and !exclusions with single commas");
    const bool exclude = term.starts_with('!');
    auto names = selector.resolve(exclude ? util::trim(term.substr(1)) : term);
    if (!names) return std::unexpected(names.error());
    (exclude ? excluded : wanted).merge(*names);
    any_include = any_include || !exclude;
  }
  // Only exclusions ("!gpu07"): everything else, as "all,!gpu07".
  std::vector<const Node*> selected;
  for (const auto* node : all)
    if ((!any_include || wanted.contains(node->name)) && !excluded.contains(node->name)) selected.push_back(node);
  return selected;
}

}  // namespace gpuctl
