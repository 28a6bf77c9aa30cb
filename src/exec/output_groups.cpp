#include <gpuctl/exec/output_groups.hpp>
#include <gpuctl/inventory/hostlist.hpp>

#include <map>
#include <tuple>

namespace gpuctl::exec {

std::vector<OutputGroup> group_outputs(const std::vector<NodeOutput>& outputs) {
  std::vector<OutputGroup> groups;
  // Keyed by views into `outputs`, which outlives the map.
  std::map<std::tuple<std::string_view, std::string_view, int>, std::size_t> index;
  for (const auto& output : outputs) {
    const auto key = std::make_tuple(std::string_view(output.out), std::string_view(output.err), output.exit_code);
    const auto [it, inserted] = index.try_emplace(key, groups.size());
    if (inserted) groups.push_back(OutputGroup{{}, {}, output.out, output.err, output.exit_code});
    groups[it->second].nodes.push_back(output.node);
  }
  for (auto& group : groups) group.hostlist = hostlist::compress(group.nodes);
  return groups;
}

}  // namespace gpuctl::exec
