#pragma once
// A YAML document as plain values, so that only yaml_loader.cpp sees yaml-cpp: the one YAML
// front end of inventories and playbooks (decoder.hpp reads it with diagnostics). Keeps what
// validation needs and yaml-cpp's own API hides or drops: duplicate keys (in file order),
// whether a scalar was quoted, and 1-based positions of keys and values.

#include <gpuctl/core/diagnostic.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuctl::yaml {

struct YamlEntry;

struct YamlNode {
  enum class Kind { null, scalar, sequence, map };
  Kind kind = Kind::null;
  std::string value;   // scalar text as parsed
  bool quoted = false; // scalar written quoted or as a block scalar, i.e. certainly a string
  int line = 0;        // 1-based
  int column = 0;      // 1-based
  std::vector<YamlNode> items;                          // sequence
  std::vector<YamlEntry> entries;                       // map, duplicates kept

  bool is_scalar() const { return kind == Kind::scalar; }
  bool is_map() const { return kind == Kind::map; }
  bool is_sequence() const { return kind == Kind::sequence; }
  bool is_null() const { return kind == Kind::null; }
};

// A map entry. Not std::pair: a pair of a still-incomplete YamlNode inside YamlNode is
// undefined, and clang (the fuzz build) rejects it.
struct YamlEntry {
  YamlNode first;   // key
  YamlNode second;  // value
};

// Aliases make a small file describe a huge tree ("billion laughs"); conversion stops after
// this many nodes, counting every visit through an alias.
inline constexpr std::size_t k_max_yaml_nodes = 200000;

struct ParsedYaml {
  YamlNode root;
  std::vector<Diagnostic> errors;  // syntax errors, alias bombs; empty on success
};

// Parses one YAML document. Never throws; yaml-cpp's exceptions become diagnostics. `document`
// names what the file holds ("inventory", "playbook") in messages.
ParsedYaml parse_yaml(std::string_view text, const std::string& path, std::string_view document,
                      std::size_t max_nodes = k_max_yaml_nodes);

}  // namespace gpuctl::yaml
