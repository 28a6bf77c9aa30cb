#include "values.hpp"

#include "names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace gpuctl::inventory_detail {
namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }
bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Numbers separated by single dots: `min_parts` to `max_parts` numbers of 1 to 4 digits.
std::optional<std::string> check_dotted(std::string_view text, int min_parts, int max_parts) {
  if (text.empty()) return "is empty";
  if (auto bad = std::ranges::find_if(text, [](char c) { return !digit(c) && c != '.'; }); bad != text.end())
    return refused_character(*bad, "digits and '.' only");
  int parts = 0;
  for (std::size_t start = 0; start <= text.size(); ++parts) {
    const auto dot = std::min(text.find('.', start), text.size());
    const auto part = text.substr(start, dot - start);
    if (part.empty()) return "has an empty number (a leading, trailing or doubled '.')";
    if (part.size() > 4) return fmt::format("has a number longer than 4 digits ('{}')", part);
    start = dot + 1;
  }
  if (parts < min_parts || parts > max_parts)
    return min_parts == max_parts ? fmt::format("must have {} numbers, not {}", min_parts, parts)
                                  : fmt::format("must have {} to {} numbers, not {}", min_parts, max_parts, parts);
  return std::nullopt;
}

constexpr std::string_view k_url_allowed = "URLs take letters, digits and - . _ ~ : / ? = & % + , @";

