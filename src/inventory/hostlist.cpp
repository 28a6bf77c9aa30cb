// Hostlist expansion and folding with Slurm's semantics (scontrol show hostnames) and
// ClusterShell's output form (nodeset -f).
//
// Padding follows Slurm: the width of a range is the width of its low end when that end is
// written with a leading zero, so "node[01-100]" is node01..node99,node100. A high end that is
// itself zero-padded to a different width ("[01-001]", "[1-010]") or written shorter than the
// low end's width ("[001-10]") is a padding mismatch: the user meant two different things.
#include <gpuctl/inventory/hostlist.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <unordered_set>

namespace gpuctl::hostlist {
namespace {

constexpr std::size_t k_max_digits = 18;  // fits in uint64 without overflow checks

struct Range {
  std::uint64_t low = 0;
  std::uint64_t high = 0;
  std::size_t width = 0;  // zero-padding width; 0 = unpadded
};

// One piece of a name pattern: literal text, or a bracketed set of ranges.
struct Piece {
  std::string text;
  std::vector<Range> ranges;  // empty for literal text
  bool is_set = false;

  std::size_t count() const {
    std::size_t n = 0;
    for (const auto& r : ranges) n += static_cast<std::size_t>(r.high - r.low + 1);
    return n;
  }
};

bool is_digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

std::unexpected<Error> parse_error(std::size_t column, std::string message, std::string hint = {}) {
  Location where;
  where.column = static_cast<int>(column);
  return fail(ErrorCode::parse, std::move(message), where, std::move(hint));
}

std::string format_number(std::uint64_t value, std::size_t width) {
  return fmt::format("{:0{}}", value, width);
}

// Parses a number that starts at `offset` of `text` (column base `base`).
Result<std::uint64_t> parse_number(std::string_view text, std::size_t offset, std::size_t base) {
  if (text.empty()) return parse_error(base + offset, "empty range bound", "write e.g. [1-4]");
  for (std::size_t i = 0; i < text.size(); ++i)
    if (!is_digit(text[i]))
      return parse_error(base + offset + i, fmt::format("'{}' is not a number", text),
                         "ranges take decimal numbers, e.g. [01-08]");
  if (text.size() > k_max_digits)
    return parse_error(base + offset, fmt::format("number '{}' is too large", text));
  return std::stoull(std::string(text));
}

bool padded(std::string_view digits) { return digits.size() > 1 && digits.front() == '0'; }

// Parses "01-08,10" (the inside of brackets); `base` is the 1-based column of its first char.
Result<std::vector<Range>> parse_ranges(std::string_view body, std::size_t base) {
  std::vector<Range> ranges;
  if (body.empty()) return parse_error(base - 1, "empty brackets '[]'", "write e.g. node[1-4]");
  std::size_t start = 0;
  while (start <= body.size()) {
    auto end = body.find(',', start);
    if (end == std::string_view::npos) end = body.size();
    const auto item = body.substr(start, end - start);
    if (item.empty()) return parse_error(base + start, "empty range in brackets", "remove the extra ','");
    const auto dash = item.find('-');
    Range range;
    if (dash == std::string_view::npos) {
      auto value = parse_number(item, start, base);
      if (!value) return std::unexpected(value.error());
      range = {*value, *value, padded(item) ? item.size() : 0};
    } else {
      const auto low_text = item.substr(0, dash);
      const auto high_text = item.substr(dash + 1);
      if (low_text.empty() || high_text.empty())
        return parse_error(base + start + (low_text.empty() ? 0 : dash + 1),
                           fmt::format("incomplete range '{}'", item), "write both ends, e.g. 1-4");
      auto low = parse_number(low_text, start, base);
      if (!low) return std::unexpected(low.error());
      auto high = parse_number(high_text, start + dash + 1, base);
      if (!high) return std::unexpected(high.error());
      const std::size_t width = padded(low_text) ? low_text.size() : 0;
      const bool mismatch = (padded(high_text) && high_text.size() != std::max<std::size_t>(width, 1)) ||
                            (width > 0 && high_text.size() < width);
      if (mismatch)
        return parse_error(base + start,
                           fmt::format("padding mismatch in range '{}'", item),
                           fmt::format("write both ends with the same number of digits, e.g. {}-{}",
                                       format_number(*low, std::max(low_text.size(), high_text.size())),
                                       format_number(*high, std::max(low_text.size(), high_text.size()))));
      if (*low > *high)
        return parse_error(base + start, fmt::format("reversed range '{}'", item),
                           fmt::format("write {}-{}", high_text, low_text));
      range = {*low, *high, width};
    }
    ranges.push_back(range);
    start = end + 1;
  }
  return ranges;
}

// Splits one comma-free item ("rack[1-2]-gpu[01-04]") into pieces; `base` = column of item[0].
Result<std::vector<Piece>> parse_item(std::string_view item, std::size_t base) {
  std::vector<Piece> pieces;
  std::string literal;
  for (std::size_t i = 0; i < item.size(); ++i) {
    const char c = item[i];
    if (c == ']') return parse_error(base + i, "unbalanced ']'", "remove it or add the matching '['");
    if (c != '[') {
      literal += c;
      continue;
    }
    const auto close = item.find(']', i + 1);
    const auto nested = item.find('[', i + 1);
    if (nested != std::string_view::npos && (close == std::string_view::npos || nested < close))
      return parse_error(base + nested, "nested '[' inside brackets", "brackets cannot nest");
    if (close == std::string_view::npos) return parse_error(base + i, "missing ']'", "close the bracket");
    if (!literal.empty()) pieces.push_back({std::move(literal), {}, false});
    literal.clear();
    auto ranges = parse_ranges(item.substr(i + 1, close - i - 1), base + i + 1);
    if (!ranges) return std::unexpected(ranges.error());
    pieces.push_back({{}, std::move(*ranges), true});
    i = close;
  }
  if (!literal.empty()) pieces.push_back({std::move(literal), {}, false});
  return pieces;
}

// Appends the cartesian product of `pieces` to `out`, the first piece varying slowest (Slurm).
void emit(const std::vector<Piece>& pieces, std::size_t index, std::string& prefix,
          std::vector<std::string>& out, std::unordered_set<std::string>& seen) {
  if (index == pieces.size()) {
    if (seen.insert(prefix).second) out.push_back(prefix);
    return;
  }
  const auto& piece = pieces[index];
  const auto size = prefix.size();
  if (!piece.is_set) {
    prefix += piece.text;
    emit(pieces, index + 1, prefix, out, seen);
  } else {
    for (const auto& r : piece.ranges)
      for (auto v = r.low;; ++v) {
        prefix += format_number(v, r.width);
        emit(pieces, index + 1, prefix, out, seen);
        prefix.resize(size);
        if (v == r.high) break;
      }
  }
  prefix.resize(size);
}

}  // namespace

Result<std::vector<std::string>> expand(std::string_view expression, std::size_t limit) {
  std::vector<std::string> names;
  std::unordered_set<std::string> seen;
  std::size_t total = 0, total_chars = 0;
  std::size_t start = 0;
  int depth = 0;
  if (expression.find_first_not_of(" \t") == std::string_view::npos)
    return parse_error(1, "empty hostlist");
  // Top-level commas separate items; commas inside brackets belong to range lists.
  for (std::size_t i = 0; i <= expression.size(); ++i) {
    const bool at_end = i == expression.size();
    if (!at_end && expression[i] == '[') ++depth;
    if (!at_end && expression[i] == ']') depth = std::max(0, depth - 1);
    if (!at_end && (expression[i] != ',' || depth > 0)) continue;
    auto item = expression.substr(start, i - start);
    std::size_t column = start + 1;
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1), ++column;
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (item.empty())
      return parse_error(column, "empty name in hostlist", "remove the extra ','");
    auto pieces = parse_item(item, column);
    if (!pieces) return std::unexpected(pieces.error());
    std::size_t count = 1, longest = 0;  // names, and the most characters one can have
    for (const auto& piece : *pieces) {
      if (!piece.is_set) {
        longest += piece.text.size();
        continue;
      }
      std::size_t digits = 0;
      for (const auto& r : piece.ranges) digits = std::max({digits, r.width, std::to_string(r.high).size()});
      longest += digits;
      const auto n = piece.count();
      if (count > limit / std::max<std::size_t>(n, 1) + 1) { count = limit + 1; break; }
      count *= n;
    }
    total += count;
    if (total > limit)
      return parse_error(column, fmt::format("hostlist expands to more than {} names", limit),
                         "check the range bounds for a typo");
    // Long names repeated by a range (70000 names of 2 KB from a 2 KB inventory, found by
    // fuzzing) would take hundreds of MB and seconds: the names' characters are bounded too.
    total_chars += count * longest;
    if (total_chars > k_max_expansion_chars)
      return parse_error(column, fmt::format("hostlist expands to more than {} MiB of names", k_max_expansion_chars >> 20),
                         "check the range bounds and the names for a typo");
    std::string prefix;
    emit(*pieces, 0, prefix, names, seen);
    start = i + 1;
  }
  return names;
}

