#include <gpuctl/playbook/resource_values.hpp>

#include <fmt/format.h>

#include <algorithm>

namespace gpuctl {
namespace {

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_alnum(char c) { return is_lower_alnum(c) || (c >= 'A' && c <= 'Z'); }
bool is_control(char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }

bool all_of(std::string_view text, std::string_view extra, bool (*base)(char)) {
  return std::ranges::all_of(text, [&](char c) { return base(c) || extra.find(c) != std::string_view::npos; });
}

std::unexpected<Error> bad_value(std::string_view what, std::string_view value, std::string_view grammar) {
  return std::unexpected(Error{ErrorCode::validation, fmt::format("{} '{}' is not {}", what, value, grammar), {},
                               "check the inventory value the playbook substitutes here"});
}

Result<void> check_package_name(std::string_view name) {
  const auto colon = name.find(':');
  const auto package = name.substr(0, colon);
  const auto arch = colon == std::string_view::npos ? std::string_view{} : name.substr(colon + 1);
  const bool ok = package.size() >= 2 && is_lower_alnum(package.front()) && all_of(package, "+.-", is_lower_alnum) &&
                  (colon == std::string_view::npos || (!arch.empty() && all_of(arch, "-", is_lower_alnum)));
  if (!ok) return bad_value("package name", name, "a Debian package name ([a-z0-9][a-z0-9+.-]+, optionally :ARCH)");
  return {};
}

Result<void> check_package_version(std::string_view version) {
  if (version.empty()) return {};
  if (!(version.front() >= '0' && version.front() <= '9') || !all_of(version, ".+~:-", is_alnum))
    return bad_value("package version", version, "a Debian version (a digit, then letters, digits and .+~:-)");
  return {};
}

Result<void> check_unit_name(std::string_view name) {
  if (name.empty() || name.size() > 256 || name.front() == '-' || !all_of(name, ":_.@\\-", is_alnum))
    return bad_value("service name", name, "a systemd unit name (letters, digits and :_.@\\-, not starting with -)");
  return {};
}

Result<void> check_account_name(std::string_view name, std::string_view what) {
  if (name.empty() || name.front() == '-' || !all_of(name, "_.-", is_alnum))
    return bad_value(what, name, "a user or group name (letters, digits and _.-, not starting with -)");
  return {};
}

Result<void> check_unpackaged_driver_policy(const std::string& policy) {
  if (policy.empty() || policy == "adopt" || policy == "install") return {};
  return fail(ErrorCode::validation, fmt::format("unpackaged_driver '{}' is neither adopt nor install", policy), {},
              "write unpackaged_driver: adopt, install, or \"{{nvidia.unpackaged_driver}}\"");
}

}  // namespace

Result<void> check_node_path(std::string_view path, std::string_view what) {
  const auto refuse = [&](std::string_view why) {
    return std::unexpected(Error{ErrorCode::validation, fmt::format("{} '{}' {}", what, path, why), {},
                                 "give an absolute path without '.', '..', '//' or a trailing '/'"});
  };
  if (!path.starts_with('/')) return refuse("is not an absolute path");
  if (std::ranges::any_of(path, is_control)) return refuse("contains a control character");
  if (path.size() > 1 && path.ends_with('/')) return refuse("ends with '/'");
  for (std::size_t start = 1; start <= path.size();) {
    const auto end = std::min(path.find('/', start), path.size());
    const auto component = path.substr(start, end - start);
    if (path.size() > 1 && (component.empty() || component == "." || component == ".."))
      return refuse("is not normalised");
    start = end + 1;
  }
  return {};
}

Result<void> check_resource_values(const Resource& resource) {
  switch (resource.kind) {
    case ResourceKind::file:
      if (resource.file.path == "/")
        return fail(ErrorCode::validation, "file path '/' is the root directory", {}, "give the path of a file");
      if (auto ok = check_node_path(resource.file.path, "file path"); !ok) return ok;
      if (auto ok = check_account_name(resource.file.owner, "file owner"); !ok) return ok;
      return check_account_name(resource.file.group, "file group");
    case ResourceKind::package:
      if (auto ok = check_package_name(resource.package.name); !ok) return ok;
      if (auto ok = check_unpackaged_driver_policy(resource.package.unpackaged_driver); !ok) return ok;
      return check_package_version(resource.package.version);
    case ResourceKind::service:
      if (auto ok = check_unpackaged_driver_policy(resource.service.unpackaged_driver); !ok) return ok;
      return check_unit_name(resource.service.name);
    case ResourceKind::command:
      if (resource.command.creates.empty()) return {};
      return check_node_path(resource.command.creates, "creates path");
  }
  return {};
}

}  // namespace gpuctl
