#include <gpuctl/util/strings.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <cctype>

namespace gpuctl::util {

std::string_view trim(std::string_view text) {
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return text;
}

std::vector<std::string> split(std::string_view text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto end = text.find(separator, start);
    parts.emplace_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

std::vector<std::string> split_lines(std::string_view text) {
  auto lines = split(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  for (auto& line : lines)
    if (!line.empty() && line.back() == '\r') line.pop_back();
  return lines;
}

std::vector<std::string_view> split_words(std::string_view text) {
  const auto is_space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  std::vector<std::string_view> words;
  std::size_t at = 0;
  while (at < text.size()) {
    while (at < text.size() && is_space(text[at])) ++at;
    const auto start = at;
    while (at < text.size() && !is_space(text[at])) ++at;
    if (at > start) words.push_back(text.substr(start, at - start));
  }
  return words;
}

std::string join(std::span<const std::string> parts, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += separator;
    out += parts[i];
  }
  return out;
}

std::string to_lower(std::string_view text) {
  std::string out(text);
  std::ranges::transform(out, out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

std::string shell_quote(std::string_view argument) {
  const bool plain = !argument.empty() && std::ranges::all_of(argument, [](unsigned char c) {
    return std::isalnum(c) || std::string_view("@%+=:,./_-").find(static_cast<char>(c)) != std::string_view::npos;
  });
  if (plain) return std::string(argument);
  return shell_single_quote(argument);
}

std::string shell_escape_single_quoted(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out;
}

std::string shell_single_quote(std::string_view text) { return "'" + shell_escape_single_quoted(text) + "'"; }

std::string shell_join(std::span<const std::string> arguments) {
  std::string out;
  for (const auto& argument : arguments) {
    if (!out.empty()) out += ' ';
    out += shell_quote(argument);
  }
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment distance: a transposed pair of letters counts as one edit.
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::size_t>> d(n + 1, std::vector<std::size_t>(m + 1));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

std::optional<std::string> closest_match(std::string_view word, std::span<const std::string> candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  const std::size_t limit = std::max<std::size_t>(1, word.size() / 3 + 1);
  for (const auto& candidate : candidates) {
    const auto distance = edit_distance(to_lower(word), to_lower(candidate));
    if (distance <= limit && (!best || distance < best_distance)) {
      best = candidate;
      best_distance = distance;
    }
  }
  return best;
}

std::string tail_lines(std::string_view text, std::size_t max_lines) {
  auto lines = split_lines(text);
  if (lines.size() > max_lines) lines.erase(lines.begin(), lines.end() - static_cast<std::ptrdiff_t>(max_lines));
  return join(lines, "\n");
}

std::string replace_whole_words(std::string_view text, std::string_view word, std::string_view replacement) {
  std::string out(text);
  if (word.empty()) return out;
  const auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-'; };
  for (auto at = out.find(word); at != std::string::npos; at = out.find(word, at)) {
    const auto end = at + word.size();
    if ((at == 0 || !word_char(out[at - 1])) && (end == out.size() || !word_char(out[end]))) {
      out.replace(at, word.size(), replacement);
      at += replacement.size();
    } else {
      at += 1;
    }
  }
  return out;
}

std::string terminal_safe(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\n' && c != '\t') || byte == 0x7f) out += fmt::format("\\x{:02x}", byte);
    else out += c;
  }
  return out;
}

}  // namespace gpuctl::util
