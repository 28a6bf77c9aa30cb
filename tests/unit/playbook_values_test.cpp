// Values that are not shell text (paths, package names and versions, unit and account names):
// checked after substitution (playbook/resource_values.hpp) and quoted where apply uses them.
#include <gpuctl/playbook/resource_values.hpp>
#include <gpuctl/util/strings.hpp>

#include "apply/change_commands.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace gpuctl {
namespace {

namespace fs = std::filesystem;

TEST(NodePath, AcceptsAbsoluteNormalisedPaths) {
  for (const char* path : {"/etc/nccl.conf", "/etc/apt/keyrings/gpuctl-cuda.asc", "/a", "/a b/c'd"})
    EXPECT_TRUE(check_node_path(path, "file path")) << path;
}

TEST(NodePath, RefusesRelativeUnnormalisedAndControlCharacters) {
  for (const char* path : {"", "etc/x", "-rf", "/etc/../shadow", "/etc/./x", "/etc//x", "/etc/x/", "/..", "/a/.",
                           "/etc/x\nrm", "/etc/\x1b[31mx"}) {
    const auto checked = check_node_path(path, "file path");
    EXPECT_FALSE(checked) << path;
    if (!checked) {
      EXPECT_FALSE(checked.error().hint.empty());
    }
  }
}

Resource package(std::string name, std::string version = {}) {
  Resource r;
  r.kind = ResourceKind::package;
  r.package.name = std::move(name);
  r.package.version = std::move(version);
  return r;
}

TEST(ResourceValues, PackageNamesAndVersionsFollowDebiansGrammar) {
  EXPECT_TRUE(check_resource_values(package("nvidia-driver-550", "550.127.08")));
  EXPECT_TRUE(check_resource_values(package("cuda-toolkit-12-4")));
  EXPECT_TRUE(check_resource_values(package("libstdc++6:amd64", "1:12.2.0-14+deb12u1~bpo")));
  for (const char* name : {"-oAPT::Update::Pre-Invoke::=x", "Nvidia", "a", "a b", "a;b", "a'b", "x:"})
    EXPECT_FALSE(check_resource_values(package(name))) << name;
  for (const char* version : {"550.127.08'; reboot; '", "latest", "-1", "550 1", "5$(x)", "550\n"})
    EXPECT_FALSE(check_resource_values(package("nvidia-driver-550", version))) << version;
}

TEST(ResourceValues, ServiceAndAccountNames) {
  Resource service;
  service.kind = ResourceKind::service;
  for (const char* name : {"slurmd", "getty@tty1.service", "dev-disk-by\\x2duuid.swap"}) {
    service.service.name = name;
    EXPECT_TRUE(check_resource_values(service)) << name;
  }
  for (const char* name : {"", "--now", "a b", "a;reboot"}) {
    service.service.name = name;
    EXPECT_FALSE(check_resource_values(service)) << name;
  }
  Resource file;
  file.kind = ResourceKind::file;
  file.file.path = "/etc/munge/munge.key";
  file.file.owner = "munge";
  EXPECT_TRUE(check_resource_values(file));
  for (const char* owner : {"-R", "root:root", "a b", ""}) {
    file.file.owner = owner;
    EXPECT_FALSE(check_resource_values(file)) << owner;
  }
  file.file.owner = "root";
  file.file.path = "/";
  EXPECT_FALSE(check_resource_values(file));
}

TEST(ResourceValues, CreatesIsANodePath) {
  Resource command;
  command.kind = ResourceKind::command;
  command.command.run = "true";
  EXPECT_TRUE(check_resource_values(command));
  command.command.creates = "/etc/apt/keyrings/gpuctl-cuda.asc";
  EXPECT_TRUE(check_resource_values(command));
  command.command.creates = "keyrings/../x";
  EXPECT_FALSE(check_resource_values(command));
}

// The install script with a version no repository has: apt-cache and apt-get are stand-ins that
// know nothing. Whatever the version and name hold, the message shows them and runs nothing.
TEST(PackageInstallCommand, InstallAndDownloadQuoteTheVersionAndNameInTheirMessage) {
  const auto dir = fs::temp_directory_path() / ("gpuctl-apt-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "bin");
  for (const char* tool : {"apt-cache", "apt-get"}) {
    std::ofstream(dir / "bin" / tool) << "#!/bin/sh\nexit 0\n";
    fs::permissions(dir / "bin" / tool, fs::perms::owner_all);
  }
  const auto canary = dir / "canary";
  for (const std::string& version : std::vector<std::string>{"550.1\"; touch " + canary.string() + "; echo \"", "$(touch " + canary.string() + ")",
                                    "`touch " + canary.string() + "`", "550.127.08"}) {
    // The install, and the download before a drain (apply/prefetch.hpp), resolve alike.
    for (const auto& command : {apply_detail::package_install_command, apply_detail::package_download_command}) {
      PackageResource wanted{"nvidia-driver-550", PackageState::present, version, true};
      const auto script = dir / "install.sh";
      std::ofstream(script) << "PATH=" << util::shell_quote((dir / "bin").string()) << ":$PATH\n"
                            << command(wanted);
      const auto err = dir / "stderr";
      const int status = std::system(("/bin/sh " + util::shell_quote(script.string()) + " >/dev/null 2>" +
                                      util::shell_quote(err.string())).c_str());
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 100) << status;
      std::ifstream in(err);
      std::ostringstream text;
      text << in.rdbuf();
      EXPECT_EQ(text.str(), "gpuctl: version " + version + " of nvidia-driver-550 is not in the configured repositories\n");
      EXPECT_FALSE(fs::exists(canary)) << command(wanted);
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace gpuctl
