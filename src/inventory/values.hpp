#pragma once
// Grammars of the inventory's non-name values: versions, URLs and free-form label values.
// They reach package names, apt sources, curl command lines and templates. Pure functions;
// each returns nullopt when `text` is valid, else why it is not.

#include <optional>
#include <string>
#include <string_view>

namespace gpuctl::inventory_detail {

std::optional<std::string> check_driver_branch(std::string_view text);   // digits: "550"
std::optional<std::string> check_driver_version(std::string_view text);  // dotted: "550.127.08"
std::optional<std::string> check_cuda_version(std::string_view text);    // major.minor: "12.4"

// An absolute http:// or https:// URL with a valid host, or a file: URL of an absolute,
// normalised path (file:/srv/x or file:///srv/x). Only letters, digits and - . _ ~ : / ? = & %
// + , @ (and [ ] around an IPv6 host): no whitespace, quotes, control characters, '#', '$',
// backticks or braces; no "." or ".." path segments; no leading '-'.
std::optional<std::string> check_url(std::string_view text);

// A free-form label value: printable ASCII (spaces allowed), at most 256 characters, without
// quotes, '\', '#', "..", "{{", "}}" or the shell metacharacters ` $ < > ; & |, not starting
// with '-' and neither starting nor ending with a space.
std::optional<std::string> check_label_value(std::string_view text);

}  // namespace gpuctl::inventory_detail
