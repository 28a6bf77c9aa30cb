#pragma once
// Typed reading of YamlNode values with diagnostics: every reader reports what is wrong at
// the node's position and returns nullopt, so decoding goes on and ALL errors are collected.

#include "yaml/yaml_tree.hpp"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gpuctl::yaml {

// The keys of one YAML map, unique, in file order.
class MapView {
 public:
  struct Entry {
    std::string key;
    const YamlNode* key_node;
    const YamlNode* value;
  };
  const YamlNode* get(std::string_view key) const;
  // The entry of `key`, or nullptr; a hash lookup, so maps of 100 000 hosts stay linear.
  const Entry* find(std::string_view key) const;
  const std::vector<Entry>& entries() const { return m_entries; }
  void add(Entry entry);

 private:
  std::vector<Entry> m_entries;
  std::unordered_map<std::string_view, std::size_t> m_index;  // views into the keys' YamlNodes
};

class Decoder {
 public:
  Decoder(std::string path, std::vector<Diagnostic>& diagnostics)
      : m_path(std::move(path)), m_diagnostics(diagnostics) {}

  // Diagnostics quote the file's text: control characters in `message` and `hint` are shown
  // escaped (\n, \x1b), so a value can neither add a line to the output nor drive the terminal.
  void error(const YamlNode& at, std::string message, std::string hint = {});
  void error_at(int line, int column, std::string message, std::string hint = {});
  void warning_at(int line, int column, std::string message, std::string hint = {});
  const std::string& path() const { return m_path; }

  // A map; duplicate keys are errors (the first is kept), and so are keys not in `allowed`
  // (with a did-you-mean) unless `allowed` is empty. `what` names the map in messages,
  // e.g. "group 'gpu'".
  std::optional<MapView> map(const YamlNode& node, std::string_view what,
                             std::span<const std::string> allowed);
  // A non-empty scalar. Numbers and booleans are accepted as their text.
  std::optional<std::string> string(const YamlNode& node, std::string_view what);
  // A version: must be a quoted string when it reads as a YAML number ("12.10" -> 12.1).
  std::optional<std::string> version(const YamlNode& node, std::string_view what);
  // A plain (unquoted) decimal integer in [min, max].
  std::optional<int> integer(const YamlNode& node, std::string_view what, long min, long max);
  // A plain true or false.
  std::optional<bool> boolean(const YamlNode& node, std::string_view what);
  // One of `choices`.
  std::optional<std::string> choice(const YamlNode& node, std::string_view what,
                                    std::span<const std::string> choices);
  // A sequence of non-empty scalars.
  std::optional<std::vector<std::string>> string_list(const YamlNode& node, std::string_view what);

 private:
  std::string m_path;
  std::vector<Diagnostic>& m_diagnostics;
};

// How YAML 1.2 (core schema) would read a plain scalar that is a number: its canonical form
// ("12.10" -> "12.1", "1e3" -> "1000"); nullopt when it is not a number.
std::optional<std::string> yaml_number_reading(std::string_view plain);

}  // namespace gpuctl::yaml
