// Fuzz target: hostlist expansion and folding (inventory/hostlist.hpp).
// Properties: expand() stays within its limit and never yields an empty or duplicate name;
// compress() of any set of plain names expands back to exactly that set; so does
// compress_for_slurm(), whose names each end at their last `]` and hold at most two brackets
// (the forms Slurm's parser reads, in expand()'s order).
#include "fuzz_input.hpp"

#include <gpuctl/inventory/hostlist.hpp>

#include <set>
#include <string>
#include <vector>

namespace {

using gpuctl::fuzz::property_failed;

// Names compress() is meant for: no separators or brackets, no surrounding blanks.
bool plain_name(std::string_view name) {
  if (name.empty() || name.front() == ' ' || name.front() == '\t' || name.back() == ' ' || name.back() == '\t')
    return false;
  return name.find_first_of(",[]") == std::string_view::npos;
}

// Slurm 22.05's hostlist parser: a name holding a bracket ends with one; at most two per name.
bool slurm_shaped(std::string_view expression) {
  std::size_t brackets = 0;
  bool inside = false;
  for (std::size_t i = 0; i <= expression.size(); ++i) {
    const char c = i < expression.size() ? expression[i] : ',';
    if (c == '[') inside = true, ++brackets;
    if (c == ']') inside = false;
    if (c == ',' && !inside) {
      if (brackets > 2 || (brackets > 0 && expression[i - 1] != ']')) return false;
      brackets = 0;
    }
  }
  return true;
}

void check_round_trip(const std::vector<std::string>& names) {
  const std::set<std::string> wanted(names.begin(), names.end());
  const auto folded = gpuctl::hostlist::compress(names);
  auto again = gpuctl::hostlist::expand(folded, wanted.size());
  if (!again) property_failed("compress() wrote a hostlist that expand() refuses");
  if (std::set<std::string>(again->begin(), again->end()) != wanted || again->size() != wanted.size())
    property_failed("expand(compress(names)) is not the same set of names");
  const auto for_slurm = gpuctl::hostlist::compress_for_slurm(names);
  if (!slurm_shaped(for_slurm)) property_failed("compress_for_slurm() wrote a form Slurm refuses");
  auto slurm_again = gpuctl::hostlist::expand(for_slurm, wanted.size());
  if (!slurm_again) property_failed("compress_for_slurm() wrote a hostlist that expand() refuses");
  if (std::set<std::string>(slurm_again->begin(), slurm_again->end()) != wanted || slurm_again->size() != wanted.size())
    property_failed("expand(compress_for_slurm(names)) is not the same set of names");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto text = gpuctl::fuzz::as_text(data, size);

  // The whole input as an expression, under the limit gpuctl itself uses.
  if (auto names = gpuctl::hostlist::expand(text)) {
    if (names->size() > gpuctl::hostlist::k_max_expansion) property_failed("expand() went over its limit");
    if (std::set<std::string>(names->begin(), names->end()).size() != names->size())
      property_failed("expand() returned a duplicate name");
    for (const auto& name : *names)
      if (name.empty()) property_failed("expand() returned an empty name");
    // Folding is checked on small results only, to keep the target fast.
    if (!names->empty() && names->size() <= 4096) check_round_trip(*names);
  }

  // The input as one name per line: folding must lose and invent nothing.
  std::vector<std::string> lines;
  for (std::size_t start = 0; start < text.size();) {
    auto end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const auto line = text.substr(start, end - start);
    if (plain_name(line)) lines.emplace_back(line);
    start = end + 1;
  }
  if (!lines.empty()) check_round_trip(lines);
  return 0;
}
