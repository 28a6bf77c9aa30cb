#pragma once
// Unified diffs of text, for plans. Pure.

#include <string>
#include <string_view>

namespace gpuctl::util {

// A unified diff (3 lines of context) from `before` to `after`, with ---/+++ headers.
// Empty when the texts are equal. Texts over `max_lines` lines get a one-line summary instead.
std::string unified_diff(std::string_view before, std::string_view after, std::string_view before_label,
                         std::string_view after_label, std::size_t max_lines = 5000);

}  // namespace gpuctl::util
