#include "change_commands.hpp"

#include <gpuctl/util/strings.hpp>

#include <fmt/format.h>

namespace gpuctl::apply_detail {
namespace {

std::string regex_escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (std::string_view(".^$*+?()[]{}|\\").find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

// Resolves each wanted version ("550.127.08" -> the repository's "550.127.08-1") and installs
// them in one apt-get call, or with `download_only` only fetches them into apt's cache. One call:
// apt resolves the packages together, so a metapackage's dependencies are the new versions
// being fetched with it, not the installed ones.
std::string packages_apt_command(const std::vector<PackageResource>& packages, bool download_only) {
  std::string script = "set -e\nexport DEBIAN_FRONTEND=noninteractive\n";
  const std::string apt_install =
      std::string("apt-get install -y -q ") + (download_only ? "--download-only " : "") +
      "--allow-downgrades --allow-change-held-packages "
      "-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold";
  std::string arguments;
  bool pick_defined = false;
  for (std::size_t i = 0; i < packages.size(); ++i) {
    const auto& package = packages[i];
    const auto name = util::shell_quote(package.name);
    if (package.version.empty()) {
      script += fmt::format("if ! apt-cache show {0} >/dev/null 2>&1; then apt-get update -q >/dev/null; fi\n", name);
      arguments += " " + name;
      continue;
    }
    if (!pick_defined) {
      script += "pick() { apt-cache madison \"$1\" 2>/dev/null | awk -F'|' '{gsub(/ /, \"\", $2); print $2}' | grep -E \"$2\" | head -n1; }\n";
      pick_defined = true;
    }
    const auto pattern = util::shell_quote(fmt::format("^([0-9]+:)?{}(-|$)", regex_escape(package.version)));
    script += fmt::format(
        "v{3}=$(pick {0} {1})\n"
        "if [ -z \"$v{3}\" ]; then apt-get update -q >/dev/null; v{3}=$(pick {0} {1}); fi\n"
        "if [ -z \"$v{3}\" ]; then printf 'gpuctl: version %s of %s is not in the configured repositories\\n' {2} {0} >&2; "
        "exit 100; fi\n",
        name, pattern, util::shell_quote(package.version), i);
    arguments += fmt::format(" {}=\"$v{}\"", name, i);
  }
  script += apt_install + arguments + "\n";
  for (const auto& package : packages)
    if (package.hold && !download_only) script += fmt::format("apt-mark hold {} >/dev/null\n", util::shell_quote(package.name));
  return script;
}

}  // namespace

std::string package_install_command(const PackageResource& package) {
  return packages_apt_command({package}, false);
}

std::string package_download_command(const PackageResource& package) {
  return packages_apt_command({package}, true);
}

std::string packages_download_command(const std::vector<PackageResource>& packages) {
  return packages_apt_command(packages, true);
}

std::string package_remove_command(const PackageResource& package) {
  return fmt::format("set -e\nexport DEBIAN_FRONTEND=noninteractive\napt-mark unhold {0} >/dev/null 2>&1 || true\n"
                     "apt-get remove -y -q {0}\n",
                     util::shell_quote(package.name));
}

std::string service_command(const ServiceResource& service) {
  const auto name = util::shell_quote(service.name);
  std::string script = "set -e\n";
  if (service.enabled) script += fmt::format("systemctl {} {}\n", *service.enabled ? "enable" : "disable", name);
  if (service.running) script += fmt::format("systemctl {} {}\n", *service.running ? "start" : "stop", name);
  return script;
}

std::string restart_service_command(const std::string& service) {
  return fmt::format("systemctl restart {}", util::shell_quote(service));
}


}  // namespace gpuctl::apply_detail
