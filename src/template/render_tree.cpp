// Renders nodes' files and writes them as per-node trees, staging first so that readers of
// the output directory (CI diffs) never see a partial tree.
#include <gpuctl/template/render_tree.hpp>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace gpuctl {
namespace fs = std::filesystem;

std::string format_node_files(const std::vector<NodeFiles>& rendered) {
  std::string out;
  for (const auto& node : rendered) {
    if (node.files.empty()) out += fmt::format("==> {}: no files\n", node.node);
    for (const auto& file : node.files) {
      out += fmt::format("==> {}:{} ({}, {:04o})\n", node.node, file.path,
                         file.template_name.empty() ? "generated" : file.template_name, file.mode);
      if (file.secret) {
        out += "(secret, not shown)\n";
        continue;
      }
      out += file.content;
      if (!file.content.empty() && file.content.back() != '\n') out += '\n';
    }
  }
  return out;
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

}  // namespace

Result<void> write_node_trees(const std::string& out_dir, const std::vector<NodeFiles>& rendered) {
  std::error_code ec;
  const fs::path root(out_dir);
  fs::create_directories(root, ec);
  if (ec) return io_error("cannot create output directory", root, ec);
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
  return {};
}

}  // namespace gpuctl
