// The one file that includes yaml-cpp: turns its node graph into YamlNode values.
#include "yaml/yaml_tree.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace gpuctl::yaml {
namespace {

// Records where each document starts and ignores the rest: a cheap first pass over the text.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// yaml-cpp 0.7's LoadAll never returns on some invalid text (",", "[a],": a ',' outside
// brackets starts an empty document that does not consume it, forever, growing memory; found
// by tests/fuzz). So the documents are counted first, three at most: a document that starts
// where the previous one did means the parser is stuck there.
struct DocumentCount {
  std::size_t count = 0;
  std::optional<YAML::Mark> stuck_at;
};

DocumentCount count_documents(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts handler;
  DocumentCount result;
  while (handler.starts.size() < 3 && parser.HandleNextDocument(handler)) {
    const auto& starts = handler.starts;
    if (starts.size() > 1 && starts.back().pos == starts[starts.size() - 2].pos) {
      result.stuck_at = starts.back();
      break;
    }
  }
  result.count = handler.starts.size();
  return result;
}

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

ParsedYaml parse_yaml(std::string_view text, const std::string& path, std::string_view document,
                      std::size_t max_nodes) {
  ParsedYaml parsed;
  try {
    const std::string owned(text);
    const auto counted = count_documents(owned);
    if (counted.stuck_at) {
      const auto at = static_cast<std::size_t>(counted.stuck_at->pos);
      const char c = at < owned.size() ? owned[at] : ' ';
      parsed.errors.push_back(error_at(path, counted.stuck_at->line + 1, counted.stuck_at->column + 1,
                                       fmt::format("YAML syntax: unexpected '{}'", c),
                                       c == ',' ? "a ',' separates items only inside [ ] or { }" : ""));
      return parsed;
    }
    if (counted.count > 1) {
      parsed.errors.push_back(error_at(path, 1, 1, "the file holds more than one YAML document",
                                       fmt::format("keep one {} per file (remove the '---' separators)", document)));
      return parsed;
    }
    if (counted.count == 0) return parsed;  // root stays null: the decoder reports an empty document
    const auto loaded = YAML::Load(owned);
    Converter converter(max_nodes);
    parsed.root = converter.convert(loaded, YAML::Mark());
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

}  // namespace gpuctl::yaml
