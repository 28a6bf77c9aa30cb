// Package profiles (packages/profile.hpp): parse a profile file with the YAML front end the
// inventory and playbooks use, check it, and fill its placeholders for one inventory.
#include <gpuctl/packages/profile.hpp>

#include "yaml/decoder.hpp"

#include <gpuctl/util/data_dir.hpp>
#include <gpuctl/util/file_io.hpp>
#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>

namespace gpuctl {
namespace {

using yaml::Decoder;
using yaml::YamlNode;

const std::vector<std::string> k_top_keys{"name", "description", "os", "os_release", "driver_source", "repository",
                                          "packages", "references"};
const std::vector<std::string> k_os_release_keys{"id", "version_id"};
const std::vector<std::string> k_repository_keys{"url", "key_url", "keyring_list", "keyring_path"};
const std::vector<std::string> k_row_keys{"name", "open", "proprietary", "service", "version", "reference", "note", "renamed"};
const std::vector<std::string> k_renamed_keys{"from_branch", "name"};
// Rows whose package depends on the kernel module flavour.
const std::vector<std::string> k_flavoured_rows{"driver", "kernel_module"};

std::string text_of(Decoder& d, const yaml::MapView& map, std::string_view key, std::string_view what) {
  const auto* node = map.get(key);
  if (!node) return {};
  if (node->is_scalar() && node->value.empty()) return {};  // "" : this source ships none
  return d.string(*node, fmt::format("'{}' of {}", key, what)).value_or("");
}

// A package or service name after the placeholders: Debian's package-name grammar, so a
// profile can never put shell or apt syntax where a name goes.
bool is_name_template(std::string_view text) {
  return !text.empty() && std::ranges::all_of(text, [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '+' || c == '-' || c == '{' ||
           c == '}' || c == '_';
  });
}

void decode_row(Decoder& d, const yaml::YamlEntry& entry, PackageProfile& out) {
  const auto what = fmt::format("package row '{}'", entry.first.value);
  auto map = d.map(entry.second, what, k_row_keys);
  if (!map) return;
  ProfileRow row;
  row.row = entry.first.value;
  row.name = text_of(d, *map, "name", what);
  row.open = text_of(d, *map, "open", what);
  row.proprietary = text_of(d, *map, "proprietary", what);
  row.service = text_of(d, *map, "service", what);
  row.version = text_of(d, *map, "version", what);
  row.reference = text_of(d, *map, "reference", what);
  row.note = text_of(d, *map, "note", what);
  if (const auto* n = map->get("renamed"))
    if (auto renamed = d.map(*n, fmt::format("'renamed' of {}", what), k_renamed_keys)) {
      if (const auto* b = renamed->get("from_branch")) row.renamed_from_branch = d.integer(*b, "'from_branch'", 1, 9999).value_or(0);
      row.renamed_to = text_of(d, *renamed, "name", what);
      if (!row.renamed_from_branch || row.renamed_to.empty())
        d.error(*n, fmt::format("'renamed' of {} needs 'from_branch' and 'name'", what));
    }
  const bool flavoured = std::ranges::find(k_flavoured_rows, row.row) != k_flavoured_rows.end();
  if (flavoured && map->get("name"))
    d.error(*map->get("name"), fmt::format("{} names its packages by kernel module flavour", what),
            "write 'open:' and 'proprietary:' instead of 'name:'");
  if (!flavoured && (map->get("open") || map->get("proprietary")))
    d.error(entry.second, fmt::format("{} has no kernel module flavours", what), "write 'name:'");
  for (const auto* field : {&row.name, &row.open, &row.proprietary, &row.service, &row.renamed_to})
    if (!field->empty() && !is_name_template(*field))
      d.error(entry.second, fmt::format("'{}' in {} is not a package or service name", *field, what),
              "lower-case letters, digits and . + - _, with {branch} {driver_version} {cuda} {cuda_dashed} {cuda_major} {toolkit_version}");
  const bool ships = flavoured ? !(row.open.empty() && row.proprietary.empty()) : !row.name.empty();
  if (!ships && row.note.empty())
    d.error(entry.second, fmt::format("{} names no package", what), "say why in 'note:' (where the admin gets it instead)");
  if (ships && row.reference.empty())
    d.error(entry.second, fmt::format("{} cites no documentation", what), "add 'reference:', a key of 'references'");
  out.rows.push_back(std::move(row));
}

}  // namespace

namespace {
std::string row_value(const std::map<std::string, std::string, std::less<>>& by_row, std::string_view row) {
  const auto it = by_row.find(row);
  return it == by_row.end() ? std::string() : it->second;
}
}  // namespace

std::string ResolvedPackages::package(std::string_view row) const { return row_value(packages, row); }
std::string ResolvedPackages::service(std::string_view row) const { return row_value(services, row); }
std::string ResolvedPackages::version(std::string_view row) const { return row_value(versions, row); }

const ProfileRow* PackageProfile::find_row(std::string_view row) const {
  const auto it = std::ranges::find(rows, row, &ProfileRow::row);
  return it == rows.end() ? nullptr : &*it;
}

const std::vector<std::string>& profile_row_names() {
  static const std::vector<std::string> names{"driver",    "kernel_module", "nvidia_smi",       "cuda_toolkit",
                                              "nccl",      "nccl_dev",      "persistenced",     "fabricmanager",
                                              "nscq",
                                              "dcgm",      "dcgm_exporter", "container_toolkit_base", "libnvidia_container",
                                              "libnvidia_container_tools", "container_toolkit", "rdma_core",
                                              "ibverbs_utils", "infiniband_diags"};
  return names;
}

const std::vector<std::string>& profile_os_names() {
  static const std::vector<std::string> names{"debian12", "ubuntu2204", "ubuntu2404"};
  return names;
}

const std::vector<std::string>& profile_driver_sources() {
  static const std::vector<std::string> names{"cuda-repository", "distribution"};
  return names;
}

std::string profile_name(std::string_view os, std::string_view driver_source) {
  return fmt::format("{}-{}", os, driver_source);
}

// Beside the playbooks, which install them (and which GPUCTL_PLAYBOOKS_DIR moves with them).
std::string profiles_dir() {
  return (std::filesystem::path(util::data_dir("playbooks", "GPUCTL_PLAYBOOKS_DIR")) / "profiles").string();
}

std::vector<std::string> shipped_profile_names() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(profiles_dir(), ec))
    if (entry.path().extension() == ".yaml") names.push_back(entry.path().stem().string());
  std::ranges::sort(names);
  return names;
}

