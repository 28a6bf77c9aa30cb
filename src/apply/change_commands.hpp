#pragma once
// The shell commands apply runs for each kind of change. Pure: text in, text out.

#include <gpuctl/playbook/playbook.hpp>

#include <string>
#include <vector>

namespace gpuctl::apply_detail {

// Installs (or changes to) the package's wanted version, resolving "550.127.08" to the
// repository's "550.127.08-1", refreshing package lists once when the version is unknown, and
// holding it when asked. Exits 100 with a clear message when no such version exists.
std::string package_install_command(const PackageResource& package);
// The same resolution, but only into apt's cache (apt-get install --download-only; no hold):
// fetched before a node is drained, so the drained window has no download in it.
std::string package_download_command(const PackageResource& package);
// Several packages fetched in one apt-get call (resolved together), each version as above.
std::string packages_download_command(const std::vector<PackageResource>& packages);
std::string package_remove_command(const PackageResource& package);
std::string service_command(const ServiceResource& service);
std::string restart_service_command(const std::string& service);

}  // namespace gpuctl::apply_detail
