// Parsers for the node's OS, kernel, driver module, toolkit and package facts.
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/util/strings.hpp>

#include "parse_util.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <ranges>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpuctl::facts {
namespace {

std::vector<std::string> words(std::string_view line) {
  std::vector<std::string> out;
  for (auto& word : util::split(line, ' '))
    if (auto w = util::trim(word); !w.empty()) out.emplace_back(w);
  return out;
}

// "580.159.04", "13.0.88", "2.28.9": digits separated by dots, at least one dot.
bool is_dotted_version(std::string_view text) {
  if (text.empty() || text.front() == '.' || text.back() == '.') return false;
  bool dot = false;
  for (char c : text) {
    if (c == '.') dot = true;
    else if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return dot && text.find("..") == std::string_view::npos;
}

// Numeric comparison of dotted versions ("2.28.9" > "2.4.10").
bool version_less(std::string_view a, std::string_view b) {
  const auto pa = util::split(a, '.');
  const auto pb = util::split(b, '.');
  for (std::size_t i = 0; i < std::min(pa.size(), pb.size()); ++i) {
    const auto x = detail::to_int(pa[i]).value_or(0);
    const auto y = detail::to_int(pb[i]).value_or(0);
    if (x != y) return x < y;
  }
  return pa.size() < pb.size();
}

std::string unquote(std::string_view value) {
  if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
    std::string out;
    for (std::size_t i = 1; i + 1 < value.size(); ++i) {
      if (value[i] == '\\' && i + 2 < value.size()) ++i;  // os-release(5): shell-style escapes
      out += value[i];
    }
    return out;
  }
  return std::string(value);
}

}  // namespace

Result<NvidiaKernelModule> parse_nvidia_driver_version(std::string_view text) {
  for (const auto& line : util::split_lines(text)) {
    if (!line.starts_with("NVRM version:")) continue;
    NvidiaKernelModule module;
    module.open = line.find("Open Kernel Module") != std::string::npos;
    for (const auto& word : words(std::string_view(line).substr(13)))
      if (is_dotted_version(word)) {
        module.version = word;
        return module;
      }
    return fail(ErrorCode::parse, "no version number in /proc/driver/nvidia/version: '" + line + "'");
  }
  return fail(ErrorCode::parse, "/proc/driver/nvidia/version has no 'NVRM version:' line");
}

Result<std::string> parse_nvcc_version(std::string_view text) {
  for (const auto& line : util::split_lines(text)) {
    const auto at = line.find("release ");
    if (!line.starts_with("Cuda compilation tools") || at == std::string::npos) continue;
    for (auto& part : util::split(std::string_view(line).substr(at), ',')) {
      const auto word = util::trim(part);
      if (word.starts_with("V") && is_dotted_version(word.substr(1))) return std::string(word.substr(1));
    }
    auto release = std::string(util::trim(util::split(std::string_view(line).substr(at + 8), ',').front()));
    if (is_dotted_version(release)) return release;
  }
  return fail(ErrorCode::parse, "nvcc --version printed no 'Cuda compilation tools, release X' line");
}

Result<std::string> parse_cuda_version_json(std::string_view text) {
  const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded() || !json.is_object()) return fail(ErrorCode::parse, "version.json is not a JSON object");
  // cuda_nvcc's version is what `nvcc --version` prints after "V"; the SDK's own can carry a
  // build date instead of a patch number ("11.8.20220929").
  for (const char* component : {"cuda_nvcc", "cuda"}) {
    const auto it = json.find(component);
    if (it == json.end() || !it->is_object()) continue;
    const auto version = it->find("version");
    if (version != it->end() && version->is_string() && is_dotted_version(version->get<std::string>()))
      return version->get<std::string>();
  }
  return fail(ErrorCode::parse, "version.json has no \"cuda_nvcc\" or \"cuda\" entry with a dotted \"version\"");
}

