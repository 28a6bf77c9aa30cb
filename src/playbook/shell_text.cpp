// A reader of POSIX shell text that follows only quoting: enough to know, at each `{{name}}`,
// whether the shell is outside quotes, inside '…' or inside "…", and to refuse the places where
// no quoting makes a value literal (command substitutions, here-documents, comments, ...).
#include <gpuctl/playbook/shell_text.hpp>

#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

namespace gpuctl {
namespace {

constexpr std::string_view k_open = "{{";
constexpr std::string_view k_close = "}}";

// Characters that end a word outside quotes (and so may start a comment after them).
bool ends_word(char c) { return std::string_view(" \t\n;&|<>()").find(c) != std::string_view::npos; }

class ShellScanner {
 public:
  explicit ShellScanner(std::string_view text) : m_text(text) {}

  Result<std::vector<ShellReference>> scan() {
    auto end = command(0, false);
    if (!end) return std::unexpected(end.error());
    return std::move(m_references);
  }

 private:
  using Position = Result<std::size_t>;

  bool at(std::size_t pos, std::string_view s) const { return pos <= m_text.size() && m_text.substr(pos).starts_with(s); }
  bool reference_at(std::size_t pos) const { return at(pos, k_open); }
  char char_at(std::size_t pos) const { return pos < m_text.size() ? m_text[pos] : '\0'; }
  std::size_t after_escape(std::size_t pos) const { return std::min(pos + 2, m_text.size()); }

  std::string reference_text(std::size_t pos) const {
    const auto close = m_text.find(k_close, pos + 2);
    return std::string(m_text.substr(pos, close == std::string_view::npos ? 12 : close + 2 - pos));
  }

  // `fix` may show the reference as {{name}}; the error shows the one refused.
  std::unexpected<Error> refuse(std::size_t pos, std::string_view where, std::string fix) const {
    if (const auto at = fix.find("{{name}}"); at != std::string::npos) fix.replace(at, 8, reference_text(pos));
    return std::unexpected(Error{ErrorCode::validation,
                                 fmt::format("'{}' is {} in the command '{}': no quoting makes a value literal there",
                                             reference_text(pos), where, m_text),
                                 {}, std::move(fix)});
  }

  std::unexpected<Error> unterminated(std::string_view what) const {
    return std::unexpected(Error{ErrorCode::validation, fmt::format("unterminated {} in the command '{}'", what, m_text),
                                 {}, fmt::format("close the {}", what)});
  }

  // Records the reference at `pos`, or refuses it inside a construct that cannot hold a value.
  Position reference(std::size_t pos, ShellQuoting quoting) {
    const auto close = m_text.find(k_close, pos + 2);
    if (close == std::string_view::npos)
      return fail(ErrorCode::validation, fmt::format("unclosed '{{{{' in '{}'", m_text), {}, "close it with }}");
    if (!m_enclosing.empty())
      return refuse(pos, fmt::format("inside {}", m_enclosing.back()),
                    "assign the value to a shell variable first and use that: v={{name}}; ... \"$v\"");
    if (m_lost)
      return refuse(pos, "after shell text whose quoting gpuctl cannot follow (a `case` inside $(…), quotes inside "
                         "${…} or $((…)))",
                    "move the reference before that text, or assign the value to a shell variable there: v={{name}}");
    m_references.push_back(ShellReference{pos, close + 2, std::string(util::trim(m_text.substr(pos + 2, close - pos - 2))),
                                          quoting});
    return close + 2;
  }

  // Refuses `\{{name}}`: the backslash would escape the quote gpuctl puts there.
  Result<void> check_escaped(std::size_t pos) const {
    if (reference_at(pos + 1))
      return refuse(pos + 1, "right after a backslash", "remove the backslash before the reference");
    return {};
  }

