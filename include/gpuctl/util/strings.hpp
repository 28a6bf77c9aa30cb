#pragma once
// Small, pure string helpers shared by every module. No I/O.

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl::util {

std::string_view trim(std::string_view text);
std::vector<std::string> split(std::string_view text, char separator);
std::vector<std::string> split_lines(std::string_view text);  // drops a trailing empty line
// The words of `text` between runs of whitespace (none empty), as views into it.
std::vector<std::string_view> split_words(std::string_view text);
std::string join(std::span<const std::string> parts, std::string_view separator);
std::string to_lower(std::string_view text);

// Quotes one argument for a POSIX shell: safe for any byte string. Plain words (letters,
// digits, @%+=:,./_-) are left as they are, for readable commands.
std::string shell_quote(std::string_view argument);
// The text between single quotes that reads back as `text`: each ' becomes '\'' (close the
// quote, an escaped quote, reopen). shell_quote and the playbook substituter both build on it.
std::string shell_escape_single_quoted(std::string_view text);
// Always single-quoted: 'text'. For text spliced into a command where a bare word could still
// mean more than itself (an assignment `A=b`, a tilde prefix).
std::string shell_single_quote(std::string_view text);
// Quotes each argument and joins them with spaces.
std::string shell_join(std::span<const std::string> arguments);

// Edit distance (insert/delete/substitute/transpose), for "did you mean" suggestions.
std::size_t edit_distance(std::string_view a, std::string_view b);
// The candidate closest to `word` when it is close enough to be a plausible typo.
std::optional<std::string> closest_match(std::string_view word, std::span<const std::string> candidates);

// `text` with every whole-word `word` replaced by `replacement`: a word boundary is any
// character other than a letter, digit, '_' or '-' (so "gpu1" is left alone inside "gpu10").
// For folding output by node (plan/fold.hpp, the plain progress lines).
std::string replace_whole_words(std::string_view text, std::string_view word, std::string_view replacement);

// Last `max_lines` lines of `text`, for error reports that quote command output.
std::string tail_lines(std::string_view text, std::size_t max_lines);

// `text` safe to print on a terminal: every control character but line feed and tab (escape
// sequences, carriage returns, backspaces, DEL) as \xNN, so that what a node printed cannot
// move the cursor, recolour, retitle or hide lines of gpuctl's output.
std::string terminal_safe(std::string_view text);

}  // namespace gpuctl::util