Result<OsRelease> parse_os_release(std::string_view text) {
  OsRelease os;
  bool has_id = false;
  for (const auto& raw : util::split_lines(text)) {
    const auto line = util::trim(raw);
    if (line.empty() || line.front() == '#') continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    const auto key = line.substr(0, eq);
    const auto value = unquote(line.substr(eq + 1));
    if (key == "ID") {
      os.id = value;
      has_id = !value.empty();
    } else if (key == "VERSION_ID") {
      os.version_id = value;
    } else if (key == "PRETTY_NAME") {
      os.pretty_name = value;
    }
  }
  if (!has_id) return fail(ErrorCode::parse, "os-release has no ID= line");
  return os;
}

Result<std::vector<std::string>> parse_proc_modules(std::string_view text) {
  std::vector<std::string> names;
  for (const auto& line : util::split_lines(text)) {
    if (util::trim(line).empty()) continue;
    const auto fields = words(line);
    if (fields.size() >= 2 && fields[0] == "Module" && fields[1] == "Size") continue;  // lsmod's header
    if (fields.size() < 2 || !detail::to_int(fields[1]))
      return fail(ErrorCode::parse, "not a /proc/modules line: '" + line + "'");
    names.push_back(fields[0]);
  }
  return names;
}

Result<std::string> parse_kernel_release(std::string_view text) {
  const auto release = util::trim(text);
  if (release.empty() || release.find_first_of(" \t\n") != std::string_view::npos)
    return fail(ErrorCode::parse, "uname -r printed '" + std::string(release) + "', not one kernel release");
  return std::string(release);
}

Result<std::string> parse_boot_id(std::string_view text) {
  const auto id = util::trim(text);
  const bool ok = id.size() == 36 && std::ranges::all_of(std::views::iota(std::size_t{0}, id.size()), [&](std::size_t i) {
    if (i == 8 || i == 13 || i == 18 || i == 23) return id[i] == '-';
    return std::isxdigit(static_cast<unsigned char>(id[i])) != 0;
  });
  if (!ok) return fail(ErrorCode::parse, "boot_id '" + std::string(id) + "' is not a UUID");
  return util::to_lower(id);
}

Result<double> parse_uptime(std::string_view text) {
  const auto fields = words(util::trim(text));
  const auto seconds = fields.empty() ? std::nullopt : detail::to_double(fields.front());
  // from_chars also reads "nan", "inf" and 1e300: none is an uptime.
  if (!seconds || !std::isfinite(*seconds) || *seconds < 0)
    return fail(ErrorCode::parse, "/proc/uptime '" + std::string(util::trim(text)) + "' does not start with seconds");
  return *seconds;
}

Result<std::map<std::string, std::string>> parse_dpkg_query(std::string_view text) {
  std::map<std::string, std::string> packages;
  for (const auto& line : util::split_lines(text)) {
    if (util::trim(line).empty() || line.starts_with("dpkg-query: ")) continue;
    const auto fields = util::split(line, '\t');
    if (fields.size() != 3 || fields[0].empty())
      return fail(ErrorCode::parse, "not a 'package<TAB>version<TAB>status' line: '" + line + "'");
    if (fields[2] == "install ok installed" || fields[2] == "hold ok installed") packages[fields[0]] = fields[1];
  }
  return packages;
}

std::optional<std::string> nccl_version_from_packages(const std::map<std::string, std::string>& packages) {
  const auto it = packages.find("libnccl2");
  if (it == packages.end()) return std::nullopt;
  // Debian version "2.21.5-1+cuda12.4": upstream part before the revision.
  auto version = it->second.substr(0, it->second.find('-'));
  if (const auto colon = version.find(':'); colon != std::string::npos) version.erase(0, colon + 1);
  return version;
}

std::optional<std::string> nccl_version_from_library_paths(std::string_view text) {
  std::optional<std::string> best;
  for (const auto& line : util::split_lines(text)) {
    const auto at = line.rfind("libnccl.so.");
    if (at == std::string::npos) continue;
    const auto version = util::trim(std::string_view(line).substr(at + 11));
    if (std::ranges::count(version, '.') < 2 || !is_dotted_version(version)) continue;
    if (!best || version_less(*best, version)) best = std::string(version);
  }
  return best;
}

}  // namespace gpuctl::facts
