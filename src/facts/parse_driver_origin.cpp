// The driver_origin probe's parser: who owns nvidia-smi, from `dpkg-query -S` and the marks
// NVIDIA's runfile leaves (docs/facts.md).
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/util/strings.hpp>

#include "parse_util.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <set>

namespace gpuctl::facts {
namespace {

// A dpkg diversion of a path (dpkg-divert(1)): by a package, or the admin's own ("local").
struct Diversion {
  std::string by;   // empty: local
  std::string to;
};

// What `dpkg-query -S PATH...` printed, by path.
struct DpkgAnswer {
  std::map<std::string, std::vector<std::string>, std::less<>> owners;
  std::map<std::string, Diversion, std::less<>> diverted_from;
  std::set<std::string, std::less<>> diverted_to;
  std::set<std::string, std::less<>> not_found;
  std::vector<std::string> messages;  // dpkg-query's other lines (warnings, errors)
  std::optional<int> exit_code;
};

bool is_package_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.';
}

// "nvidia-utils-580" or "libnvidia-compute-580:amd64" (Multi-Arch) -> the name without the
// architecture, as the packages fact names it; nullopt when it is no package name.
std::optional<std::string> package_name(std::string_view text) {
  const auto colon = text.find(':');
  const auto name = text.substr(0, colon);
  if (name.empty() || !std::ranges::all_of(name, is_package_char) || name.front() == '-' || name.front() == '+' ||
      name.front() == '.')
    return std::nullopt;
  if (colon != std::string_view::npos) {
    const auto arch = text.substr(colon + 1);
    if (arch.empty() || !std::ranges::all_of(arch, [](char c) { return is_package_char(c) && c != '+' && c != '.'; }))
      return std::nullopt;
  }
  return std::string(name);
}

// "diversion by PKG from: PATH", "diversion by PKG to: PATH", "local diversion from: PATH",
// "local diversion to: PATH". False when the line is none of them.
bool read_diversion(std::string_view line, DpkgAnswer& answer, std::string& last_from) {
  std::string by;
  if (line.starts_with("local diversion ")) {
    line.remove_prefix(16);
  } else if (line.starts_with("diversion by ")) {
    line.remove_prefix(13);
    const auto space = line.find(' ');
    if (space == std::string_view::npos) return false;
    by = std::string(line.substr(0, space));
    line.remove_prefix(space + 1);
  } else {
    return false;
  }
  if (line.starts_with("from: ")) {
    last_from = std::string(line.substr(6));
    answer.diverted_from[last_from] = Diversion{by, {}};
    return true;
  }
  if (line.starts_with("to: ")) {
    const auto to = std::string(line.substr(4));
    if (const auto it = answer.diverted_from.find(last_from); it != answer.diverted_from.end()) it->second.to = to;
    answer.diverted_to.insert(to);
    return true;
  }
  return false;
}

// "pkg: PATH" or "pkg1, pkg2: PATH" (dpkg's owners of one path); false when not of that form.
bool read_owners(std::string_view line, DpkgAnswer& answer) {
  const auto at = line.find(": ");
  if (at == std::string_view::npos || at == 0) return false;
  std::vector<std::string> packages;
  for (const auto& part : util::split(line.substr(0, at), ',')) {
    auto name = package_name(util::trim(part));
    if (!name) return false;
    packages.push_back(std::move(*name));
  }
  auto& owners = answer.owners[std::string(line.substr(at + 2))];
  owners.insert(owners.end(), packages.begin(), packages.end());
  return true;
}

// Who owns the file at `name` by dpkg's answer: the owner (empty: nobody), nullopt when dpkg
// did not say anything about `name` (ask the next name of the same file).
Result<std::optional<std::string>> owner_of(const std::string& name, const DpkgAnswer& answer, std::string& note) {
  const auto owners = answer.owners.find(name);
  if (const auto it = answer.diverted_from.find(name); it != answer.diverted_from.end()) {
    // The packages' own copies of `name` went to `to`; what is at `name` is the diverting
    // package's (when it ships one) or the admin's.
    const auto& [by, to] = it->second;
    if (by.empty()) {
      note = fmt::format("a local dpkg diversion moved the packaged {} to {}", name, to);
      return std::optional<std::string>(std::string());
    }
    if (owners != answer.owners.end() && std::ranges::find(owners->second, by) != owners->second.end()) {
      note = fmt::format("{} diverts the other packages' {} to {}", by, name, to);
      return std::optional<std::string>(by);
    }
    note = fmt::format("{} diverts the packaged {} to {} and does not ship one itself", by, name, to);
    return std::optional<std::string>(std::string());
  }
  if (owners != answer.owners.end()) return std::optional<std::string>(util::join(owners->second, ", "));
  if (answer.diverted_to.contains(name))
    return fail(ErrorCode::parse, fmt::format("dpkg diverts another file to {}: dpkg-query -S does not say whose it is", name));
  if (answer.not_found.contains(name)) return std::optional<std::string>();
  return fail(ErrorCode::parse, fmt::format("dpkg-query -S named neither an owner of {} nor 'no path found'", name));
}

}  // namespace

