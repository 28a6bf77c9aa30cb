#pragma once
// Helpers shared by the fact parsers (private to src/facts). Pure.

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuctl::facts::detail {

// nvidia-smi's ways of printing something instead of a value. `--query-gpu` brackets them:
// [N/A], [Not Supported], [Unknown Error], [Insufficient Permissions], [GPU is lost],
// [GPU requires reset], [Requested functionality has been deprecated], ... No value nvidia-smi
// prints is bracketed, so every "[...]" is one, including forms new drivers add. `-q` prints
// them without brackets ("N/A", "Not Found" for clock samples), and the summary table "ERR!".
// An empty CSV cell is no value either. The caller keeps the raw text (GpuInfo::unreported).
inline bool is_unavailable(std::string_view value) {
  static constexpr std::string_view k_plain[] = {"N/A",           "Not Found",          "Not Supported",
                                                 "Unknown Error", "Insufficient Permissions", "GPU is lost",
                                                 "GPU requires reset", "ERR!",         "Unknown"};
  if (value.empty() || (value.size() >= 2 && value.front() == '[' && value.back() == ']')) return true;
  for (const auto plain : k_plain)
    if (value == plain) return true;
  return false;
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

// "Enabled"/"Yes"/"On" -> true, "Disabled"/"No"/"Off" -> false, in any case (NVIDIA's page
// retirement guide spells the -q value "YES"); anything else is no bool.
inline std::optional<bool> to_bool(std::string_view text) {
  const auto is = [&](std::string_view word) {
    return text.size() == word.size() &&
           std::equal(text.begin(), text.end(), word.begin(), [](char a, char b) {
             return (a >= 'A' && a <= 'Z' ? static_cast<char>(a - 'A' + 'a') : a) == b;
           });
  };
  if (is("enabled") || is("yes") || is("on") || text == "1") return true;
  if (is("disabled") || is("no") || is("off") || text == "0") return false;
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
