#pragma once
// Renders Mustache templates (templates/*.mustache) for one node. Pure apart from reading
// template files. A variable the template uses but the context lacks is an error naming the
// template, line and node; values are never HTML-escaped.

#include <gpuctl/core/error.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/template/context.hpp>

#include <map>
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
};

// Renders one template text with the context of `node`. `template_name` is used in errors.
Result<std::string> render_template_text(const std::string& template_text, const std::string& template_name,
                                         const Inventory& inventory, const Node& node,
                                         const TemplateValue* cluster = nullptr);

// Renders a template file from `templates_dir` for `node`. With `cluster` (build_cluster_context
// of `inventory`, made once per run), the inventory-wide values are not computed again.
Result<std::string> render_template_file(const std::string& templates_dir, const std::string& template_name,
                                         const Inventory& inventory, const Node& node,
                                         const TemplateValue* cluster = nullptr);

// Directory of the shipped templates: $GPUCTL_TEMPLATES_DIR, else next to the binary's
// share/gpuctl, else the source tree.
std::string default_templates_dir();

}  // namespace gpuctl
