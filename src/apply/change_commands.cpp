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

// Resolves the wanted version ("550.127.08" -> the repository's "550.127.08-1") and installs it,
// or with `download_only` only fetches it into apt's cache.
std::string package_apt_command(const PackageResource& package, bool download_only) {
  const auto name = util::shell_quote(package.name);
  std::string script = "set -e\nexport DEBIAN_FRONTEND=noninteractive\n";
  const std::string apt_install =
      std::string("apt-get install -y -q ") + (download_only ? "--download-only " : "") +
      "--allow-downgrades --allow-change-held-packages "
      "-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold";
  if (package.version.empty()) {
    script += fmt::format(
        "if ! apt-cache show {0} >/dev/null 2>&1; then apt-get update -q >/dev/null; fi\n"
        "{1} {0}\n",
        name, apt_install);
  } else {
    const auto pattern = util::shell_quote(fmt::format("^([0-9]+:)?{}(-|$)", regex_escape(package.version)));
    script += fmt::format(
        "pick() {{ apt-cache madison {0} 2>/dev/null | awk -F'|' '{{gsub(/ /, \"\", $2); print $2}}' | grep -E {1} | head -n1; }}\n"
        "v=$(pick)\n"
        "if [ -z \"$v\" ]; then apt-get update -q >/dev/null; v=$(pick); fi\n"
        "if [ -z \"$v\" ]; then printf 'gpuctl: version %s of %s is not in the configured repositories\\n' {2} {0} >&2; "
        "exit 100; fi\n"
        "{3} {0}=\"$v\"\n",
        name, pattern, util::shell_quote(package.version), apt_install);
  }
  if (package.hold && !download_only) script += fmt::format("apt-mark hold {} >/dev/null\n", name);
  return script;
}

}  // namespace

std::string package_install_command(const PackageResource& package) {
  return package_apt_command(package, false);
}

std::string package_download_command(const PackageResource& package) {
  return package_apt_command(package, true);
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

std::string reboot_command() {
  return "nohup sh -c 'sleep 1; systemctl reboot' >/dev/null 2>&1 </dev/null &";
}

}  // namespace gpuctl::apply_detail
