#pragma once
// Validity of the names and addresses an inventory gives; they end up in ssh command lines,
// file paths and slurm.conf, so anything a shell could interpret is refused. Pure functions.

#include <optional>
#include <string>
#include <string_view>

namespace gpuctl::inventory_detail {

// Each returns nullopt when `text` is valid, else why it is not (e.g. "contains ';'").
std::optional<std::string> check_hostname(std::string_view text);   // RFC 1123 host name
std::optional<std::string> check_address(std::string_view text);    // host name, IPv4 or IPv6
std::optional<std::string> check_user(std::string_view text);       // POSIX portable user name
std::optional<std::string> check_identifier(std::string_view text); // group, rack, label, HCA names
std::optional<std::string> check_path(std::string_view text);       // a local file path

}  // namespace gpuctl::inventory_detail
