// Tokenises a Mustache template into a tag tree with line numbers, then walks it with the
// context the way kainjow's renderer resolves names (innermost section first, dotted names
// resolved whole against each level), reporting the first name that does not resolve.
#include "template_check.hpp"

#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace gpuctl::detail {
namespace {

enum class TagKind { variable, section, inverted, comment };

struct Tag {
  TagKind kind = TagKind::variable;
  std::string name;
  int line = 0;
  std::vector<Tag> children;  // sections only
};

class Checker {
 public:
  Checker(std::string_view text, const std::string& template_name)
      : m_text(text), m_template_name(template_name) {}

  Result<void> run(std::vector<const TemplateValue*> stack) {
    Tag root{TagKind::section, "", 0, {}};
    if (auto parsed = parse(root); !parsed) return parsed;
    return walk(root.children, stack);
  }

 private:
  std::unexpected<Error> error(int line, std::string message, std::string hint = {}) const {
    return fail(ErrorCode::template_error, std::move(message), Location{m_template_name, line, 0, "", ""},
                std::move(hint));
  }

  int line_at(std::size_t offset) const {
    return 1 + static_cast<int>(std::count(m_text.begin(), m_text.begin() + static_cast<long>(offset), '\n'));
  }

  Result<void> parse(Tag& root) {
    std::vector<Tag*> open{&root};
    std::size_t position = 0;
    while ((position = m_text.find("{{", position)) != std::string_view::npos) {
      const int line = line_at(position);
      const bool triple = m_text.substr(position, 3) == "{{{";
      const std::string_view closing = triple ? "}}}" : "}}";
      const std::size_t start = position + (triple ? 3 : 2);
      const std::size_t end = m_text.find(closing, start);
      if (end == std::string_view::npos) return error(line, "unclosed tag: '{{' without a matching '" + std::string(closing) + "'");
      std::string_view contents = util::trim(m_text.substr(start, end - start));
      position = end + closing.size();

      Tag tag{TagKind::variable, "", line, {}};
      const char sigil = contents.empty() || triple ? '\0' : contents.front();
      switch (sigil) {
        case '#': tag.kind = TagKind::section; break;
        case '^': tag.kind = TagKind::inverted; break;
        case '!': tag.kind = TagKind::comment; break;
        case '>': return error(line, "partials are not supported", "inline the text instead");
        case '=': return error(line, "changing delimiters is not supported");
        default: break;
      }
      if (sigil == '#' || sigil == '^' || sigil == '/' || sigil == '&') contents = util::trim(contents.substr(1));
      tag.name = std::string(contents);
      if (tag.kind == TagKind::comment) continue;
      if (tag.name.empty()) return error(line, "empty tag");

      if (sigil == '/') {
        if (open.size() == 1) return error(line, fmt::format("section end '{}' without a matching start", tag.name));
        if (open.back()->name != tag.name)
          return error(line, fmt::format("section end '{}' does not match the open section '{}' (line {})", tag.name,
                                         open.back()->name, open.back()->line));
        open.pop_back();
        continue;
      }
      open.back()->children.push_back(std::move(tag));
      if (open.back()->children.back().kind != TagKind::variable) open.push_back(&open.back()->children.back());
    }
    if (open.size() > 1)
      return error(open.back()->line, fmt::format("section '{}' is never closed", open.back()->name),
                   "add {{/" + open.back()->name + "}}");
    return {};
  }

  static const TemplateValue* resolve(const std::string& name, const std::vector<const TemplateValue*>& stack) {
    if (name == ".") return stack.back();
    const auto parts = util::split(name, '.');
    for (auto level = stack.rbegin(); level != stack.rend(); ++level) {
      const TemplateValue* value = *level;
      for (const auto& part : parts) {
        value = value->find(part);
        if (value == nullptr) break;
      }
      if (value != nullptr) return value;
    }
    return nullptr;
  }

  // Names a typo of `name` could have meant: the members of the deepest object its prefix
  // reaches, or of every open level for a plain name.
  static std::vector<std::string> candidates(const std::string& name, const std::vector<const TemplateValue*>& stack,
                                             std::string& prefix) {
    std::vector<std::string> names;
    const auto dot = name.rfind('.');
    std::vector<const TemplateValue*> levels = stack;
    if (dot != std::string::npos) {
      prefix = name.substr(0, dot + 1);
      const TemplateValue* parent = resolve(name.substr(0, dot), stack);
      levels = parent ? std::vector<const TemplateValue*>{parent} : std::vector<const TemplateValue*>{};
    }
    for (const TemplateValue* level : levels)
      if (level->kind() == TemplateValue::Kind::object)
        for (const auto& member : level->as_object()) names.push_back(member.first);
    return names;
  }

  std::unexpected<Error> missing(const Tag& tag, const std::vector<const TemplateValue*>& stack) const {
    std::string prefix;
    const auto names = candidates(tag.name, stack, prefix);
    const std::string last = tag.name.substr(prefix.size());
    std::string hint = "the inventory does not set it, or the template misspells it";
    if (const auto guess = util::closest_match(last, names)) hint = "did you mean '" + prefix + *guess + "'?";
    const char* what = tag.kind == TagKind::variable ? "variable" : "section";
    return error(tag.line, fmt::format("missing {} '{}'", what, tag.name), hint);
  }

  Result<void> walk(const std::vector<Tag>& tags, std::vector<const TemplateValue*>& stack) const {
    for (const Tag& tag : tags) {
      const TemplateValue* value = resolve(tag.name, stack);
      if (value == nullptr) return missing(tag, stack);
      if (tag.kind == TagKind::variable) {
        if (value->kind() == TemplateValue::Kind::list || value->kind() == TemplateValue::Kind::object)
          return error(tag.line, fmt::format("'{}' is a {}, not a value", tag.name,
                                             value->kind() == TemplateValue::Kind::list ? "list" : "object"),
                       "iterate it with {{#" + tag.name + "}}...{{/" + tag.name + "}}");
        continue;
      }
      if ((tag.kind == TagKind::inverted) != value->is_falsy()) continue;
      if (tag.kind == TagKind::inverted || value->kind() != TemplateValue::Kind::list) {
        stack.push_back(value);
        auto checked = walk(tag.children, stack);
        stack.pop_back();
        if (!checked) return checked;
        continue;
      }
      for (const TemplateValue& item : value->as_list()) {
        stack.push_back(&item);
        auto checked = walk(tag.children, stack);
        stack.pop_back();
        if (!checked) return checked;
      }
    }
    return {};
  }

  std::string_view m_text;
  const std::string& m_template_name;
};

}  // namespace

Result<void> check_template(std::string_view text, const std::string& template_name,
                            const std::vector<const TemplateValue*>& layers) {
  return Checker(text, template_name).run(layers);
}

}  // namespace gpuctl::detail
