// load_inventory: read -> parse (yaml_loader.cpp) -> decode (schema.cpp) -> resolve -> lint.
#include <gpuctl/inventory/loader.hpp>

#include "resolve.hpp"

#include <gpuctl/util/file_io.hpp>
#include <gpuctl/util/sha256.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace gpuctl {

const Node* Inventory::find_node(std::string_view name) const {
  const auto it = std::ranges::find(nodes, name, &Node::name);
  return it == nodes.end() ? nullptr : &*it;
}

const Group* Inventory::find_group(std::string_view name) const {
  const auto it = std::ranges::find(groups, name, &Group::name);
  return it == groups.end() ? nullptr : &*it;
}

namespace {

LoadResult failed(const std::string& path, std::string message, std::string hint = {}) {
  LoadResult result;
  result.diagnostics.push_back({Severity::error, path, 0, 0, std::move(message), std::move(hint)});
  return result;
}

}  // namespace

LoadResult load_inventory_text(std::string_view text, const std::string& path) {
  using namespace inventory_detail;
  if (text.size() > k_max_inventory_bytes)
    return failed(path, fmt::format("the file is {} bytes, over the {} byte limit for an inventory", text.size(),
                                    k_max_inventory_bytes));
  LoadResult result;
  // Aliases are capped at k_max_yaml_nodes expanded nodes, or more in a file large enough to
  // hold that many nodes itself (100 000 hosts take about 4 bytes of text per node and more).
  auto parsed = parse_yaml(text, path, "inventory", std::max(k_max_yaml_nodes, text.size() / 4));
  if (!parsed.errors.empty()) {
    result.diagnostics = std::move(parsed.errors);
    return result;
  }
  Decoder decoder(path, result.diagnostics);
  const auto raw = decode_inventory(parsed.root, decoder);
  auto resolved = resolve_inventory(raw, decoder);
  const bool has_errors = std::ranges::any_of(result.diagnostics, [](const Diagnostic& diagnostic) {
    return diagnostic.severity == Severity::error;
  });
  // Lint reads resolved values; on an invalid inventory they would only add noise.
  if (!has_errors) lint_inventory(resolved, raw, decoder);
  std::ranges::stable_sort(result.diagnostics, [](const Diagnostic& a, const Diagnostic& b) {
    return std::pair{a.line, a.column} < std::pair{b.line, b.column};
  });
  if (!has_errors) {
    resolved.inventory.path = path;
    resolved.inventory.digest = util::sha256_hex(text);
    result.inventory = std::move(resolved.inventory);
  }
  return result;
}

LoadResult load_inventory(const std::string& path) {
  // The one set of rules for local files (util/file_io.hpp): a FIFO, a device or a link to a
  // private file is refused before any line of it could be quoted in a diagnostic.
  auto text = util::read_local_file(path, "inventory", k_max_inventory_bytes);
  if (!text) return failed(path, text.error().hint.empty() ? text.error().message
                                                            : text.error().message + " (" + text.error().hint + ")");
  return load_inventory_text(*text, path);
}

}  // namespace gpuctl
