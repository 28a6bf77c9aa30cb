#pragma once
// Rendering the files of many nodes for review (`gpuctl render`): everything is rendered
// first, then either formatted as text or written as one tree per node.

#include <gpuctl/core/error.hpp>
#include <gpuctl/inventory/inventory.hpp>
#include <gpuctl/template/renderer.hpp>

#include <span>
#include <string>
#include <vector>

namespace gpuctl {

struct NodeFiles {
  std::string node;
  std::vector<RenderedFile> files;  // in playbook order; empty for a node that gets none
};

// Human-readable listing: per file a header line "==> node:path (template, mode)" and the
// content; secret files show only the header. By default a file that several nodes get
// byte for byte is listed once, headed by their hostlist ("==> gpu[01-08]:/etc/nccl.conf ...");
// expand: once per node. Pure.
std::string format_node_files(const std::vector<NodeFiles>& rendered, bool expand = false);

// `render --json` (docs/templates.md): {"format_version":1,"nodes":[{"node","files":[{"path",
// "template","mode" ("0644"),"owner","group","secret","content"}]}]}, one entry per node, never
// folded. A secret file's content is null: only the marker "secret": true says it exists. Pure.
std::string node_files_to_json(const std::vector<NodeFiles>& rendered);

// Writes `out_dir`/<node>/<path> for every file but secrets, with the file's mode. Each node's tree is
// built in a staging directory inside `out_dir` and renamed into place, replacing the
// node's previous tree, so a failure never leaves a half-written tree. Does file I/O.
// Errors: ErrorCode::io naming the path.
Result<void> write_node_trees(const std::string& out_dir, const std::vector<NodeFiles>& rendered);

}  // namespace gpuctl