  // Skips a backslash and the character it escapes, inside a construct that refuses references.
  Position skip_escape(std::size_t pos) {
    if (reference_at(pos + 1)) return reference(pos + 1, ShellQuoting::unquoted);
    return after_escape(pos);
  }

  // Enters a construct in which references are refused, for the duration of `scan`.
  template <typename Scan>
  Position inside(std::string_view what, Scan scan) {
    m_enclosing.emplace_back(what);
    auto end = scan();
    m_enclosing.pop_back();
    return end;
  }

  // Command text outside quotes, from `pos` to the end (top level) or to the `)` closing a $(.
  Position command(std::size_t pos, bool substitution) {
    int depth = 0;
    bool word_start = true;
    while (pos < m_text.size()) {
      if (reference_at(pos)) {
        auto end = reference(pos, ShellQuoting::unquoted);
        if (!end) return end;
        pos = *end;
        word_start = false;
        continue;
      }
      const char c = m_text[pos];
      Position next = pos + 1;
      switch (c) {
        case '\\':
          if (auto ok = check_escaped(pos); !ok) return std::unexpected(ok.error());
          next = after_escape(pos);
          break;
        case '\'': next = single_quoted(pos + 1); break;
        case '"': next = double_quoted(pos + 1); break;
        case '`': next = inside("`…`", [&] { return backquoted(pos + 1); }); break;
        case '$': next = dollar(pos); break;
        case '#':
          if (word_start) next = inside("a comment", [&] { return comment(pos); });
          break;
        case '<':
          if (at(pos, "<<<")) next = pos + 3;
          else if (at(pos, "<<")) next = here_document_operator(pos + 2);
          break;
        case '\n': next = here_document_bodies(pos + 1); break;
        case '(':
          if (word_start && at(pos, "((")) next = inside("((…))", [&] { return arithmetic(pos + 2); });
          else ++depth;
          break;
        case ')':
          if (substitution && depth == 0) return pos + 1;
          if (depth > 0) --depth;
          break;
        default:
          // A case pattern's `)` would look like the end of the $(…): stop trusting what follows.
          if (substitution && word_start && at(pos, "case") && (pos + 4 == m_text.size() || ends_word(m_text[pos + 4])))
            m_lost = true;
      }
      if (!next) return next;
      // After an operator or blank a new word starts; after `<<WORD` the delimiter word ended.
      word_start = ends_word(c) && !(c == '<' && *next > pos + 1 && !at(pos, "<<<"));
      if (c == '(' && *next > pos + 1) word_start = false;
      pos = *next;
    }
    if (substitution) return unterminated("$(");
    return pos;
  }

  Position single_quoted(std::size_t pos) {
    while (pos < m_text.size()) {
      if (reference_at(pos)) {
        auto end = reference(pos, ShellQuoting::single_quoted);
        if (!end) return end;
        pos = *end;
      } else if (m_text[pos] == '\'') {
        return pos + 1;
      } else {
        ++pos;
      }
    }
    return unterminated("'");
  }

  Position double_quoted(std::size_t pos) {
    while (pos < m_text.size()) {
      if (reference_at(pos)) {
        auto end = reference(pos, ShellQuoting::double_quoted);
        if (!end) return end;
        pos = *end;
        continue;
      }
      Position next = pos + 1;
      switch (m_text[pos]) {
        case '"': return pos + 1;
        case '\\':
          if (auto ok = check_escaped(pos); !ok) return std::unexpected(ok.error());
          next = after_escape(pos);
          break;
        case '`': next = inside("`…`", [&] { return backquoted(pos + 1); }); break;
        case '$': next = dollar(pos, true); break;
        default: break;
      }
      if (!next) return next;
      pos = *next;
    }
    return unterminated("\"");
  }