Result<PackageProfile> parse_profile(std::string_view text, const std::string& path) {
  auto parsed = yaml::parse_yaml(text, path, "package profile");
  std::vector<Diagnostic> diagnostics = parsed.errors;
  PackageProfile out;
  out.path = path;
  if (diagnostics.empty()) {
    Decoder d(path, diagnostics);
    if (auto top = d.map(parsed.root, "the package profile", k_top_keys)) {
      out.name = text_of(d, *top, "name", "the profile");
      out.description = text_of(d, *top, "description", "the profile");
      if (const auto* n = top->get("os")) out.os = d.choice(*n, "'os'", profile_os_names()).value_or("");
      if (const auto* n = top->get("driver_source"))
        out.driver_source = d.choice(*n, "'driver_source'", profile_driver_sources()).value_or("");
      if (const auto* n = top->get("os_release"))
        if (auto release = d.map(*n, "'os_release'", k_os_release_keys)) {
          out.os_id = text_of(d, *release, "id", "'os_release'");
          out.os_version_id = text_of(d, *release, "version_id", "'os_release'");
        }
      if (const auto* n = top->get("repository"))
        if (auto repo = d.map(*n, "'repository'", k_repository_keys)) {
          out.repository_url = text_of(d, *repo, "url", "'repository'");
          out.repository_key_url = text_of(d, *repo, "key_url", "'repository'");
          out.keyring_list = text_of(d, *repo, "keyring_list", "'repository'");
          out.keyring_path = text_of(d, *repo, "keyring_path", "'repository'");
        }
      if (const auto* n = top->get("references"))
        if (auto refs = d.map(*n, "'references'", {}))
          for (const auto& entry : refs->entries())
            if (auto url = d.string(*entry.value, fmt::format("reference '{}'", entry.key)))
              out.references.emplace(entry.key, *url);
      if (const auto* n = top->get("packages")) {
        if (d.map(*n, "'packages'", profile_row_names()))
          for (const auto& entry : n->entries) decode_row(d, entry, out);
        for (const auto& row : profile_row_names())
          if (!out.find_row(row))
            d.error(*n, fmt::format("the profile has no package row '{}'", row),
                    "every profile names every component; an empty name with a 'note:' says the source has none");
        for (const auto& row : out.rows)
          if (!row.reference.empty() && !out.references.contains(row.reference))
            d.error(*n, fmt::format("package row '{}' cites '{}', which 'references' does not list", row.row, row.reference));
      }
      const std::pair<const std::string*, const char*> required[] = {
          {&out.name, "name"}, {&out.os, "os"}, {&out.driver_source, "driver_source"},
          {&out.os_id, "os_release.id"}, {&out.os_version_id, "os_release.version_id"}};
      for (const auto& [field, key] : required)
        if (field->empty()) d.error(parsed.root, fmt::format("the profile needs '{}'", key));
      if (!out.name.empty() && !out.os.empty() && !out.driver_source.empty() &&
          out.name != profile_name(out.os, out.driver_source))
        d.error(*top->get("name"), fmt::format("profile '{}' must be named '{}'", out.name, profile_name(out.os, out.driver_source)),
                "<os>-<driver_source>, the name the inventory's choice looks up");
      if (out.driver_source == "cuda-repository" && out.repository_url.empty())
        d.error(parsed.root, "a cuda-repository profile needs 'repository.url'");
    }
  }
  const auto first_error = std::ranges::find(diagnostics, Severity::error, &Diagnostic::severity);
  if (first_error != diagnostics.end())
    return fail(ErrorCode::validation, fmt::format("package profile {}", first_error->to_string()), {},
                "the shipped profiles are checked by gpuctl's tests; was this file edited?");
  return out;
}

