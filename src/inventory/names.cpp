#include "names.hpp"

#include <fmt/format.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>

namespace gpuctl::inventory_detail {
namespace {

constexpr std::string_view k_shell_metacharacters = ";&|$`\\\"'<>(){}[]*?!~#";

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

// The first character of `text` that `ok` refuses, worded by refused_character().
template <typename Ok>
std::optional<std::string> first_refused(std::string_view text, Ok ok, std::string_view allowed) {
  const auto bad = std::ranges::find_if(text, [&](char c) { return !ok(c); });
  if (bad == text.end()) return std::nullopt;
  return refused_character(*bad, allowed);
}

std::optional<std::string> check_ipv4(std::string_view text) {
  int parts = 0;
  std::size_t start = 0;
  while (true) {
    const auto dot = text.find('.', start);
    const auto part = text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty() || part.size() > 3) return "is not a valid IPv4 address";
    // inet_aton, which resolvers use, reads "010" as octal 8: another address than it looks.
    if (part.size() > 1 && part.front() == '0') return "is not a valid IPv4 address (a number with a leading zero)";
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

// The characters every field refuses before its own grammar: control characters, whitespace
// and shell metacharacters, each named for what it is.
std::optional<std::string> hostile(std::string_view text) {
  const auto bad = std::ranges::find_if(text, [](char c) {
    return control(c) || c == ' ' || k_shell_metacharacters.find(c) != std::string_view::npos;
  });
  if (bad == text.end()) return std::nullopt;
  return refused_character(*bad, "");
}

}  // namespace

std::string refused_character(char c, std::string_view allowed) {
  const auto also = allowed.empty() ? std::string() : fmt::format(" ({})", allowed);
  if (c == '\n' || c == '\r') return "contains a line break" + also;
  if (c == ' ' || c == '\t') return "contains whitespace" + also;
  if (control(c)) return "contains a control character" + also;
  if (k_shell_metacharacters.find(c) != std::string_view::npos)
    return fmt::format("contains the shell metacharacter '{}'{}", c, also);
  if (static_cast<unsigned char>(c) >= 0x80) return "contains a non-ASCII character" + also;
  return fmt::format("contains '{}'{}", c, also);
}

std::optional<std::string> check_hostname(std::string_view text) {
  if (text.empty()) return "is empty";
  if (auto bad = hostile(text)) return bad;
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
  if (auto bad = hostile(text)) return bad;
  // An address, never an address and a port ("10.0.0.1:22" is no IPv6 address: `port:` says it).
  if (text.find(':') != std::string_view::npos) {
    in6_addr address{};
    if (text.size() > INET6_ADDRSTRLEN || inet_pton(AF_INET6, std::string(text).c_str(), &address) != 1)
      return "is not an IPv6 address (a port goes in 'port:', not after the address)";
    if (IN6_IS_ADDR_UNSPECIFIED(&address)) return "is the unspecified address ::, which names no node";
    return std::nullopt;
  }
  if (std::ranges::all_of(text, [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; })) {
    if (auto bad = check_ipv4(text)) return bad;
    if (text.find_first_not_of("0.") == std::string_view::npos) return "is the unspecified address 0.0.0.0, which names no node";
    return std::nullopt;
  }
  return check_hostname(text);
}

std::optional<std::string> check_user(std::string_view text) {
  if (text.empty()) return "is empty";
  if (auto bad = hostile(text)) return bad;
  if (text.size() > 32) return "is longer than 32 characters";
  if (!(std::islower(static_cast<unsigned char>(text.front())) || text.front() == '_'))
    return "must start with a lower-case letter or '_'";
  for (char c : text)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_' || c == '-'))
      return fmt::format("contains '{}' (lower-case letters, digits, '_' and '-' only)", c);
  return std::nullopt;
}

namespace {

std::optional<std::string> check_name_with(std::string_view text, std::string_view extra, std::string_view allowed) {
  if (text.empty()) return "is empty";
  if (auto bad = hostile(text)) return bad;
  if (auto bad = first_refused(text, [&](char c) { return alnum(c) || c == '_' || c == '-' || c == '.' || extra.find(c) != std::string_view::npos; }, allowed))
    return bad;
  if (!alnum(text.front()) && text.front() != '_') return "must start with a letter, a digit or '_'";
  if (text.find("..") != std::string_view::npos) return "contains '..'";
  if (text.size() > 63) return "is longer than 63 characters";
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_name(std::string_view text) {
  return check_name_with(text, "", "letters, digits, '_', '-' and '.' only");
}

std::optional<std::string> check_hca(std::string_view text) {
  return check_name_with(text, ":", "letters, digits, '_', '-', '.' and ':' only");
}

std::optional<std::string> check_label_key(std::string_view text) {
  if (text.empty()) return "is empty";
  if (text.size() > 253) return "is longer than 253 characters";
  // Segments separated by single '/', as in "topology/zone"; each one a name.
  for (std::size_t start = 0; start <= text.size();) {
    const auto slash = std::min(text.find('/', start), text.size());
    const auto segment = text.substr(start, slash - start);
    if (segment.empty()) return "has an empty part (a leading, trailing or doubled '/')";
    if (auto why = check_name_with(segment, "", "letters, digits, '_', '-', '.' and '/' only")) return why;
    start = slash + 1;
  }
  return std::nullopt;
}

std::optional<std::string> check_path(std::string_view text, HomePrefix home) {
  if (text.empty()) return "is empty";
  if (text.front() == '-') return "starts with '-' (a command would read it as an option)";
  if (auto bad = first_refused(text, [](char c) { return alnum(c) || std::string_view("/_-.+,@:=%~").find(c) != std::string_view::npos; },
                               "paths take letters, digits and / _ - . + , @ : = %"))
    return bad;
  auto rest = text;
  if (home == HomePrefix::allowed && rest.starts_with("~/")) rest.remove_prefix(1);
  if (rest.find('~') != std::string_view::npos)
    return home == HomePrefix::allowed ? "contains '~' other than a leading '~/'" : "contains '~' (write the full path)";
  if (rest.front() != '/') return "is not an absolute path";
  if (rest.find("//") != std::string_view::npos) return "contains '//'";
  if (rest.size() > 1 && rest.back() == '/') return "ends with '/' (a file is needed, not a directory)";
  for (std::size_t start = 1; start <= rest.size();) {
    const auto slash = std::min(rest.find('/', start), rest.size());
    const auto component = rest.substr(start, slash - start);
    if (component == "." || component == "..") return fmt::format("has a '{}' component", component);
    start = slash + 1;
  }
  if (text.size() > 4096) return "is longer than 4096 characters";
  return std::nullopt;
}

}  // namespace gpuctl::inventory_detail