  // At a `$`: an expansion, a $'…' or $"…" string (not inside "…"), or a plain character.
  Position dollar(std::size_t pos, bool in_double_quotes = false) {
    if (reference_at(pos + 1))
      return refuse(pos + 1, "right after a $", "a value cannot name a shell variable; remove the $");
    if (at(pos, "$((")) return inside("$((…))", [&] { return arithmetic(pos + 3); });
    switch (char_at(pos + 1)) {
      case '(': return inside("$(…)", [&] { return command(pos + 2, true); });
      case '{': return inside("${…}", [&] { return parameter(pos + 2); });
      case '\'': return in_double_quotes ? Position(pos + 1) : inside("$'…'", [&] { return ansi_c_quoted(pos + 2); });
      case '"': return in_double_quotes ? Position(pos + 1) : double_quoted(pos + 2);
      default: return pos + 1;
    }
  }

  // Inside $((…)) or ((…)), to the `))` closing it. `<<` is a shift here, not a here-document.
  // `$((` can also open a command substitution of a subshell; quotes or a newline suggest that,
  // and then gpuctl no longer trusts its reading of what follows.
  Position arithmetic(std::size_t pos) {
    int depth = 0;
    while (pos < m_text.size()) {
      if (reference_at(pos)) return reference(pos, ShellQuoting::unquoted);
      const char c = m_text[pos];
      if (c == '\'' || c == '"' || c == '`' || c == '\n' || c == '\\' || c == '#') m_lost = true;
      if (c == '(') ++depth;
      if (c == ')' && depth == 0) {
        if (char_at(pos + 1) == ')') return pos + 2;
        m_lost = true;
        return pos + 1;
      }
      if (c == ')') --depth;
      ++pos;
    }
    return unterminated("((");
  }

  // Inside `…` (references are refused here, so only its end matters).
  Position backquoted(std::size_t pos) {
    while (pos < m_text.size()) {
      if (reference_at(pos)) return reference(pos, ShellQuoting::unquoted);
      if (m_text[pos] == '`') return pos + 1;
      auto next = m_text[pos] == '\\' ? skip_escape(pos) : Position(pos + 1);
      if (!next) return next;
      pos = *next;
    }
    return unterminated("`");
  }

  // Inside ${…}: up to the first `}` outside quotes and nested expansions.
  Position parameter(std::size_t pos) {
    while (pos < m_text.size()) {
      if (reference_at(pos)) return reference(pos, ShellQuoting::unquoted);
      Position next = pos + 1;
      switch (m_text[pos]) {
        case '}': return pos + 1;
        case '\\': next = skip_escape(pos); break;
        // Shells disagree on quotes inside ${…} (more so inside "…"): stop trusting what follows.
        case '\'':
          m_lost = true;
          next = single_quoted(pos + 1);
          break;
        case '"':
          m_lost = true;
          next = double_quoted(pos + 1);
          break;
        case '`': next = backquoted(pos + 1); break;
        case '$': next = dollar(pos); break;
        default: break;
      }
      if (!next) return next;
      pos = *next;
    }
    return unterminated("${");
  }

  Position ansi_c_quoted(std::size_t pos) {
    while (pos < m_text.size()) {
      if (reference_at(pos)) return reference(pos, ShellQuoting::unquoted);
      if (m_text[pos] == '\'') return pos + 1;
      auto next = m_text[pos] == '\\' ? skip_escape(pos) : Position(pos + 1);
      if (!next) return next;
      pos = *next;
    }
    return unterminated("$'");
  }

  // A comment runs to the end of the line; the newline itself is command text again.
  Position comment(std::size_t pos) {
    while (pos < m_text.size() && m_text[pos] != '\n') {
      if (reference_at(pos)) return reference(pos, ShellQuoting::unquoted);
      ++pos;
    }
    return pos;
  }

