#include <gpuctl/util/diff.hpp>

#include <gpuctl/util/strings.hpp>

#include <algorithm>
#include <fmt/format.h>
#include <vector>

namespace gpuctl::util {
namespace {

enum class Op { keep, remove, add };
struct Edit {
  Op op;
  std::size_t before_line;  // 0-based index into before (keep/remove)
  std::size_t after_line;   // 0-based index into after (keep/add)
};

// Longest-common-subsequence edit script; config files are small, so O(n*m) is fine.
std::vector<Edit> edit_script(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<std::uint32_t>> lcs(n + 1, std::vector<std::uint32_t>(m + 1, 0));
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs[i][j] = a[i] == b[j] ? lcs[i + 1][j + 1] + 1 : std::max(lcs[i + 1][j], lcs[i][j + 1]);
  std::vector<Edit> edits;
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] == b[j]) edits.push_back({Op::keep, i++, j++});
    // On a tie, removals first: a changed line reads "-old" then "+new", as in diff(1).
    else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) edits.push_back({Op::remove, i++, j});
    else edits.push_back({Op::add, i, j++});
  }
  return edits;
}

}  // namespace

std::string unified_diff(std::string_view before, std::string_view after, std::string_view before_label,
                         std::string_view after_label, std::size_t max_lines) {
  if (before == after) return {};
  // A last line without its newline differs from the same line with one (as in diff(1)): it
  // carries a '\n' sentinel here, which no other line can contain, and is printed with the
  // "\ No newline at end of file" marker right after it, where patch(1) expects it.
  const auto lines_of = [](std::string_view text) {
    auto lines = split_lines(text);
    if (!text.empty() && text.back() != '\n' && !lines.empty()) lines.back() += '\n';
    return lines;
  };
  const auto a = lines_of(before);
  const auto b = lines_of(after);
  const auto emit = [](char prefix, const std::string& line) {
    if (!line.empty() && line.back() == '\n') return prefix + line + "\\ No newline at end of file\n";
    return prefix + line + "\n";
  };
  std::string out = fmt::format("--- {}\n+++ {}\n", before_label, after_label);
  if (a.size() > max_lines || b.size() > max_lines)
    return out + fmt::format("@@ content differs ({} -> {} lines; too large to show) @@\n", a.size(), b.size());
  const auto edits = edit_script(a, b);
  constexpr std::size_t k_context = 3;
  std::size_t k = 0;
  while (k < edits.size()) {
    // Find the next change, then grow a hunk until changes are more than 2*context apart.
    while (k < edits.size() && edits[k].op == Op::keep) ++k;
    if (k == edits.size()) break;
    std::size_t start = k >= k_context ? k - k_context : 0;
    std::size_t end = k;
    while (end < edits.size()) {
      std::size_t next = end;
      while (next < edits.size() && edits[next].op != Op::keep) ++next;
      std::size_t keep_run = next;
      while (keep_run < edits.size() && edits[keep_run].op == Op::keep) ++keep_run;
      if (keep_run == edits.size() || keep_run - next > 2 * k_context) {
        end = std::min(edits.size(), next + k_context);
        break;
      }
      end = keep_run;
    }
    std::size_t before_count = 0, after_count = 0;
    for (std::size_t e = start; e < end; ++e) {
      if (edits[e].op != Op::add) ++before_count;
      if (edits[e].op != Op::remove) ++after_count;
    }
    const auto before_start = edits[start].before_line + (before_count ? 1 : 0);
    const auto after_start = edits[start].after_line + (after_count ? 1 : 0);
    out += fmt::format("@@ -{},{} +{},{} @@\n", before_start, before_count, after_start, after_count);
    for (std::size_t e = start; e < end; ++e) {
      const auto& edit = edits[e];
      if (edit.op == Op::keep) out += emit(' ', a[edit.before_line]);
      else if (edit.op == Op::remove) out += emit('-', a[edit.before_line]);
      else out += emit('+', b[edit.after_line]);
    }
    k = end;
  }
  return out;
}

}  // namespace gpuctl::util
