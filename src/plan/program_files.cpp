#include <gpuctl/plan/program_files.hpp>
#include <gpuctl/template/renderer.hpp>

namespace gpuctl {

std::vector<RenderedFile> program_files(const NodeProgram& program) {
  std::vector<RenderedFile> files;
  for (const auto& step : program.steps)
    for (const auto& resolved : step.resources) {
      if (resolved.resource.kind != ResourceKind::file) continue;
      const auto& file = resolved.resource.file;
      files.push_back(RenderedFile{file.template_name, file.path, resolved.secret ? std::string{} : resolved.content,
                                   file.mode, resolved.secret, file.owner, file.group});
    }
  return files;
}

Result<std::vector<NodeFiles>> render_program_files(const Inventory& inventory, std::span<const Node* const> nodes,
                                                    const std::vector<Playbook>& playbooks,
                                                    const std::string& templates_dir) {
  const ProgramSources sources{templates_dir, {}, SecretMode::masked,
                               std::make_shared<const PreparedClusterContext>(inventory)};
  std::vector<NodeFiles> rendered;
  for (const Node* node : nodes) {
    auto program = resolve_program(inventory, *node, playbooks, sources);
    if (!program) return std::unexpected(program.error());
    rendered.push_back(NodeFiles{node->name, program_files(*program)});
  }
  return rendered;
}

}  // namespace gpuctl
