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
std::optional<std::string> check_toolkit_version(std::string_view text); // major.minor.patch: "1.17.8"

// An absolute http:// or https:// URL with a valid host, or a file: URL of an absolute,
// normalised path (file:/srv/x or file:///srv/x). Only letters, digits and - . _ ~ : / ? = & %
// + , @ (and [ ] around an IPv6 host): no whitespace, quotes, control characters, '#', '$',
// backticks or braces; no "." or ".." path segments; no leading '-'.
std::optional<std::string> check_url(std::string_view text);

// A free-form label value: printable ASCII (spaces allowed), at most 256 characters, without
// quotes, '\', '#', "..", "{{", "}}" or the shell metacharacters ` $ < > ; & |, not starting
// with '-' and neither starting nor ending with a space.
std::optional<std::string> check_label_value(std::string_view text);

// An e-mail address, name@domain: letters, digits and . _ % + - before the '@', a host name after.
std::optional<std::string> check_email_address(std::string_view text);
// host:port (a host name, IPv4 or [IPv6] address, and a port from 1 to 65535), e.g. an SMTP smarthost.
std::optional<std::string> check_host_port(std::string_view text);
// A chat channel or user as Slack-compatible webhooks take them: #name or @name.
std::optional<std::string> check_chat_channel(std::string_view text);
}  // namespace gpuctl::inventory_detail
