#include <gpuctl/playbook/loader.hpp>
#include <gpuctl/playbook/playbook.hpp>

#include <gpuctl/util/data_dir.hpp>

#include <filesystem>
#include <fmt/format.h>

namespace gpuctl {

const Handler* Playbook::find_handler(std::string_view handler_name) const {
  for (const auto& handler : handlers)
    if (handler.name == handler_name) return &handler;
  return nullptr;
}

std::string resource_id(const Resource& resource) {
  switch (resource.kind) {
    case ResourceKind::file: return "file:" + resource.file.path;
    case ResourceKind::package: return "package:" + resource.package.name;
    case ResourceKind::service: return "service:" + resource.service.name;
    case ResourceKind::command: return "command:" + resource.command.run;
  }
  return "resource";
}

Result<std::vector<Playbook>> load_playbooks(const std::vector<std::string>& names_or_paths) {
  std::vector<Playbook> playbooks;
  for (const auto& name : names_or_paths) {
    auto path = find_playbook(name);
    if (!path) return std::unexpected(path.error());
    auto playbook = load_playbook(*path);
    if (!playbook) return std::unexpected(playbook.error());
    playbooks.push_back(std::move(*playbook));
  }
  return playbooks;
}

std::string default_playbooks_dir() { return util::data_dir("playbooks", "GPUCTL_PLAYBOOKS_DIR"); }

std::vector<std::string> default_playbook_names() { return {"gpu-node", "head-node"}; }

Result<std::string> find_playbook(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_regular_file(name_or_path, ec)) return name_or_path;
  const auto shipped = fs::path(default_playbooks_dir()) / (name_or_path + ".yaml");
  if (fs::is_regular_file(shipped, ec)) return shipped.string();
  return fail(ErrorCode::not_found, fmt::format("no playbook '{}'", name_or_path), {},
              fmt::format("give a file path or the name of one in {}", default_playbooks_dir()));
}

}  // namespace gpuctl
