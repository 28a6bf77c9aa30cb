#pragma once
// The output of a script verify runs on a node (the NCCL all-reduce, DCGM's diagnostic): the
// tool's own lines, and the script's "<marker>KEY VALUE" lines (private to src/verify). Pure.

#include <gpuctl/util/strings.hpp>

#include <charconv>
#include <map>
#include <string>
#include <string_view>

namespace gpuctl::verify_detail {

struct MarkedOutput {
  bool marked = false;                      // any marker line at all: the script ran
  std::string output;                       // every other line, as printed
  std::map<std::string, std::string> marks; // KEY -> VALUE, the last of each key

  // The "rc" mark as a number; -1 when the script printed none (the tool did not finish).
  int exit_code() const {
    int rc = -1;
    if (const auto it = marks.find("rc"); it != marks.end())
      std::from_chars(it->second.data(), it->second.data() + it->second.size(), rc);
    return rc;
  }
  std::string mark(const std::string& key) const {
    const auto it = marks.find(key);
    return it == marks.end() ? std::string() : it->second;
  }
};

inline MarkedOutput split_marked_output(std::string_view text, std::string_view marker) {
  MarkedOutput result;
  for (const auto& line : util::split_lines(text)) {
    if (!line.starts_with(marker)) {
      result.output += line + "\n";
      continue;
    }
    result.marked = true;
    const auto rest = std::string_view(line).substr(marker.size());
    const auto space = rest.find(' ');
    result.marks[std::string(rest.substr(0, space))] =
        space == std::string_view::npos ? std::string() : std::string(rest.substr(space + 1));
  }
  return result;
}

}  // namespace gpuctl::verify_detail
