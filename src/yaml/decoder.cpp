#include "yaml/decoder.hpp"

#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <regex>

namespace gpuctl::yaml {

const MapView::Entry* MapView::find(std::string_view key) const {
  const auto it = m_index.find(key);
  return it == m_index.end() ? nullptr : &m_entries[it->second];
}

const YamlNode* MapView::get(std::string_view key) const {
  const auto* entry = find(key);
  return entry ? entry->value : nullptr;
}

void MapView::add(Entry entry) {
  m_index.emplace(entry.key_node->value, m_entries.size());
  m_entries.push_back(std::move(entry));
}

namespace {

// Control characters as C escapes; everything else as it is.
std::string printable(std::string text) {
  if (std::ranges::none_of(text, [](unsigned char c) { return c < 0x20 || c == 0x7f; })) return text;
  std::string out;
  for (const unsigned char c : text) {
    if (c == '\n') out += "\\n";
    else if (c == '\r') out += "\\r";
    else if (c == '\t') out += "\\t";
    else if (c < 0x20 || c == 0x7f) out += fmt::format("\\x{:02x}", c);
    else out += static_cast<char>(c);
  }
  return out;
}

}  // namespace

void Decoder::error(const YamlNode& at, std::string message, std::string hint) {
  error_at(at.line, at.column, std::move(message), std::move(hint));
}

void Decoder::error_at(int line, int column, std::string message, std::string hint) {
  m_diagnostics.push_back({Severity::error, m_path, line, column, printable(std::move(message)), printable(std::move(hint))});
}

void Decoder::warning_at(int line, int column, std::string message, std::string hint) {
  m_diagnostics.push_back({Severity::warning, m_path, line, column, printable(std::move(message)), printable(std::move(hint))});
}

std::optional<MapView> Decoder::map(const YamlNode& node, std::string_view what,
                                    std::span<const std::string> allowed) {
  if (node.is_null()) {
    error(node, fmt::format("{} is empty", what), "give it a value or remove the key");
    return std::nullopt;
  }
  if (!node.is_map()) {
    error(node, fmt::format("{} must be a map of key: value", what));
    return std::nullopt;
  }
  MapView view;
  for (const auto& [key, value] : node.entries) {
    if (!key.is_scalar() || key.value.empty()) {
      error(key, fmt::format("keys in {} must be plain names", what));
      continue;
    }
    if (const auto* first = view.find(key.value)) {
      error(key, fmt::format("duplicate key '{}' in {}", key.value, what),
            fmt::format("first defined at line {}", first->key_node->line));
      continue;
    }
    if (!allowed.empty() && std::ranges::find(allowed, key.value) == allowed.end()) {
      const auto suggestion = util::closest_match(key.value, allowed);
      error(key, fmt::format("unknown key '{}' in {}", key.value, what),
            suggestion ? fmt::format("did you mean '{}'?", *suggestion)
                       : fmt::format("allowed: {}", util::join(allowed, ", ")));
      continue;
    }
    view.add({key.value, &key, &value});
  }
  return view;
}

std::optional<std::string> yaml_number_reading(std::string_view plain) {
  static const std::regex k_integer(R"([-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)");
  static const std::regex k_float(R"([-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?)");
  const std::string text(plain);
  if (std::regex_match(text, k_integer)) {
    if (text.starts_with("0x") || text.starts_with("0o")) return text;
    const bool negative = text.front() == '-';
    auto digits = text.substr(text.front() == '-' || text.front() == '+' ? 1 : 0);
    digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size() - 1));
    return (negative ? "-" : "") + digits;
  }
  if (std::regex_match(text, k_float)) {
    const double value = std::strtod(text.c_str(), nullptr);
    // Shortest text that reads back as the same double, as YAML tools print it.
    std::array<char, 64> buffer{};
    auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
    std::string shortest(buffer.data(), end);
    if (std::isfinite(value) && value == std::floor(value) && shortest.find_first_of(".e") == std::string::npos)
      shortest += ".0";
    return shortest;
  }
  return std::nullopt;
}

std::optional<std::string> Decoder::string(const YamlNode& node, std::string_view what) {
  if (node.is_null()) {
    error(node, fmt::format("{} is empty", what), "give it a value or remove the key");
    return std::nullopt;
  }
  if (!node.is_scalar()) {
    error(node, fmt::format("{} must be a string, not a {}", what, node.is_map() ? "map" : "list"));
    return std::nullopt;
  }
  if (util::trim(node.value).empty()) {
    error(node, fmt::format("{} is empty", what), "give it a value or remove the key");
    return std::nullopt;
  }
  return node.value;
}

std::optional<std::string> Decoder::version(const YamlNode& node, std::string_view what) {
  auto text = string(node, what);
  if (!text) return std::nullopt;
  if (!node.quoted) {
    if (const auto reading = yaml_number_reading(*text)) {
      if (*reading != *text)
        error(node, fmt::format("{} must be a quoted string: {} would be read as {}", what, *text, *reading),
              fmt::format("write \"{}\"", *text));
      else
        error(node, fmt::format("{} must be a quoted string, not the number {}", what, *text),
              fmt::format("write \"{}\"", *text));
      return std::nullopt;
    }
  }
  return text;
}

std::optional<int> Decoder::integer(const YamlNode& node, std::string_view what, long min, long max) {
  auto text = string(node, what);
  if (!text) return std::nullopt;
  long value = 0;
  const auto* begin = text->data();
  const auto* end = begin + text->size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || ptr != end || node.quoted) {
    error(node, fmt::format("{} must be a whole number, not '{}'", what, *text),
          node.quoted ? "remove the quotes" : "");
    return std::nullopt;
  }
  if (value < min || value > max) {
    error(node, fmt::format("{} must be between {} and {}, not {}", what, min, max, value));
    return std::nullopt;
  }
  return static_cast<int>(value);
}

std::optional<bool> Decoder::boolean(const YamlNode& node, std::string_view what) {
  auto text = string(node, what);
  if (!text) return std::nullopt;
  if (!node.quoted && *text == "true") return true;
  if (!node.quoted && *text == "false") return false;
  error(node, fmt::format("{} must be true or false, not '{}'", what, *text));
  return std::nullopt;
}

std::optional<std::string> Decoder::choice(const YamlNode& node, std::string_view what,
                                           std::span<const std::string> choices) {
  auto text = string(node, what);
  if (!text) return std::nullopt;
  if (std::ranges::find(choices, *text) != choices.end()) return text;
  const auto suggestion = util::closest_match(*text, choices);
  error(node, fmt::format("{} must be one of {}, not '{}'", what, util::join(choices, ", "), *text),
        suggestion ? fmt::format("did you mean '{}'?", *suggestion) : "");
  return std::nullopt;
}

std::optional<std::vector<std::string>> Decoder::string_list(const YamlNode& node, std::string_view what) {
  if (!node.is_sequence()) {
    error(node, node.is_null() ? fmt::format("{} is empty", what) : fmt::format("{} must be a list", what),
          "write e.g. [a, b]");
    return std::nullopt;
  }
  std::vector<std::string> out;
  bool ok = true;
  for (const auto& item : node.items) {
    auto text = string(item, fmt::format("an item of {}", what));
    if (text) out.push_back(*text);
    else ok = false;
  }
  if (!ok) return std::nullopt;
  return out;
}

}  // namespace gpuctl::yaml
