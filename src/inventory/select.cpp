// select_nodes: --limit patterns of hostlists and group names.
#include <gpuctl/inventory/hostlist.hpp>
#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <set>
#include <unordered_map>
#include <unordered_set>

namespace gpuctl {

Result<std::vector<const Node*>> select_nodes(const Inventory& inventory, std::string_view pattern) {
  std::vector<const Node*> all;
  for (const auto& node : inventory.nodes) all.push_back(&node);
  if (util::trim(pattern).empty()) return all;

  // A group name can contain no brackets, so expanding first and then looking each word up as
  // a group or a node handles "gpu,head01,node[1-2]" in one pass.
  auto words = hostlist::expand(pattern);
  if (!words) {
    auto error = words.error();
    error.message = fmt::format("bad --limit '{}': {}", pattern, error.message);
    return std::unexpected(error);
  }
  std::set<std::string> wanted;
  std::vector<std::string> candidates;
  for (const auto& node : inventory.nodes) candidates.push_back(node.name);
  for (const auto& group : inventory.groups) candidates.push_back(group.name);
  // Hash lookups: a --limit may name every one of 100 000 hosts.
  std::unordered_map<std::string_view, const Group*> groups;
  for (const auto& group : inventory.groups) groups.try_emplace(group.name, &group);
  std::unordered_set<std::string_view> nodes(candidates.begin(), candidates.begin() + inventory.nodes.size());
  for (const auto& word : *words) {
    if (const auto group = groups.find(word); group != groups.end()) {
      wanted.insert(group->second->members.begin(), group->second->members.end());
    } else if (nodes.contains(word)) {
      wanted.insert(word);
    } else {
      const auto match = util::closest_match(word, candidates);
      return fail(ErrorCode::not_found, fmt::format("--limit: '{}' is neither a host nor a group of the inventory", word),
                  {}, match ? fmt::format("did you mean '{}'?", *match) : "");
    }
  }
  // Inventory order, whatever order the pattern named them in.
  std::vector<const Node*> selected;
  for (const auto* node : all)
    if (wanted.contains(node->name)) selected.push_back(node);
  return selected;
}

}  // namespace gpuctl