namespace {

// A name split into literal text and digit runs: "rack1-gpu001" -> {"rack","-gpu",""} + {"1","001"}.
struct Split {
  std::vector<std::string> texts;    // numbers.size() + 1 entries
  std::vector<std::string> numbers;  // digit runs as written
};

Split split_name(const std::string& name) {
  Split s;
  s.texts.emplace_back();
  for (std::size_t i = 0; i < name.size();) {
    if (!is_digit(name[i])) {
      s.texts.back() += name[i++];
      continue;
    }
    std::size_t j = i;
    while (j < name.size() && is_digit(name[j])) ++j;
    // Runs too long to be a number stay literal, so folding never loses digits.
    if (j - i > k_max_digits) {
      s.texts.back() += name.substr(i, j - i);
    } else {
      s.numbers.push_back(name.substr(i, j - i));
      s.texts.emplace_back();
    }
    i = j;
  }
  return s;
}

// Folds digit strings of one dimension into "1-3,5" or "01-04" (without brackets) and reports
// whether the result is a single value (then written without brackets).
std::string fold_numbers(std::vector<std::string> numbers, bool& single) {
  // Shorter strings first, then by value: unpadded numbers stay in numeric order, and a padded
  // one ("01") sorts with the numbers of its width, as `nodeset -f` folds "n[1-3,5,01]".
  auto key = [](const std::string& s) { return std::pair{s.size(), std::stoull(s)}; };
  std::ranges::sort(numbers, [&](const auto& a, const auto& b) { return key(a) < key(b); });
  numbers.erase(std::unique(numbers.begin(), numbers.end()), numbers.end());
  single = numbers.size() == 1;
  std::string out;
  for (std::size_t i = 0; i < numbers.size();) {
    const auto& low = numbers[i];
    const std::size_t width = padded(low) ? low.size() : 0;
    auto value = std::stoull(low);
    std::size_t j = i + 1;
    // A run continues while the next number is exactly what expanding the range would print.
    while (j < numbers.size() && numbers[j] == format_number(value + 1, width)) ++value, ++j;
    if (!out.empty()) out += ',';
    out += low;
    if (j - i > 1) out += '-' + numbers[j - 1];
    i = j;
  }
  return out;
}

}  // namespace

