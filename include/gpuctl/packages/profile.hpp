#pragma once
// Package profiles: which real packages and services make up the NVIDIA stack on one OS from
// one driver source (Debian 12 + NVIDIA's CUDA repository, Ubuntu 22.04 + Ubuntu's archive...).
// Each profile is a data file, playbooks/profiles/<os>-<driver_source>.yaml, whose rows name
// the package, its service and the documentation that says so (docs/package-profiles.md). The
// inventory chooses one (cluster.os, cluster.nvidia.driver_source); playbooks use its rows as
// `{{package.<row>}}` and `{{service.<row>}}`, and the sandbox builds its stand-ins from the
// same file, so neither can drift from the table.

#include <gpuctl/core/error.hpp>

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuctl {

// One component of the stack. Names and versions may hold {branch}, {driver_version}, {cuda}
// {cuda_dashed} and {cuda_major}, filled in from the inventory (resolve_packages).
struct ProfileRow {
  std::string row;          // "driver", "persistenced", "fabricmanager"...
  std::string name;         // the package; "" where this source ships none
  std::string open;         // driver-like rows: the package for NVIDIA's open kernel module...
  std::string proprietary;  // ...and for the proprietary one ("" where the source has none)
  std::string service;      // its systemd unit without ".service", if it has one
  std::string version;      // the version as this source writes it, e.g. "{driver_version}-1"
  std::string reference;    // a key of `references`
  std::string note;         // why a name is empty, or what to know about it
  // From this driver branch on the source names the package `renamed_to` instead (NVIDIA's
  // fabric manager loses its branch suffix at 580); 0: never renamed.
  int renamed_from_branch = 0;
  std::string renamed_to;
};

struct PackageProfile {
  std::string name;            // "debian12-cuda-repository"
  std::string description;
  std::string os;              // inventory value: debian12, ubuntu2204, ubuntu2404
  std::string os_id;           // /etc/os-release ID and VERSION_ID the nodes must have
  std::string os_version_id;
  std::string driver_source;   // inventory value: cuda-repository, distribution
  // cuda-repository profiles: NVIDIA's repository for this OS, and where NVIDIA's cuda-keyring
  // package puts its list and key (a node set up that way already has the repository).
  std::string repository_url;
  std::string repository_key_url;
  std::string keyring_list;
  std::string keyring_path;
  std::vector<ProfileRow> rows;
  std::map<std::string, std::string> references;  // key -> URL
  std::string path;            // the file it was read from

  const ProfileRow* find_row(std::string_view row) const;
};

// The rows every profile has, in the order the stack is installed.
const std::vector<std::string>& profile_row_names();

// The values of cluster.os and cluster.nvidia.driver_source gpuctl knows.
const std::vector<std::string>& profile_os_names();
const std::vector<std::string>& profile_driver_sources();

// "<os>-<driver_source>": the profile an inventory's choice names.
std::string profile_name(std::string_view os, std::string_view driver_source);

// The directory of the shipped profiles: <playbooks dir>/profiles.
std::string profiles_dir();

// The shipped profiles' names, sorted.
std::vector<std::string> shipped_profile_names();

// Reads and checks a profile file: every row present once, known keys only, references that
// exist; errors name the file and line.
Result<PackageProfile> parse_profile(std::string_view text, const std::string& path);

// A shipped profile by name (never a path: profiles come only from gpuctl's data directory).
Result<PackageProfile> load_profile(std::string_view name);

// What the inventory's choices make of a profile: each row's package and service with the
// placeholders filled in. `open_kernel_module` picks the driver rows' flavour; a flavour the
// source does not ship is an error that says which profile does.
struct PackageChoice {
  std::string driver_branch;
  std::string driver_version;
  std::string cuda;
  bool open_kernel_module = true;
  // cluster.containers.toolkit_version ("1.17.8"): the container toolkit rows' {toolkit_version}.
  std::string toolkit_version{};
};
struct ResolvedPackages {
  std::map<std::string, std::string, std::less<>> packages;  // row -> package ("" where none)
  std::map<std::string, std::string, std::less<>> services;  // row -> service ("" where none)
  // row -> the version the profile writes, placeholders filled ("2.21.5-1+cuda12.4"); "" where
  // it names none, or names one built from a value the inventory left out (no `cuda:`).
  std::map<std::string, std::string, std::less<>> versions;

  // A row's package, service or version; "" where the source ships none or no profile was resolved.
  std::string package(std::string_view row) const;
  std::string service(std::string_view row) const;
  std::string version(std::string_view row) const;
};
Result<ResolvedPackages> resolve_packages(const PackageProfile& profile, const PackageChoice& choice);

// Why a node whose /etc/os-release says `id` and `version_id` cannot take `profile`'s
// packages (Ubuntu's names on a Debian node, 24.04's on 22.04), or nullopt when it matches.
std::optional<std::string> os_mismatch(const PackageProfile& profile, std::string_view id, std::string_view version_id,
                                       std::string_view pretty_name);

// Fills {branch}, {driver_version}, {cuda}, {cuda_dashed} ("12-4"), {cuda_major} and {toolkit_version} in `text`.
std::string fill_placeholders(std::string_view text, const PackageChoice& choice);

}  // namespace gpuctl
