#pragma once
// The shipped playbooks (playbooks/gpu-node.yaml, head-node.yaml) and the files they push to a
// node, for tests of templates and rendering.

#include <gpuctl/plan/program_files.hpp>
#include <gpuctl_build_paths.hpp>
#include <gpuctl/playbook/loader.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace gpuctl::testing {

inline const std::string k_shipped_templates_dir = std::string(GPUCTL_SOURCE_DIR) + "/templates";

inline const std::vector<Playbook>& shipped_playbooks() {
  static const auto playbooks = [] {
    std::vector<std::string> paths;
    for (const auto& name : default_playbook_names())
      paths.push_back(std::string(GPUCTL_SOURCE_DIR) + "/playbooks/" + name + ".yaml");
    auto loaded = load_playbooks(paths);
    if (!loaded) throw std::runtime_error(loaded.error().to_string());
    return *loaded;
  }();
  return playbooks;
}

// Every file the shipped playbooks push to `node` (secrets masked), in playbook order.
inline Result<std::vector<RenderedFile>> shipped_files(const Inventory& inventory, const Node& node,
                                                       const std::string& templates_dir = k_shipped_templates_dir) {
  const Node* nodes[] = {&node};
  auto rendered = render_program_files(inventory, nodes, shipped_playbooks(), templates_dir);
  if (!rendered) return std::unexpected(rendered.error());
  return std::move(rendered->front().files);
}

}  // namespace gpuctl::testing
