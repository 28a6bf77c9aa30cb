#include "names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace gpuctl::inventory_detail {
namespace {

constexpr std::string_view k_shell_metacharacters = ";&|$`\\\"'<>(){}[]*?!~# \t\n\r";

std::optional<std::string> metacharacter(std::string_view text) {
  const auto bad = text.find_first_of(k_shell_metacharacters);
  if (bad == std::string_view::npos) return std::nullopt;
  const char c = text[bad];
  if (c == ' ' || c == '\t') return "contains whitespace";
  if (c == '\n' || c == '\r') return "contains a line break";
  return fmt::format("contains the shell metacharacter '{}'", c);
}

std::optional<std::string> control_character(std::string_view text) {
  if (std::ranges::any_of(text, [](unsigned char c) { return c < 0x20 || c == 0x7f; }))
    return "contains a control character";
  return std::nullopt;
}

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

std::optional<std::string> check_ipv4(std::string_view text) {
  int parts = 0;
  std::size_t start = 0;
  while (true) {
    const auto dot = text.find('.', start);
    const auto part = text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty() || part.size() > 3) return "is not a valid IPv4 address";
    int value = 0;
    for (char c : part) value = value * 10 + (c - '0');
    if (value > 255) return fmt::format("is not a valid IPv4 address ({} > 255)", value);
    ++parts;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  if (parts != 4) return "is not a valid IPv4 address (needs 4 numbers)";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_hostname(std::string_view text) {
  if (text.empty()) return "is empty";
  if (auto bad = metacharacter(text)) return bad;
  if (auto bad = control_character(text)) return bad;
  if (text.size() > 253) return "is longer than 253 characters";
  std::size_t start = 0;
  while (true) {
    const auto dot = text.find('.', start);
    const auto label = text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (label.empty()) return "has an empty label (two dots, or a leading or trailing dot)";
    if (label.size() > 63) return "has a label longer than 63 characters";
    if (label.front() == '-' || label.back() == '-') return "has a label that starts or ends with '-'";
    for (char c : label)
      if (!alnum(c) && c != '-') return fmt::format("contains '{}' (letters, digits, '-' and '.' only)", c);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return std::nullopt;
}

std::optional<std::string> check_address(std::string_view text) {
  if (text.empty()) return "is empty";
  if (auto bad = metacharacter(text)) return bad;
  if (auto bad = control_character(text)) return bad;
  if (text.find(':') != std::string_view::npos) {
    if (!std::ranges::all_of(text, [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.'; }))
      return "is not a valid IPv6 address";
    if (text.find(":::") != std::string_view::npos) return "is not a valid IPv6 address";
    return std::nullopt;
  }
  if (std::ranges::all_of(text, [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; }))
    return check_ipv4(text);
  return check_hostname(text);
}

std::optional<std::string> check_user(std::string_view text) {
  if (text.empty()) return "is empty";
  if (auto bad = metacharacter(text)) return bad;
  if (auto bad = control_character(text)) return bad;
  if (text.size() > 32) return "is longer than 32 characters";
  if (!(std::islower(static_cast<unsigned char>(text.front())) || text.front() == '_'))
    return "must start with a lower-case letter or '_'";
  for (char c : text)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
      return fmt::format("contains '{}' (lower-case letters, digits, '_' and '-' only)", c);
  return std::nullopt;
}

std::optional<std::string> check_identifier(std::string_view text) {
  if (text.empty()) return "is empty";
  if (auto bad = metacharacter(text)) return bad;
  if (auto bad = control_character(text)) return bad;
  for (char c : text)
    if (!(alnum(c) || c == '_' || c == '-' || c == '.' || c == ':' || c == '/'))
      return fmt::format("contains '{}' (letters, digits, '_', '-', '.', ':' and '/' only)", c);
  return std::nullopt;
}

std::optional<std::string> check_path(std::string_view text) {
  if (text.empty()) return "is empty";
  if (auto bad = control_character(text)) return bad;
  if (text.find_first_of("`$;|&<>\"'") != std::string_view::npos)
    return fmt::format("contains the shell metacharacter '{}'", text[text.find_first_of("`$;|&<>\"'")]);
  return std::nullopt;
}

}  // namespace gpuctl::inventory_detail
