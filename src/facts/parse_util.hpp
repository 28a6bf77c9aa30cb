#pragma once
// Helpers shared by the fact parsers (private to src/facts). Pure.

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuctl::facts::detail {

// nvidia-smi's ways of saying "no value": [N/A], N/A, [Not Supported], [Unknown Error],
// [Insufficient Permissions], [Requested functionality has been deprecated], ...
inline bool is_unavailable(std::string_view value) {
  return value.empty() || value == "N/A" || value == "Not Found" ||
         (value.size() >= 2 && value.front() == '[' && value.back() == ']');
}

// Drops a trailing unit ("143771 MiB" -> "143771", "128.02 W" -> "128.02").
inline std::string_view strip_unit(std::string_view value) {
  const auto space = value.find(' ');
  return space == std::string_view::npos ? value : value.substr(0, space);
}

inline std::optional<std::int64_t> to_int(std::string_view text) {
  std::int64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || text.empty()) return std::nullopt;
  return value;
}

inline std::optional<double> to_double(std::string_view text) {
  double value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || text.empty()) return std::nullopt;
  return value;
}

// "Enabled"/"Yes"/"On" -> true, "Disabled"/"No"/"Off" -> false.
inline std::optional<bool> to_bool(std::string_view text) {
  if (text == "Enabled" || text == "Yes" || text == "On" || text == "1") return true;
  if (text == "Disabled" || text == "No" || text == "Off" || text == "0") return false;
  return std::nullopt;
}

// First line of `text`, trimmed of trailing spaces, for reasons quoted in absent facts.
inline std::string first_line(std::string_view text) {
  while (!text.empty() && (text.front() == '\n' || text.front() == ' ')) text.remove_prefix(1);
  auto line = text.substr(0, text.find('\n'));
  while (!line.empty() && (line.back() == ' ' || line.back() == '\r' || line.back() == '.')) line.remove_suffix(1);
  return std::string(line);
}

}  // namespace gpuctl::facts::detail
