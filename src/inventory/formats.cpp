#include "formats.hpp"

#include "names.hpp"

#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace gpuctl::inventory_detail {
namespace {

bool upper_or_digit(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }
// Neither format needs these, and each could end a value early or reach a shell one day.
constexpr std::string_view k_refused_in_words = "#\"'\\`$;&|<>(){}";

bool printable(char c) { return c > 0x20 && c < 0x7f; }  // no space, no control, ASCII only

// A single word of printable ASCII without any of `refused`.
std::optional<std::string> check_word(std::string_view text, std::string_view refused, std::string_view allowed,
                                      std::size_t max_size) {
  if (text.empty()) return "is empty";
  if (auto bad = std::ranges::find_if(text, [&](char c) { return !printable(c) || refused.find(c) != std::string_view::npos; });
      bad != text.end())
    return refused_character(*bad, allowed);
  if (text.find("{{") != std::string_view::npos || text.find("}}") != std::string_view::npos)
    return "contains '{{' or '}}' (template delimiters)";
  if (text.find("..") != std::string_view::npos) return "contains '..' (it could climb out of a directory)";
  if (text.size() > max_size) return fmt::format("is longer than {} characters", max_size);
  return std::nullopt;
}

}  // namespace

std::optional<std::string> check_slurm_key(std::string_view text) {
  if (text.empty()) return "is empty";
  if (auto bad = std::ranges::find_if(text, [](char c) { return !std::isalnum(static_cast<unsigned char>(c)) && c != '_'; });
      bad != text.end())
    return refused_character(*bad, "Slurm keys take letters, digits and '_'");
  if (!std::isalpha(static_cast<unsigned char>(text.front()))) return "must start with a letter";
  if (text.size() > 64) return "is longer than 64 characters";
  return std::nullopt;
}

std::optional<std::string> check_slurm_value(std::string_view text) {
  return check_word(text, k_refused_in_words, "slurm.conf values are one word without '#', quotes or shell metacharacters", 1024);
}

std::optional<std::string_view> reserved_slurm_key(std::string_view key, std::span<const std::string_view> reserved) {
  const auto lower = util::to_lower(key);
  for (const auto name : reserved)
    if (util::to_lower(name) == lower) return name;
  return std::nullopt;
}

std::optional<std::string> check_nccl_key(std::string_view text) {
  if (!text.starts_with("NCCL_")) return "does not start with NCCL_";
  if (text.size() == 5) return "has nothing after NCCL_";
  if (auto bad = std::ranges::find_if(text, [](char c) { return !upper_or_digit(c); }); bad != text.end())
    return refused_character(*bad, "NCCL settings are NCCL_ then upper-case letters, digits and '_'");
  if (text.size() > 128) return "is longer than 128 characters";
  return std::nullopt;
}

std::optional<std::string> check_nccl_value(std::string_view text) {
  return check_word(text, k_refused_in_words, "nccl.conf values are one word without '#', quotes or shell metacharacters", 1023);
}

}  // namespace gpuctl::inventory_detail