// user@host:port, host a name, an IPv4 address or a bracketed IPv6 address.
std::optional<std::string> check_authority(std::string_view authority) {
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) authority.remove_prefix(at + 1);
  if (authority.empty()) return "has no host";
  std::string_view host = authority, port;
  if (authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return "has a '[' without ']' in its host";
    host = authority.substr(1, close - 1);
    const auto after = authority.substr(close + 1);
    if (!after.empty() && after.front() != ':') return "has text after its IPv6 address";
    if (!after.empty()) port = after.substr(1);
    if (host.find(':') == std::string_view::npos) return "has a bracketed host that is not an IPv6 address";
  } else if (const auto colon = authority.find(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (auto why = check_address(host)) return fmt::format("has the host '{}', which {}", host, *why);
  if (!port.empty() || authority.ends_with(':')) {
    if (port.empty() || port.size() > 5 || !std::ranges::all_of(port, digit) || std::stoi(std::string(port)) < 1 ||
        std::stoi(std::string(port)) > 65535)
      return fmt::format("has the port '{}', not a number from 1 to 65535", port);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_driver_branch(std::string_view text) {
  if (text.empty()) return "is empty";
  if (auto bad = std::ranges::find_if(text, [](char c) { return !digit(c); }); bad != text.end())
    return refused_character(*bad, "a driver branch is digits only");
  if (text.size() > 4) return "is longer than 4 digits";
  return std::nullopt;
}

std::optional<std::string> check_driver_version(std::string_view text) { return check_dotted(text, 2, 4); }

std::optional<std::string> check_cuda_version(std::string_view text) { return check_dotted(text, 2, 2); }

std::optional<std::string> check_toolkit_version(std::string_view text) { return check_dotted(text, 3, 3); }

std::optional<std::string> check_url(std::string_view text) {
  if (text.empty()) return "is empty";
  if (text.front() == '-') return "starts with '-' (a command would read it as an option)";
  if (auto bad = std::ranges::find_if(text, [](char c) {
        return !alnum(c) && std::string_view("-._~:/?=&%+,@[]").find(c) == std::string_view::npos;
      });
      bad != text.end())
    return refused_character(*bad, k_url_allowed);
  if (text.size() > 2048) return "is longer than 2048 characters";
  if (text.starts_with("file:")) {
    auto path = text.substr(5);
    if (path.starts_with("//")) path.remove_prefix(2);  // file:///srv/x has an empty authority
    if (path.find_first_of("[]?") != std::string_view::npos) return "is a file: URL with '[', ']' or '?'";
    if (!path.starts_with('/')) return "is a file: URL without an absolute path (write file:/srv/mirror/ or file:///srv/mirror/)";
    // A directory ("file:/srv/cuda/") is fine here: the path check wants a file, so drop the '/'.
    if (path.size() > 1 && path.ends_with('/')) path.remove_suffix(1);
    if (auto why = check_path(path)) return fmt::format("has the path '{}', which {}", path, *why);
    return std::nullopt;
  }
  std::string_view rest;
  if (text.starts_with("https://")) rest = text.substr(8);
  else if (text.starts_with("http://")) rest = text.substr(7);
  else return "must start with https://, http:// or file:/";
  const auto authority = rest.substr(0, rest.find_first_of("/?"));
  if (auto why = check_authority(authority)) return why;
  const auto path = rest.substr(authority.size());
  if (path.find_first_of("[]") != std::string_view::npos)
    return "has '[' or ']' outside its host (percent-encode them: %5B, %5D)";
  const auto query = std::min(path.find('?'), path.size());
  for (std::size_t start = 0; start < query;) {
    const auto slash = std::min(path.find('/', start + 1), query);
    const auto segment = path.substr(start + 1, slash - start - 1);
    if (segment == "." || segment == "..") return fmt::format("has a '{}' path segment", segment);
    start = slash;
  }
  return std::nullopt;
}

std::optional<std::string> check_label_value(std::string_view text) {
  if (text.empty()) return "is empty";
  constexpr std::string_view k_refused = "`$\\\"'<>;&|#";
  if (auto bad = std::ranges::find_if(text, [&](char c) {
        return static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f ||
               k_refused.find(c) != std::string_view::npos;
      });
      bad != text.end())
    return refused_character(*bad, "label values take printable ASCII without quotes, \\ and ` $ < > ; & | #");
  if (text.find("{{") != std::string_view::npos || text.find("}}") != std::string_view::npos)
    return "contains '{{' or '}}' (template delimiters)";
  if (text.front() == '-') return "starts with '-' (a command would read it as an option)";
  if (text.front() == ' ' || text.back() == ' ') return "starts or ends with a space";
  if (text.find("..") != std::string_view::npos) return "contains '..' (it could climb out of a directory)";
  if (text.size() > 256) return "is longer than 256 characters";
  return std::nullopt;
}

std::optional<std::string> check_email_address(std::string_view text) {
  if (text.empty()) return "is empty";
  const auto at = text.find('@');
  if (at == std::string_view::npos || at == 0 || text.find('@', at + 1) != std::string_view::npos)
    return "is not one address of the form name@domain";
  const auto local = text.substr(0, at);
  if (auto bad = std::ranges::find_if(local, [](char c) { return !alnum(c) && std::string_view("._%+-").find(c) == std::string_view::npos; });
      bad != local.end())
    return refused_character(*bad, "the part before '@' takes letters, digits and . _ % + -");
  if (local.front() == '-') return "starts with '-'";
  if (auto why = check_hostname(text.substr(at + 1))) return fmt::format("has the domain '{}', which {}", text.substr(at + 1), *why);
  if (text.size() > 254) return "is longer than 254 characters";
  return std::nullopt;
}

std::optional<std::string> check_host_port(std::string_view text) {
  if (text.empty()) return "is empty";
  if (text.find_first_of("@/") != std::string_view::npos) return "is not host:port (no user, no path)";
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == text.size() || (text.front() != '[' && text.find(':') != colon))
    return "has no port (write host:port, e.g. smtp.example.com:587)";
  return check_authority(text);
}

std::optional<std::string> check_chat_channel(std::string_view text) {
  if (text.size() < 2 || (text.front() != '#' && text.front() != '@')) return "is not #channel or @user";
  const auto name = text.substr(1);
  if (auto bad = std::ranges::find_if(name, [](char c) { return !alnum(c) && std::string_view("._-").find(c) == std::string_view::npos; });
      bad != name.end())
    return refused_character(*bad, "a channel name takes letters, digits and . _ -");
  if (text.size() > 80) return "is longer than 80 characters";
  return std::nullopt;
}

}  // namespace gpuctl::inventory_detail
