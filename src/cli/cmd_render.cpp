// `gpuctl render`: every file each node would receive, printed or written as one tree per
// node, for review and CI diffs. Contacts no node.
#include "command_registry.hpp"

#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/plan/program_files.hpp>
#include <gpuctl/playbook/loader.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <cstdio>

namespace gpuctl::cli {
namespace {

struct RenderOptions {
  std::string inventory;
  std::string node;
  std::string limit;
  std::string out_dir;
  std::string templates_dir;
  std::vector<std::string> playbooks;
};

void print_error(const Error& error) { fmt::print(stderr, "gpuctl: error: {}\n", error.to_string()); }

int run_render(const RenderOptions& options, const GlobalOptions& globals) {
  const LoadResult loaded = load_inventory(options.inventory);
  for (const auto& diagnostic : loaded.diagnostics)
    if (diagnostic.severity == Severity::error || globals.verbosity >= 0)
      fmt::print(stderr, "{}\n", diagnostic.to_string());
  if (!loaded.ok()) return k_exit_usage;
  const Inventory& inventory = *loaded.inventory;

  if (!options.node.empty() && inventory.find_node(options.node) == nullptr) {
    std::vector<std::string> names;
    for (const auto& node : inventory.nodes) names.push_back(node.name);
    const auto guess = util::closest_match(options.node, names);
    print_error(Error{ErrorCode::not_found, fmt::format("--node: no host '{}' in the inventory", options.node), {},
                      guess ? fmt::format("did you mean '{}'?", *guess) : "see: gpuctl inventory " + options.inventory});
    return k_exit_usage;
  }
  auto nodes = select_nodes(inventory, options.node.empty() ? options.limit : options.node);
  if (!nodes) {
    print_error(nodes.error());
    return k_exit_usage;
  }
  const std::string templates_dir = options.templates_dir.empty() ? default_templates_dir() : options.templates_dir;
  auto playbooks = load_playbooks(options.playbooks.empty() ? default_playbook_names() : options.playbooks);
  if (!playbooks) {
    print_error(playbooks.error());
    return k_exit_usage;
  }
  // Everything is rendered before anything is printed or written.
  auto rendered = render_program_files(inventory, *nodes, *playbooks, templates_dir);
  if (!rendered) {
    print_error(rendered.error());
    return k_exit_error;
  }
  if (options.out_dir.empty()) {
    fmt::print("{}", format_node_files(*rendered));
    return k_exit_ok;
  }
  if (auto written = write_node_trees(options.out_dir, *rendered); !written) {
    print_error(written.error());
    return k_exit_error;
  }
  if (globals.verbosity >= 0) {
    std::size_t count = 0;
    for (const auto& node : *rendered) count += node.files.size();
    fmt::print(stderr, "wrote {} files for {} nodes under {}\n", count, rendered->size(), options.out_dir);
  }
  return k_exit_ok;
}

void register_render_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  auto options = std::make_shared<RenderOptions>();
  auto* cmd = app.add_subcommand("render",
                                 "Render every file each node would receive from the playbooks, without contacting any node\n"
                                 "Example: gpuctl render cluster.yaml --out rendered/ && git diff --no-index old/ rendered/");
  cmd->add_option("inventory", options->inventory, "Inventory file (YAML)")->required();
  auto* node = cmd->add_option("--node", options->node, "Only this host");
  cmd->add_option("--limit", options->limit, "Only these hosts: hostlists and group names, comma-separated")
      ->excludes(node);
  cmd->add_option("--out", options->out_dir, "Write DIR/<node>/<path> trees instead of printing");
  cmd->add_option("--templates", options->templates_dir, "Templates directory (default: the shipped templates)");
  cmd->add_option("-p,--playbook", options->playbooks,
                  "Playbook whose files to render: a shipped name (gpu-node), or a file given as a path (with a / or "
                  "ending in .yaml/.yml); never a file of the working directory by name (repeatable; default: gpu-node "
                  "and head-node)");
  cmd->callback([options, &globals, &exit_code] { exit_code = run_render(*options, globals); });
}

}  // namespace
GPUCTL_COMMAND(300, register_render_command);
}  // namespace gpuctl::cli
