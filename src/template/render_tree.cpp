// Renders nodes' files and writes them as per-node trees, staging first so that readers of
// the output directory (CI diffs) never see a partial tree.
#include <gpuctl/inventory/hostlist.hpp>
#include <gpuctl/template/render_tree.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace gpuctl {
namespace fs = std::filesystem;

namespace {

void append_file(std::string& out, std::string_view who, const RenderedFile& file) {
  out += fmt::format("==> {}:{} ({}, {:04o})\n", who, file.path, file.template_name.empty() ? "generated" : file.template_name,
                     file.mode);
  if (file.secret) {
    out += "(secret, not shown)\n";
    return;
  }
  out += file.content;
  if (!file.content.empty() && file.content.back() != '\n') out += '\n';
}

}  // namespace

std::string format_node_files(const std::vector<NodeFiles>& rendered, bool expand) {
  std::string out;
  if (expand) {
    for (const auto& node : rendered) {
      if (node.files.empty()) out += fmt::format("==> {}: no files\n", node.node);
      for (const auto& file : node.files) append_file(out, node.node, file);
    }
    return out;
  }
  // One listing per distinct file (same path, template, mode and content), headed by the
  // hostlist of the nodes that get it, in the order the first of them gets it.
  struct Distinct {
    const RenderedFile* file;
    std::vector<std::string> nodes;
  };
  std::vector<Distinct> files;
  std::vector<std::string> without_files;
  for (const auto& node : rendered) {
    if (node.files.empty()) without_files.push_back(node.node);
    for (const auto& file : node.files) {
      const auto same = [&](const Distinct& d) {
        return d.file->path == file.path && d.file->template_name == file.template_name && d.file->mode == file.mode &&
               d.file->owner == file.owner && d.file->group == file.group && d.file->secret == file.secret &&
               d.file->content == file.content;
      };
      if (auto it = std::ranges::find_if(files, same); it != files.end()) it->nodes.push_back(node.node);
      else files.push_back({&file, {node.node}});
    }
  }
  for (const auto& d : files) append_file(out, hostlist::compress(d.nodes), *d.file);
  if (!without_files.empty()) out += fmt::format("==> {}: no files\n", hostlist::compress(without_files));
  return out;
}

std::string node_files_to_json(const std::vector<NodeFiles>& rendered) {
  using nlohmann::ordered_json;
  ordered_json nodes = ordered_json::array();
  for (const auto& node : rendered) {
    ordered_json files = ordered_json::array();
    for (const auto& file : node.files) {
      ordered_json entry{{"path", file.path},
                         {"template", file.template_name},
                         {"mode", fmt::format("{:04o}", file.mode)},
                         {"owner", file.owner},
                         {"group", file.group},
                         {"secret", file.secret}};
      // Never a secret's content, even were a caller to hand one in.
      entry["content"] = file.secret ? ordered_json(nullptr) : ordered_json(file.content);
      files.push_back(std::move(entry));
    }
    nodes.push_back(ordered_json{{"node", node.node}, {"files", std::move(files)}});
  }
  const ordered_json out{{"format_version", 1}, {"nodes", std::move(nodes)}};
  return out.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

namespace {

std::unexpected<Error> io_error(const std::string& what, const fs::path& path, const std::error_code& ec) {
  return fail(ErrorCode::io, fmt::format("{} {}: {}", what, path.string(), ec.message()));
}

Result<void> write_file(const fs::path& path, const RenderedFile& file) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  if (ec) return io_error("cannot create directory", path.parent_path(), ec);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << file.content;
    out.flush();
    if (!out) return fail(ErrorCode::io, fmt::format("cannot write {}", path.string()));
  }
  fs::permissions(path, static_cast<fs::perms>(file.mode), ec);
  if (ec) return io_error("cannot set the mode of", path, ec);
  return {};
}

// Moves `staged` to `target`, replacing any previous tree there.
Result<void> swap_into_place(const fs::path& staged, const fs::path& target, const fs::path& trash) {
  std::error_code ec;
  const bool had_previous = fs::exists(target, ec);
  if (had_previous) {
    fs::rename(target, trash, ec);
    if (ec) return io_error("cannot move aside", target, ec);
  }
  fs::rename(staged, target, ec);
  if (ec) {
    if (had_previous) fs::rename(trash, target, ec);
    return io_error("cannot move into place", target, ec);
  }
  if (had_previous) fs::remove_all(trash, ec);
  return {};
}

// The node trees an earlier render wrote into the directory: the only ones it may replace.
constexpr std::string_view k_manifest = ".rendered-by-gpuctl";

std::vector<std::string> written_before(const fs::path& root) {
  std::vector<std::string> names;
  std::ifstream in(root / k_manifest);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) names.push_back(line);
  return names;
}

Result<void> refuse(const fs::path& path, std::string problem, std::string fix) {
  return fail(ErrorCode::validation, fmt::format("render output {} {}", path.string(), problem), {}, std::move(fix));
}

}  // namespace

Result<void> write_node_trees(const std::string& out_dir, const std::vector<NodeFiles>& rendered) {
  std::error_code ec;
  const fs::path root(out_dir);
  // Never through a link: a link's target is somebody else's directory to delete trees in.
  if (fs::is_symlink(fs::symlink_status(root, ec)))
    return refuse(root, "is a symbolic link", fmt::format("give the directory itself (readlink -f {})", out_dir));
  fs::create_directories(root, ec);
  if (ec) return io_error("cannot create output directory", root, ec);
  // Only a node tree this command wrote before is replaced; anything else of that name is kept.
  const auto ours = written_before(root);
  for (const auto& node : rendered) {
    const auto status = fs::symlink_status(root / node.node, ec);
    if (!fs::exists(status)) continue;
    if (fs::is_symlink(status))
      return refuse(root / node.node, "is a symbolic link", "remove it, or choose another -o directory");
    if (std::ranges::find(ours, node.node) == ours.end())
      return refuse(root / node.node, "exists and was not written by gpuctl render",
                    "remove it, or choose another -o directory: render replaces only the trees it wrote");
  }
  const fs::path staging = root / fmt::format(".gpuctl-render-{}", ::getpid());
  fs::remove_all(staging, ec);

  // Stage every node first: a write error leaves the previous trees untouched.
  for (const auto& node : rendered) {
    fs::create_directories(staging / "new" / node.node, ec);
    if (ec) return io_error("cannot create directory", staging / "new" / node.node, ec);
    for (const auto& file : node.files) {
      if (file.secret) continue;  // a secret's content is never rendered, so it has no file in the tree
      const fs::path relative = fs::path(file.path).relative_path();
      if (auto written = write_file(staging / "new" / node.node / relative, file); !written) {
        fs::remove_all(staging, ec);
        return written;
      }
    }
  }
  fs::create_directories(staging / "old", ec);
  for (const auto& node : rendered) {
    auto moved = swap_into_place(staging / "new" / node.node, root / node.node, staging / "old" / node.node);
    if (!moved) {
      fs::remove_all(staging, ec);
      return moved;
    }
  }
  fs::remove_all(staging, ec);
  // Record the trees now here that render wrote, earlier ones included.
  auto names = ours;
  for (const auto& node : rendered)
    if (std::ranges::find(names, node.node) == names.end()) names.push_back(node.node);
  std::ofstream manifest(root / k_manifest, std::ios::trunc);
  for (const auto& name : names) manifest << name << '\n';
  if (!manifest) return fail(ErrorCode::io, fmt::format("cannot write {}", (root / k_manifest).string()));
  return {};
}

}  // namespace gpuctl
