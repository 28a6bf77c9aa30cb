// `gpuctl render`: every file each node would receive, printed or written as one tree per
// node, for review and CI diffs. Contacts no node.
#include "exit_codes.hpp"
#include "run_support.hpp"

#include <gpuctl/api/inventory_use_case.hpp>

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
  bool expand = false;
  bool json = false;
};

int run_render_command(const RenderOptions& options, const GlobalOptions& globals) {
  const auto env = make_offline_environment(globals);
  // Everything is rendered before anything is printed or written.
  auto rendered = run_render({options.inventory, options.node, options.limit, options.templates_dir, options.playbooks},
                             env);
  if (!rendered) {
    if (!rendered.error().message.empty()) fmt::print(stderr, "gpuctl: error: {}\n", rendered.error().message);
    return exit_code_for(rendered.error().verdict);
  }
  if (options.out_dir.empty()) {
    fmt::print("{}", options.json ? node_files_to_json(*rendered) : format_node_files(*rendered, options.expand));
    return k_exit_ok;
  }
  // -o with --json: the tree first, so that JSON on stdout means the tree was written too.
  if (auto written = write_node_trees(options.out_dir, *rendered); !written) {
    fmt::print(stderr, "gpuctl: error: {}\n", written.error().to_string());
    return k_exit_error;
  }
  if (globals.verbosity >= 0) {
    std::size_t count = 0;
    for (const auto& node : *rendered) count += node.files.size();
    fmt::print(stderr, "wrote {} files for {} nodes under {}\n", count, rendered->size(), options.out_dir);
  }
  if (options.json) fmt::print("{}", node_files_to_json(*rendered));
  return k_exit_ok;
}

void register_render_command(CLI::App& app, GlobalOptions& globals, int& exit_code) {
  auto options = std::make_shared<RenderOptions>();
  auto* cmd = app.add_subcommand("render",
                                 "Render every file each node would receive from the playbooks, without contacting any node\n"
                                 "Example: gpuctl render cluster.yaml -o rendered/ && git diff --no-index old/ rendered/");
  cmd->add_option("inventory", options->inventory, "Inventory file (YAML)")->required();
  auto* node = cmd->add_option("--node", options->node, "Only this host");
  cmd->add_option("-l,--limit", options->limit, k_limit_help)
      ->excludes(node);
  cmd->add_option("-o,--out", options->out_dir, "Write DIR/<node>/<path> trees instead of printing the listing");
  cmd->add_flag("--json", options->json,
                "Per node (never folded): each file's path, template, mode, owner, group and content as JSON on "
                "stdout; a secret file only as \"secret\": true (format_version 1, docs/templates.md)");
  cmd->add_option("--templates", options->templates_dir, "Templates directory (default: the shipped templates)");
  cmd->add_option("-p,--playbook", options->playbooks,
                  "Playbook whose files to render: a shipped name (gpu-node), or a file given as a path (with a / or "
                  "ending in .yaml/.yml); never a file of the working directory by name (repeatable; default: gpu-node "
                  "and head-node)");
  cmd->add_flag("--expand", options->expand,
                "Printing: every node's files; by default a file several nodes get byte for byte is printed once, "
                "headed by their hostlist");
  cmd->callback([options, &globals, &exit_code] { exit_code = run_render_command(*options, globals); });
}

}  // namespace
GPUCTL_COMMAND(300, register_render_command);
}  // namespace gpuctl::cli
