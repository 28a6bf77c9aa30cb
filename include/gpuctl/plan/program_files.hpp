#pragma once
// The files nodes receive, as the playbooks push them: what `gpuctl render` shows and writes.
// Same source of truth as apply (the node programs), so a rendered tree never disagrees with
// what apply writes. Reads templates and source files; contacts no node; never creates or
// shows secrets.

#include <gpuctl/plan/program.hpp>
#include <gpuctl/template/render_tree.hpp>

#include <span>
#include <vector>

namespace gpuctl {

// The file resources of `program`, in program order (secrets flagged, content as resolved).
std::vector<RenderedFile> program_files(const NodeProgram& program);

// Every node's files from `playbooks`, secrets masked. Errors: as resolve_program (an unknown
// variable, a template error naming template, line and node, an unreadable source file).
Result<std::vector<NodeFiles>> render_program_files(const Inventory& inventory, std::span<const Node* const> nodes,
                                                    const std::vector<Playbook>& playbooks,
                                                    const std::string& templates_dir);

}  // namespace gpuctl
