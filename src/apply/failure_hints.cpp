#include <gpuctl/apply/apply.hpp>

#include <array>
#include <utility>

namespace gpuctl {

std::string failure_hint(std::string_view output) {
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 9> k_hints{{
      {"Could not get lock", "another apt or dpkg process holds the lock (unattended-upgrades?); wait for it, then apply again"},
      {"dpkg frontend lock", "another apt or dpkg process holds the lock (unattended-upgrades?); wait for it, then apply again"},
      {"dpkg was interrupted", "an earlier install was interrupted: run `dpkg --configure -a` on the node, then apply again"},
      {"No space left on device", "a file system on the node is full: free space (df -h), then apply again"},
      {"post-installation script", "the package's post-installation script failed: read its output above, fix the cause on the node, then apply again"},
      {"is not in the configured repositories", "check cluster.nvidia versions in the inventory and the repository URL (apt-cache madison on the node)"},
      {"Unable to locate package", "the package is not in the configured repositories: check the repository URL and key"},
      {"a password is required", "the login user needs passwordless sudo for become (sudo -n)"},
      {"NO_PUBKEY", "the repository key does not match the repository: check cluster.nvidia.repository.key_file/key_url"},
  }};
  for (const auto& [needle, hint] : k_hints)
    if (output.find(needle) != std::string_view::npos) return std::string(hint);
  return {};
}

}  // namespace gpuctl