  // After `<<` or `<<-`: reads the delimiter word (quotes removed); its body starts on the next line.
  Position here_document_operator(std::size_t pos) {
    PendingBody body;
    if (char_at(pos) == '-') {
      body.strip_tabs = true;
      ++pos;
    }
    while (char_at(pos) == ' ' || char_at(pos) == '\t') ++pos;
    m_enclosing.emplace_back("a here-document's delimiter");
    while (pos < m_text.size() && !ends_word(m_text[pos])) {
      if (reference_at(pos) || (m_text[pos] == '\\' && reference_at(pos + 1))) {
        auto refused = reference(reference_at(pos) ? pos : pos + 1, ShellQuoting::unquoted);
        m_enclosing.pop_back();
        return refused;
      }
      const char c = m_text[pos];
      if (c == '\\') {
        if (pos + 1 < m_text.size()) body.delimiter += m_text[pos + 1];
        pos = after_escape(pos);
      } else if (c == '\'' || c == '"') {
        const auto close = m_text.find(c, pos + 1);
        const auto quoted = m_text.substr(pos + 1, close == std::string_view::npos ? std::string_view::npos : close - pos - 1);
        if (quoted.find(k_open) != std::string_view::npos) {
          auto refused = reference(pos + 1 + quoted.find(k_open), ShellQuoting::unquoted);
          m_enclosing.pop_back();
          return refused;
        }
        if (close == std::string_view::npos) {
          m_enclosing.pop_back();
          return unterminated(std::string(1, c));
        }
        body.delimiter += quoted;
        pos = close + 1;
      } else {
        body.delimiter += c;
        ++pos;
      }
    }
    m_enclosing.pop_back();
    m_pending_bodies.push_back(std::move(body));
    return pos;
  }

  // At the start of a line: the bodies of the here-documents opened on the line before, if any.
  Position here_document_bodies(std::size_t pos) {
    for (const auto& body : m_pending_bodies) {
      while (pos < m_text.size()) {
        const auto end = m_text.find('\n', pos);
        auto line = m_text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
        if (const auto open = line.find(k_open); open != std::string_view::npos)
          return inside("a here-document", [&] { return reference(pos + open, ShellQuoting::unquoted); });
        pos = end == std::string_view::npos ? m_text.size() : end + 1;
        if (body.strip_tabs)
          while (line.starts_with('\t')) line.remove_prefix(1);
        if (line == body.delimiter) break;
      }
    }
    m_pending_bodies.clear();
    return pos;
  }

  struct PendingBody {
    std::string delimiter;
    bool strip_tabs = false;
  };

  std::string_view m_text;
  std::vector<ShellReference> m_references;
  std::vector<std::string> m_enclosing;      // constructs around the current position that refuse references
  std::vector<PendingBody> m_pending_bodies;
  bool m_lost = false;                       // text gpuctl cannot follow was seen: refuse what comes after
};

// How many `{{` a plain left-to-right reading finds: the scanner must have placed each one.
std::size_t count_references(std::string_view text) {
  std::size_t count = 0;
  for (auto open = text.find(k_open); open != std::string_view::npos; ++count) {
    const auto close = text.find(k_close, open + 2);
    if (close == std::string_view::npos) return count + 1;
    open = text.find(k_open, close + 2);
  }
  return count;
}

}  // namespace

Result<std::vector<ShellReference>> find_shell_references(std::string_view command) {
  auto references = ShellScanner(command).scan();
  if (references && references->size() != count_references(command))
    return fail(ErrorCode::validation, fmt::format("gpuctl cannot tell the shell quoting at every '{{{{' in '{}'", command),
                {}, "write each reference outside quotes, or inside plain '…' or \"…\"");
  return references;
}

std::string quote_for_shell(std::string_view value, ShellQuoting quoting) {
  switch (quoting) {
    case ShellQuoting::unquoted: return util::shell_single_quote(value);
    case ShellQuoting::single_quoted: return util::shell_escape_single_quoted(value);
    case ShellQuoting::double_quoted: return "\"" + util::shell_single_quote(value) + "\"";
  }
  return util::shell_single_quote(value);
}

}  // namespace gpuctl
