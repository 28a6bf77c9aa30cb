#pragma once
// Renders Mustache templates (templates/*.mustache) for one node. Pure apart from reading
// template files. A variable the template uses but the context lacks is an error naming the
// template, line and node; values are never HTML-escaped.

#include <gpuctl/core/error.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/template/context.hpp>

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpuctl {

// A file a node should receive.
struct RenderedFile {
  std::string template_name;   // "nccl.conf.mustache"
  std::string path;            // destination on the node, "/etc/nccl.conf"
  std::string content;
  std::uint32_t mode = 0644;
  bool secret = false;         // content is never printed or diffed
  std::string owner = "root";  // as the playbook's file resource declares them
  std::string group = "root";
};

// The inventory-wide part of every node's template context (build_cluster_context), with the
// form the template engine reads, prepared once for a run over many nodes. Its Slurm node
// groups and scrape targets list every node, so preparing it per render would make each render
// O(nodes) and a run O(nodes^2); prepared once, a node's render only adds its own small part.
// Immutable once built: shared by renders on any number of threads.
class PreparedClusterContext {
 public:
  // A template that names a value of `unavailable` (e.g. "slurm.node_groups") fails to render
  // with its reason: a value that could not be derived, e.g. an unreachable node's hardware.
  struct Unavailable {
    std::string name;
    std::string reason;
  };
  explicit PreparedClusterContext(const Inventory& inventory, const SlurmHardwareTable* hardware = nullptr,
                                  std::vector<Unavailable> unavailable = {});
  ~PreparedClusterContext();
  PreparedClusterContext(const PreparedClusterContext&) = delete;
  PreparedClusterContext& operator=(const PreparedClusterContext&) = delete;

  const TemplateValue& values() const { return m_values; }
  const std::vector<Unavailable>& unavailable() const { return m_unavailable; }
  struct EngineData;  // the engine's own form of values(), defined by the adapter
  const EngineData& engine_data() const { return *m_engine_data; }

 private:
  TemplateValue m_values;
  std::vector<Unavailable> m_unavailable;
  std::unique_ptr<const EngineData> m_engine_data;
};

// Renders one template text with the context of `node`. `template_name` is used in errors.
// With `cluster` (prepared from `inventory` once per run) the inventory-wide values are not
// built again; without it they are built for this render.
Result<std::string> render_template_text(const std::string& template_text, const std::string& template_name,
                                         const Inventory& inventory, const Node& node,
                                         const PreparedClusterContext* cluster = nullptr);

// Renders a template file from `templates_dir` for `node`, like render_template_text.
Result<std::string> render_template_file(const std::string& templates_dir, const std::string& template_name,
                                         const Inventory& inventory, const Node& node,
                                         const PreparedClusterContext* cluster = nullptr);

// Directory of the shipped templates: $GPUCTL_TEMPLATES_DIR, else next to the binary's
// share/gpuctl, else the source tree.
std::string default_templates_dir();

}  // namespace gpuctl