Result<PackageProfile> load_profile(std::string_view name) {
  const auto& known = shipped_profile_names();
  if (std::ranges::find(known, name) == known.end()) {
    const auto suggestion = util::closest_match(name, known);
    return fail(ErrorCode::not_found, fmt::format("there is no package profile '{}' in {}", name, profiles_dir()), {},
                suggestion ? fmt::format("did you mean '{}'? `gpuctl profiles` lists them", *suggestion)
                           : "`gpuctl profiles` lists them");
  }
  const auto path = (std::filesystem::path(profiles_dir()) / fmt::format("{}.yaml", name)).string();
  auto text = util::read_regular_file(path, "package profile", util::k_max_source_file_bytes);
  if (!text) return std::unexpected(text.error());
  return parse_profile(*text, path);
}

std::optional<std::string> os_mismatch(const PackageProfile& profile, std::string_view id, std::string_view version_id,
                                       std::string_view pretty_name) {
  if (id == profile.os_id && version_id == profile.os_version_id) return std::nullopt;
  return fmt::format("the node runs {} (os-release ID={} VERSION_ID={}), but the inventory's packages are {}'s "
                     "(cluster.os: {}, package profile {}): set cluster.os to the nodes' OS",
                     pretty_name.empty() ? std::string(id) : std::string(pretty_name), id, version_id,
                     profile.description, profile.os, profile.name);
}

std::string fill_placeholders(std::string_view text, const PackageChoice& choice) {
  std::string cuda_dashed = choice.cuda;
  std::ranges::replace(cuda_dashed, '.', '-');
  const std::string cuda_major = choice.cuda.substr(0, choice.cuda.find('.'));
  std::string out(text);
  for (const auto& [from, to] : {std::pair<std::string_view, const std::string&>{"{branch}", choice.driver_branch},
                                 {"{driver_version}", choice.driver_version},
                                 {"{cuda_dashed}", cuda_dashed},
                                 {"{cuda_major}", cuda_major},
                                 {"{cuda}", choice.cuda},
                                 {"{toolkit_version}", choice.toolkit_version}}) {
    for (auto at = out.find(from); at != std::string::npos; at = out.find(from, at + to.size()))
      out.replace(at, from.size(), to);
  }
  return out;
}

Result<ResolvedPackages> resolve_packages(const PackageProfile& profile, const PackageChoice& choice) {
  ResolvedPackages out;
  for (const auto& row : profile.rows) {
    const bool flavoured = std::ranges::find(k_flavoured_rows, row.row) != k_flavoured_rows.end();
    std::string name = row.name;
    int branch = 0;
    std::from_chars(choice.driver_branch.data(), choice.driver_branch.data() + choice.driver_branch.size(), branch);
    if (row.renamed_from_branch && branch >= row.renamed_from_branch) name = row.renamed_to;
    if (flavoured) {
      name = choice.open_kernel_module ? row.open : row.proprietary;
      if (name.empty() && (!row.open.empty() || !row.proprietary.empty()))
        return fail(ErrorCode::validation,
                    fmt::format("package profile {} has no {} package for NVIDIA's {} kernel module", profile.name, row.row,
                                choice.open_kernel_module ? "open" : "proprietary"),
                    {},
                    choice.open_kernel_module
                        ? fmt::format("set nvidia.open_kernel_module: false, or choose a driver_source that ships it{}",
                                      row.note.empty() ? "" : " (" + row.note + ")")
                        : "set nvidia.open_kernel_module: true");
    }
    // A name built from a value the inventory left out (no `cuda:`) is no package: the step skips it.
    const bool wants_cuda = name.find("{cuda") != std::string::npos;
    out.packages[row.row] = wants_cuda && choice.cuda.empty() ? std::string() : fill_placeholders(name, choice);
    out.services[row.row] = row.service;
    const bool version_wants_cuda = row.version.find("{cuda") != std::string::npos;
    const bool version_wants_toolkit = row.version.find("{toolkit_version}") != std::string::npos;
    out.versions[row.row] = (version_wants_cuda && choice.cuda.empty()) || (version_wants_toolkit && choice.toolkit_version.empty())
                                ? std::string()
                                : fill_placeholders(row.version, choice);
  }
  return out;
}

}  // namespace gpuctl