namespace {

// The folding behind compress() and compress_for_slurm(). `for_slurm` applies the rules of
// Slurm's own parser (hostlist.c, `_hostlist_create_bracketed`, Slurm 22.05), checked against
// `scontrol show hostnames`:
// - a name holding a bracket must end with its last `]`: "r[01-02]n01", "rack[1-2]-gpu07" and
//   "gpu[01-02]-ib" are "Invalid hostlist". So the last number is bracketed whenever an earlier
//   one is ("r[01-02]n[01]"), and names that end in a letter are never folded ("gpu01-ib").
// - Slurm expands a name of three or more brackets in another order than the first-slowest
//   order of expand() ("a[1-2]b[1-2]c[1-2]": b slowest, then a, then c; "a[1-2]b[1-2]c[1]"
//   too), and slurm.conf pairs NodeName with NodeAddr in Slurm's order. So a name holds at
//   most two brackets, and expand() and Slurm list the names of every form in the same order.
std::string fold(const std::vector<std::string>& names, bool for_slurm) {
  // Rows of numbers-as-written-or-folded per pattern; folding goes dimension by dimension
  // from the last, so a full cartesian product ends as "rack[1-2]-gpu[001-004]".
  std::map<std::vector<std::string>, std::vector<std::vector<std::string>>> by_pattern;
  std::set<std::string> unique(names.begin(), names.end());
  for (const auto& name : unique) {
    auto s = split_name(name);
    by_pattern[s.texts].push_back(s.numbers);
  }
  auto is_range = [](const std::string& value) { return value.starts_with('['); };
  std::vector<std::string> out;
  for (auto& [texts, current] : by_pattern) {
    const std::size_t dims = texts.size() - 1;
    // Slurm: a name that does not end in its last number cannot end in a bracket.
    const bool foldable = !for_slurm || texts.back().empty();
    for (std::size_t d = dims; foldable && d-- > 0;) {
      // Group rows that differ only in dimension d; fold that dimension.
      std::map<std::vector<std::string>, std::vector<std::string>> groups;
      std::vector<std::vector<std::string>> order;
      for (auto& values : current) {
        auto rest = values;
        rest[d].clear();
        auto [it, inserted] = groups.try_emplace(rest);
        if (inserted) order.push_back(rest);
        it->second.push_back(values[d]);
      }
      std::vector<std::vector<std::string>> next;
      for (const auto& rest : order) {
        auto& members = groups[rest];
        // Slurm: a range here would make a third bracket (counting the one the last number
        // gets when it is not a range itself), so this dimension stays one name per value.
        const auto brackets = [&] {
          const auto ranges = std::ranges::count_if(rest, is_range) + 1;
          const bool last_is_range = d + 1 == dims || is_range(rest.back());
          return ranges + (last_is_range ? 0 : 1);
        };
        if (for_slurm && members.size() > 1 && brackets() > 2) {
          for (auto& member : members) {
            next.push_back(rest);
            next.back()[d] = std::move(member);
          }
          continue;
        }
        // Dimension d is not folded yet, so members are plain digit strings.
        bool single = false;
        const auto folded = fold_numbers(members, single);
        auto values = rest;
        values[d] = single ? folded : "[" + folded + "]";
        next.push_back(std::move(values));
      }
      current = std::move(next);
    }
    // Slurm: the last number is bracketed when an earlier one is, "r[01-02]n[01]".
    if (for_slurm && foldable && dims > 0)
      for (auto& values : current)
        if (std::ranges::any_of(values, is_range) && !is_range(values.back())) values.back() = "[" + values.back() + "]";
    // Order within a pattern numerically by the first value of each dimension.
    auto first_value = [](const std::string& s) {
      const auto begin = s.find_first_of("0123456789");
      const auto end = s.find_first_not_of("0123456789", begin);
      return std::stoull(s.substr(begin, end - begin));
    };
    std::ranges::sort(current, [&](const auto& a, const auto& b) {
      for (std::size_t d = 0; d < dims; ++d) {
        const auto va = first_value(a[d]), vb = first_value(b[d]);
        if (va != vb) return va < vb;
      }
      return a < b;
    });
    for (const auto& values : current) {
      std::string name = texts[0];
      for (std::size_t d = 0; d < dims; ++d) name += values[d] + texts[d + 1];
      out.push_back(std::move(name));
    }
  }
  std::string joined;
  for (const auto& part : out) {
    if (!joined.empty()) joined += ',';
    joined += part;
  }
  return joined;
}

}  // namespace

std::string compress(const std::vector<std::string>& names) { return fold(names, false); }

std::string compress_for_slurm(const std::vector<std::string>& names) { return fold(names, true); }

}  // namespace gpuctl::hostlist
