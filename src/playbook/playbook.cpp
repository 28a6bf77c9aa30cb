#include <gpuctl/playbook/loader.hpp>
#include <gpuctl/playbook/playbook.hpp>

#include <gpuctl/util/data_dir.hpp>
#include <gpuctl/util/strings.hpp>

#include <algorithm>
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

Result<std::vector<Playbook>> load_playbooks(const std::vector<std::string>& names_or_paths, const PlaybookRules& rules) {
  std::vector<Playbook> playbooks;
  for (const auto& name : names_or_paths) {
    auto path = find_playbook(name);
    if (!path) return std::unexpected(path.error());
    auto playbook = load_playbook(*path, rules);
    if (!playbook) return std::unexpected(playbook.error());
    playbooks.push_back(std::move(*playbook));
  }
  return playbooks;
}

std::string default_playbooks_dir() { return util::data_dir("playbooks", "GPUCTL_PLAYBOOKS_DIR"); }

std::vector<std::string> default_playbook_names() { return {"gpu-node", "head-node"}; }

bool names_a_playbook_file(std::string_view argument) {
  return argument.find('/') != std::string_view::npos || argument.ends_with(".yaml") || argument.ends_with(".yml");
}

// A name is looked up only among the shipped playbooks, never in the working directory: a file
// there named `gpu-node` must not stand in for the reviewed one. Paths come back absolute, so
// the plan names the file it used and a saved plan finds it again from any directory.
Result<std::string> find_playbook(const std::string& name_or_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto absolute = [&](const fs::path& path) {
    const auto full = fs::absolute(path, ec);
    return (ec ? path : full).lexically_normal().string();
  };
  if (names_a_playbook_file(name_or_path)) {
    if (fs::is_regular_file(name_or_path, ec)) return absolute(name_or_path);
    return fail(ErrorCode::not_found, fmt::format("no playbook file '{}'", name_or_path), {},
                fmt::format("check the path; shipped playbooks are named without a path or .yaml (-p gpu-node), from {}",
                            default_playbooks_dir()));
  }
  const auto shipped = fs::path(default_playbooks_dir()) / (name_or_path + ".yaml");
  if (fs::is_regular_file(shipped, ec)) return absolute(shipped);
  std::vector<std::string> names;
  for (fs::directory_iterator it(default_playbooks_dir(), ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".yaml") names.push_back(it->path().stem().string());
  std::ranges::sort(names);
  const auto suggestion = util::closest_match(name_or_path, names);
  return fail(ErrorCode::not_found, fmt::format("no shipped playbook '{}' in {}", name_or_path, default_playbooks_dir()),
              {},
              suggestion ? fmt::format("did you mean '{}'? A file of your own is given as a path: ./{}.yaml", *suggestion,
                                       name_or_path)
                         : fmt::format("shipped: {}; a file of your own is given as a path: ./{}.yaml",
                                       names.empty() ? std::string("none") : util::join(names, ", "), name_or_path));
}

}  // namespace gpuctl
