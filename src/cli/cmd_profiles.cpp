// `gpuctl profiles [NAME]`: the shipped package profiles, or one profile's table (packages,
// services, versions, the documentation each row cites). Reads only gpuctl's data directory.
#include "command_registry.hpp"

#include <gpuctl/api/profiles_use_case.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace gpuctl::cli {
namespace {

using nlohmann::ordered_json;

ordered_json row_json(const PackageProfile& profile, const ProfileRow& row) {
  ordered_json j{{"row", row.row}};
  if (!row.open.empty() || !row.proprietary.empty()) {
    j["open"] = row.open;
    j["proprietary"] = row.proprietary;
  } else {
    j["name"] = row.name;
  }
  j["service"] = row.service;
  j["version"] = row.version;
  const auto ref = profile.references.find(row.reference);
  j["reference"] = ref == profile.references.end() ? "" : ref->second;
  j["note"] = row.note;
  if (row.renamed_from_branch) j["renamed"] = {{"from_branch", row.renamed_from_branch}, {"name", row.renamed_to}};
  return j;
}

ordered_json profile_json(const PackageProfile& profile) {
  ordered_json rows = ordered_json::array();
  for (const auto& row : profile.rows) rows.push_back(row_json(profile, row));
  return {{"name", profile.name},
          {"description", profile.description},
          {"os", profile.os},
          {"os_release", {{"id", profile.os_id}, {"version_id", profile.os_version_id}}},
          {"driver_source", profile.driver_source},
          {"repository",
           {{"url", profile.repository_url},
            {"key_url", profile.repository_key_url},
            {"keyring_list", profile.keyring_list},
            {"keyring_path", profile.keyring_path}}},
          {"packages", rows},
          {"path", profile.path}};
}

void print_profile(const PackageProfile& profile) {
  fmt::print("{}: {} (cluster.os: {}, nvidia.driver_source: {})\n", profile.name, profile.description, profile.os,
             profile.driver_source);
  if (!profile.repository_url.empty()) fmt::print("repository: {}\n", profile.repository_url);
  for (const auto& row : profile.rows) {
    std::string package = row.name;
    if (!row.open.empty() || !row.proprietary.empty())
      package = fmt::format("{} (open) / {} (proprietary)", row.open.empty() ? "-" : row.open,
                            row.proprietary.empty() ? "-" : row.proprietary);
    if (package.empty()) package = "-";
    fmt::print("  {:<18} {}{}{}\n", row.row, package, row.service.empty() ? "" : ", service " + row.service,
               row.version.empty() ? "" : ", version " + row.version);
    if (row.renamed_from_branch)
      fmt::print("  {:<18}   from branch {}: {}\n", "", row.renamed_from_branch, row.renamed_to);
    if (!row.note.empty()) fmt::print("  {:<18}   {}\n", "", row.note);
    if (const auto ref = profile.references.find(row.reference); ref != profile.references.end())
      fmt::print("  {:<18}   {}\n", "", ref->second);
  }
}

int print_profiles(const std::string& name, bool json) {
  auto result = run_profiles(ProfilesRequest{name});
  if (!result) {
    fmt::print(stderr, "gpuctl: {}\n", result.error().to_string());
    return k_exit_usage;
  }
  if (json) {
    ordered_json all = ordered_json::array();
    for (const auto& profile : result->profiles) all.push_back(profile_json(profile));
    fmt::print("{}\n", (name.empty() ? all : all.front()).dump(2));
  } else if (name.empty()) {
    for (const auto& profile : result->profiles) fmt::print("{:<26} {}\n", profile.name, profile.description);
  } else {
    print_profile(result->profiles.front());
  }
  return k_exit_ok;
}

void register_profiles_command(CLI::App& app, GlobalOptions&, int& exit_code) {
  auto* cmd = app.add_subcommand(
      "profiles",
      "List the package profiles (OS x driver source) or show one: each component's real package, service and\n"
      "version format, with the documentation it comes from. An inventory picks one with cluster.os and\n"
      "cluster.nvidia.driver_source (docs/package-profiles.md)\n"
      "Example: gpuctl profiles ubuntu2204-cuda-repository");
  auto name = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  cmd->add_option("profile", *name, "A profile's name, e.g. debian12-distribution (default: list them all)");
  cmd->add_flag("--json", *json, "As JSON on stdout");
  cmd->callback([name, json, &exit_code] { exit_code = print_profiles(*name, *json); });
}

}  // namespace
GPUCTL_COMMAND(850, register_profiles_command);
}  // namespace gpuctl::cli
