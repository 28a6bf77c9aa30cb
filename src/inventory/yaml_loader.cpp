// The one file that includes yaml-cpp: turns its node graph into YamlNode values.
#include "yaml_tree.hpp"

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <string>

namespace gpuctl::inventory_detail {
namespace {

struct TooLarge {};  // thrown inside conversion only, caught below

class Converter {
 public:
  explicit Converter(std::size_t max_nodes) : m_max_nodes(max_nodes) {}

  YamlNode convert(const YAML::Node& node, const YAML::Mark& fallback) {
    if (++m_visited > m_max_nodes) throw TooLarge{};
    YamlNode out;
    const auto mark = node.Mark();
    const bool known = mark.line >= 0 && !node.IsNull();
    out.line = (known ? mark.line : fallback.line) + 1;
    out.column = (known ? mark.column : fallback.column) + 1;
    switch (node.Type()) {
      case YAML::NodeType::Scalar:
        out.kind = YamlNode::Kind::scalar;
        out.value = node.Scalar();
        out.quoted = node.Tag() == "!";
        break;
      case YAML::NodeType::Sequence:
        out.kind = YamlNode::Kind::sequence;
        for (const auto& item : node) out.items.push_back(convert(item, mark));
        break;
      case YAML::NodeType::Map:
        out.kind = YamlNode::Kind::map;
        for (auto it = node.begin(); it != node.end(); ++it) {
          auto key = convert(it->first, mark);
          // An empty value has no position of its own; point at its key.
          auto value = convert(it->second, it->first.Mark());
          out.entries.emplace_back(std::move(key), std::move(value));
        }
        break;
      default:
        out.kind = YamlNode::Kind::null;
    }
    return out;
  }

 private:
  std::size_t m_max_nodes;
  std::size_t m_visited = 0;
};

Diagnostic error_at(const std::string& path, int line, int column, std::string message, std::string hint = {}) {
  return Diagnostic{Severity::error, path, line, column, std::move(message), std::move(hint)};
}

}  // namespace

ParsedYaml parse_yaml(std::string_view text, const std::string& path, std::size_t max_nodes) {
  ParsedYaml parsed;
  try {
    const auto documents = YAML::LoadAll(std::string(text));
    if (documents.size() > 1) {
      parsed.errors.push_back(error_at(path, 1, 1, "the file holds more than one YAML document",
                                       "keep one inventory per file (remove the '---' separators)"));
      return parsed;
    }
    if (documents.empty()) return parsed;  // root stays null: reported as an empty inventory
    Converter converter(max_nodes);
    parsed.root = converter.convert(documents.front(), YAML::Mark());
    if (parsed.root.line == 0) parsed.root.line = parsed.root.column = 1;
  } catch (const TooLarge&) {
    parsed.errors.push_back(error_at(path, 1, 1,
                                     fmt::format("the document expands to more than {} YAML nodes", max_nodes),
                                     "aliases (*name) repeat whole subtrees; an alias bomb?"));
  } catch (const YAML::Exception& e) {
    const int line = e.mark.line >= 0 ? e.mark.line + 1 : 0;
    const int column = e.mark.column >= 0 ? e.mark.column + 1 : 0;
    // A tab in indentation is the most common cause of YAML syntax errors; say so.
    std::string hint;
    if (line > 0) {
      std::size_t start = 0;
      for (int l = 1; l < line && start != std::string_view::npos; ++l) {
        start = text.find('\n', start);
        if (start != std::string_view::npos) ++start;
      }
      if (start != std::string_view::npos) {
        const auto bol = text.substr(start, text.find('\n', start) - start);
        const auto indent = bol.substr(0, bol.find_first_not_of(" \t"));
        if (indent.find('\t') != std::string_view::npos) hint = "YAML indents with spaces; this line has a tab";
      }
    }
    parsed.errors.push_back(error_at(path, line, column, "YAML syntax: " + e.msg, hint));
  } catch (const std::exception& e) {
    parsed.errors.push_back(error_at(path, 0, 0, fmt::format("cannot parse YAML: {}", e.what())));
  }
  return parsed;
}

}  // namespace gpuctl::inventory_detail
