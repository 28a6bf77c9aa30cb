#pragma once
// Which rendered files each node receives: a small table of (template, destination, mode,
// condition). Reads the template files; writes nothing.

#include <gpuctl/core/error.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/template/renderer.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

// When a node receives a file.
enum class FileCondition {
  gpu_node,         // gpu.count > 0
  apt_gpu_node,     // a GPU node of an apt-based OS family (debian)
  slurm_node,       // Slurm is configured and the node is its controller, in a partition, or a GPU node
  prometheus_node,  // the node named by monitoring.prometheus
  node_exporter_node,  // a GPU node where monitoring.node_exporter is on (gpu-node.yaml's monitoring step)
};

struct NodeFileSpec {
  std::string_view template_name;  // file in the templates directory
  std::string_view path;           // destination on the node
  std::uint32_t mode;
  FileCondition condition;
};

// The table, in the order files are rendered and listed.
std::span<const NodeFileSpec> node_file_table();

// Whether `node` satisfies `condition` in `inventory`. Pure.
bool node_receives(const Inventory& inventory, const Node& node, FileCondition condition);

// Renders every file `node` receives, in table order (none for a node that needs none).
// Errors: the first template that is missing or fails to render (ErrorCode::not_found,
// template_error naming template, line and node).
Result<std::vector<RenderedFile>> render_node_files(const Inventory& inventory, const Node& node,
                                                    const std::string& templates_dir);

}  // namespace gpuctl
