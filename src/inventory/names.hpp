#pragma once
// Validity of the names, addresses and paths an inventory gives; they end up in ssh command
// lines, file paths, directory names and config files, so anything a shell, a path or a
// config format could interpret is refused. Pure functions.

#include <optional>
#include <string>
#include <string_view>

namespace gpuctl::inventory_detail {

// Each returns nullopt when `text` is valid, else why it is not (e.g. "contains ';'").
std::optional<std::string> check_hostname(std::string_view text);   // RFC 1123 host name
std::optional<std::string> check_address(std::string_view text);    // host name, IPv4 or IPv6
std::optional<std::string> check_user(std::string_view text);       // POSIX portable user name
// A name that may become a directory, a Slurm name or a template key: [A-Za-z0-9_][A-Za-z0-9_.-]*,
// at most 63 characters, no "..". Cluster, group, partition, rack, GPU model and label names.
std::optional<std::string> check_name(std::string_view text);
// A label name: names separated by single '/' ("topology/zone"), at most 253 characters.
std::optional<std::string> check_label_key(std::string_view text);
// An InfiniBand HCA as NCCL and the kernel name it: a name that may also hold ':' (mlx5_0:1).
std::optional<std::string> check_hca(std::string_view text);

enum class HomePrefix { refused, allowed };
// A local file: absolute, normalised (no "//", "." or ".." components, no trailing '/'), of
// letters, digits and / _ - . + , @ : = %. With HomePrefix::allowed, "~/" may start it.
std::optional<std::string> check_path(std::string_view text, HomePrefix home = HomePrefix::refused);

// Why a character is refused, worded for what it is: "contains a line break", "contains
// whitespace", "contains the shell metacharacter '$'", "contains a control character", or
// "contains 'c'"; `allowed` (may be empty) names what the field takes.
std::string refused_character(char c, std::string_view allowed);

}  // namespace gpuctl::inventory_detail