Result<DriverOrigin> parse_driver_origin(std::string_view text) {
  DriverOrigin origin;
  std::optional<std::string> path;
  std::vector<std::string> same_files;
  bool symlink = false;
  DpkgAnswer answer;
  std::string last_from;
  for (const auto& raw : util::split_lines(text)) {
    std::string_view line = raw;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) continue;
    if (line.starts_with("nvidia_smi_path=")) {
      if (path) return fail(ErrorCode::parse, "two nvidia_smi_path= lines");
      path = std::string(line.substr(16));
    } else if (line.starts_with("same_file=")) {
      same_files.emplace_back(line.substr(10));
    } else if (line == "symlink=yes") {
      symlink = true;
    } else if (line.starts_with("runfile_mark=")) {
      origin.runfile_marks.emplace_back(line.substr(13));
    } else if (line.starts_with("dpkg_query_rc=")) {
      answer.exit_code = detail::to_int(line.substr(14));
      if (!answer.exit_code) return fail(ErrorCode::parse, "dpkg-query's exit status is not a number: '" + std::string(line) + "'");
    } else if (line.starts_with("dpkg-query: no path found matching pattern ")) {
      answer.not_found.insert(std::string(line.substr(43)));
    } else if (line.starts_with("dpkg-query: ") || line.starts_with("dpkg: ")) {
      answer.messages.emplace_back(line);
    } else if (line.starts_with(' ') && !answer.messages.empty()) {
      // dpkg continues a long message on lines that start with a space.
      answer.messages.back() += std::string(line);
    } else if (!read_diversion(line, answer, last_from) && !read_owners(line, answer)) {
      return fail(ErrorCode::parse, "not a line of the probe or of dpkg-query -S: '" + std::string(line) + "'");
    }
  }
  if (!path) return fail(ErrorCode::parse, "no nvidia_smi_path= line");
  origin.path = *path;
  if (origin.path.empty()) {
    origin.kind = DriverOrigin::Kind::no_user_space;
    return origin;
  }
  if (!answer.exit_code) return fail(ErrorCode::parse, "no dpkg_query_rc= line: the probe's output is cut off");
  // 1: some name is unknown to dpkg (the other name of the same file usually is).
  if (*answer.exit_code != 0 && *answer.exit_code != 1)
    return fail(ErrorCode::parse, fmt::format("dpkg-query -S {} failed (exit status {}): {}", origin.path, *answer.exit_code,
                                              answer.messages.empty() ? "it printed no message" : answer.messages.front()));
  // The file by its name on PATH, then by the other names of the same file: dpkg knows only
  // the name the package shipped (/bin/ls on Debian 12, /usr/bin/nvidia-smi on Ubuntu,
  // /usr/lib/nvidia/current/nvidia-smi behind Debian's alternatives link).
  std::vector<std::string> names{origin.path};
  names.insert(names.end(), same_files.begin(), same_files.end());
  std::optional<std::string> owner;
  for (const auto& name : names) {
    auto found = owner_of(name, answer, origin.note);
    if (!found) return std::unexpected(found.error());
    if (*found) {
      owner = std::move(**found);
      break;
    }
  }
  if (owner && !owner->empty()) {
    origin.kind = DriverOrigin::Kind::package;
    origin.package = std::move(*owner);
  } else if (symlink && same_files.empty()) {
    // A link no package owns, to a file by no name a package gives nvidia-smi: whether some
    // package owns that file dpkg was not asked.
    return fail(ErrorCode::parse,
                fmt::format("{} is a symbolic link that no package owns, to a file that is not {}: dpkg was not asked "
                            "about that file",
                            origin.path, "/usr/bin/nvidia-smi, /bin/nvidia-smi or a Debian driver's /usr/lib/nvidia/*/nvidia-smi"));
  } else {
    origin.kind = origin.runfile_marks.empty() ? DriverOrigin::Kind::unpackaged : DriverOrigin::Kind::runfile;
  }
  return origin;
}

}  // namespace gpuctl::facts
