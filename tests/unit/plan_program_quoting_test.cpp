// Values in the commands of a node's program (plan/program.hpp): the shipped playbooks keep
// their commands for normal values, and a hostile inventory value reaches the node's shell as
// one literal argument, in the commands apply runs and in the guards the plan probe runs.
#include <gpuctl/plan/node_state.hpp>
#include <gpuctl/plan/program.hpp>
#include <gpuctl/playbook/loader.hpp>
#include <gpuctl/util/strings.hpp>

#include "shipped_playbooks.hpp"
#include "template_test_inventory.hpp"

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

Result<NodeProgram> program_of(const Inventory& inventory, const std::vector<Playbook>& playbooks,
                               std::string_view node = "gpu01") {
  ProgramSources sources;
  sources.templates_dir = testing::k_shipped_templates_dir;
  sources.secrets = SecretMode::masked;
  return resolve_program(inventory, *inventory.find_node(node), playbooks, sources);
}

const Resource* command_starting(const NodeProgram& program, std::string_view prefix) {
  for (const auto& step : program.steps)
    for (const auto& resolved : step.resources)
      if (resolved.resource.kind == ResourceKind::command && resolved.resource.command.run.starts_with(prefix))
        return &resolved.resource;
  return nullptr;
}

const ResolvedStep* step_named(const NodeProgram& program, std::string_view name) {
  for (const auto& step : program.steps)
    if (step.step->name == name) return &step;
  return nullptr;
}

TEST(ProgramQuoting, ShippedPlaybooksKeepTheirCommandsForNormalValues) {
  const auto inventory = testing::example_inventory();
  const auto program = program_of(inventory, testing::shipped_playbooks());
  ASSERT_TRUE(program) << program.error().to_string();
  const auto* driver = step_named(*program, "driver");
  ASSERT_NE(driver, nullptr);
  EXPECT_EQ(driver->reboot_unless,
            "read -r v < /proc/driver/nvidia/version && case \"$v \" in *' 550.127.08 '*) ;; *) false ;; esac");
  const auto* curl = command_starting(*program, "curl");
  ASSERT_NE(curl, nullptr);
  EXPECT_EQ(curl->command.run,
            "curl -fsSL --retry 3 -o '/etc/apt/keyrings/gpuctl-cuda.asc' --url "
            "'https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/3bf863cc.pub'");
  EXPECT_EQ(curl->command.creates, "/etc/apt/keyrings/gpuctl-cuda.asc");

  const auto upgrade = load_playbooks({std::string(GPUCTL_SOURCE_DIR) + "/playbooks/driver-upgrade.yaml"});
  ASSERT_TRUE(upgrade) << upgrade.error().to_string();
  const auto upgrade_program = program_of(inventory, *upgrade);
  ASSERT_TRUE(upgrade_program) << upgrade_program.error().to_string();
  const auto* unhold = command_starting(*upgrade_program, "apt-mark unhold");
  ASSERT_NE(unhold, nullptr);
  EXPECT_EQ(unhold->command.run, "apt-mark unhold 'nvidia-open' 'nvidia-kernel-open-dkms'");
  EXPECT_EQ(unhold->command.unless, "grep -q ' 550.127.08 ' /proc/driver/nvidia/version");
}

class HostileValues : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("gpuctl-program-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(m_dir);
    fs::create_directories(m_dir / "bin");
  }
  void TearDown() override { fs::remove_all(m_dir); }

  fs::path canary() const { return m_dir / "canary"; }

  // Runs `script` with /bin/sh in the temporary directory, ./bin first on PATH; returns stdout.
  std::string run(const std::string& script) {
    const auto file = m_dir / "script.sh";
    std::ofstream(file) << "cd " << util::shell_quote(m_dir.string()) << " || exit 99\nPATH=\"$PWD/bin:$PATH\"\n"
                        << script << "\n";
    const auto out = m_dir / "stdout";
    (void)std::system(("/bin/sh " + util::shell_quote(file.string()) + " >" + util::shell_quote(out.string()) +
                       " 2>/dev/null").c_str());
    std::ifstream in(out);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  fs::path m_dir;
};

TEST_F(HostileValues, AKeyUrlReachesCurlAsOneArgument) {
  // A stand-in curl that prints its arguments, one a line.
  std::ofstream(m_dir / "bin" / "curl") << "#!/bin/sh\nprintf '%s\\n' \"$@\"\n";
  fs::permissions(m_dir / "bin" / "curl", fs::perms::owner_all);
  for (const std::string& url : std::vector<std::string>{"https://x/k.pub'; touch " + canary().string() + "; echo '",
                                "-K" + canary().string(), "https://x/$(touch " + canary().string() + ")"}) {
    auto inventory = testing::example_inventory();
    inventory.cluster.nvidia.repository.key_url = url;
    const auto program = program_of(inventory, testing::shipped_playbooks());
    ASSERT_TRUE(program) << program.error().to_string();
    const auto* curl = command_starting(*program, "curl");
    ASSERT_NE(curl, nullptr);
    // The key's file name follows the URL's suffix (.asc, else .gpg).
    EXPECT_EQ(run(curl->command.run), "-fsSL\n--retry\n3\n-o\n" + curl->command.creates + "\n--url\n" + url + "\n");
    EXPECT_FALSE(fs::exists(canary())) << curl->command.run;
  }
}

TEST_F(HostileValues, GuardsInThePlanProbeRunNothingFromAValue) {
  const auto playbook = load_playbook_text(
      "name: t\nsteps:\n  - name: one\n    reboot: on-change\n"
      "    reboot_unless: \"grep -q ' {{labels.v}} ' /proc/version\"\n"
      "    resources:\n"
      "      - command: \"printf '%s' {{labels.v}} > ran\"\n"
      "        unless: \"test -e {{labels.v}} || grep -qF \\\"{{labels.v}}\\\" /etc/hostname\"\n",
      "t.yaml");
  ASSERT_TRUE(playbook) << playbook.error().to_string();
  const std::string c = canary().string();
  for (const std::string& value : std::vector<std::string>{"1' /dev/null; touch " + c + "; echo '", "$(touch " + c + ")", "\"; touch " + c + "; \"",
                                  "`touch " + c + "`", "x\ntouch " + c, "x\\"}) {
    auto inventory = testing::example_inventory();
    for (auto& node : inventory.nodes) node.labels = {{"v", value}};
    const auto program = program_of(inventory, {*playbook});
    ASSERT_TRUE(program) << program.error().to_string();
    const auto probe = run(node_state_script(*program));
    EXPECT_NE(probe.find("@@guard 0 1"), std::string::npos) << probe;
    EXPECT_NE(probe.find("@@reboot 0 1"), std::string::npos) << probe;
    EXPECT_FALSE(fs::exists(canary())) << node_state_script(*program);
    // The command itself, as apply runs it.
    run(program->steps[0].resources[0].resource.command.run);
    std::ifstream ran(m_dir / "ran");
    std::ostringstream text;
    text << ran.rdbuf();
    EXPECT_EQ(text.str(), value);
    EXPECT_FALSE(fs::exists(canary()));
  }
}

TEST(ProgramValues, AHostileVersionOrPathIsRefusedWhereItIsUsed) {
  auto inventory = testing::example_inventory();
  inventory.cluster.nvidia.driver_version = "550.127.08'; reboot; '";
  const auto bad_version = program_of(inventory, testing::shipped_playbooks());
  ASSERT_FALSE(bad_version);
  EXPECT_NE(bad_version.error().message.find("package version"), std::string::npos) << bad_version.error().to_string();
  EXPECT_NE(bad_version.error().where.file.find("gpu-node.yaml"), std::string::npos);
  EXPECT_EQ(bad_version.error().where.node, "gpu01");

  const auto playbook = load_playbook_text(
      "name: t\nsteps:\n  - name: one\n    resources:\n      - file: \"/etc/{{labels.f}}\"\n        template: x\n", "t.yaml");
  ASSERT_TRUE(playbook);
  for (auto& node : inventory.nodes) node.labels = {{"f", "../shadow"}};
  const auto bad_path = program_of(inventory, {*playbook});
  ASSERT_FALSE(bad_path);
  EXPECT_NE(bad_path.error().message.find("not normalised"), std::string::npos) << bad_path.error().to_string();
}

// The shipped guards the plan probe runs on every node, run by this host's shells on captured
// inputs (their /proc paths pointed at files here): each says "done" exactly when it should.
class ShippedGuards : public ::testing::Test {
 protected:
  void SetUp() override {
    m_dir = fs::temp_directory_path() / ("gpuctl-guards-" + std::to_string(getpid()));
    fs::create_directories(m_dir / "bin");
    const auto program = program_of(testing::example_inventory(), testing::shipped_playbooks());
    ASSERT_TRUE(program) << program.error().to_string();
    m_reboot_unless = step_named(*program, "driver")->reboot_unless;
    const auto* initramfs = command_starting(*program, "update-initramfs");
    ASSERT_NE(initramfs, nullptr);
    m_nouveau_unless = initramfs->command.unless;
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // The guard's exit status under `shell`, with every `from` in its text replaced by `to` and
  // the test's bin directory first on PATH.
  int run(const std::string& shell, std::string guard, const std::string& from, const std::string& to) {
    EXPECT_NE(guard.find(from), std::string::npos) << guard;
    for (auto at = guard.find(from); at != std::string::npos; at = guard.find(from, at + to.size()))
      guard.replace(at, from.size(), to);
    std::ofstream(m_dir / "guard.sh") << guard << "\n";
    const auto command = "PATH=" + (m_dir / "bin").string() + ":/usr/bin:/bin " + shell + " " + (m_dir / "guard.sh").string();
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  void write(const std::string& name, const std::string& text) { std::ofstream(m_dir / name) << text; }

  fs::path m_dir;
  std::string m_reboot_unless;
  std::string m_nouveau_unless;
};

TEST_F(ShippedGuards, TheDriverRebootGuardIsDoneOnlyWhenTheLoadedModuleIsTheInventorys) {
  const auto version = (m_dir / "version").string();
  for (const std::string shell : {"/bin/sh", "/bin/bash"}) {
    // The proprietary module's line, then the open module's line from the real H200 (580.159.04).
    write("version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.127.08  Tue Oct 22 2024\nGCC version:  gcc 12\n");
    EXPECT_EQ(run(shell, m_reboot_unless, "/proc/driver/nvidia/version", version), 0) << shell;
    write("version", "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  (nixbld@)  \n");
    EXPECT_NE(run(shell, m_reboot_unless, "/proc/driver/nvidia/version", version), 0) << shell;
    write("version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.127.081  Tue Oct 22 2024\n");
    EXPECT_NE(run(shell, m_reboot_unless, "/proc/driver/nvidia/version", version), 0) << shell << ": a longer version";
    // No module loaded: no file, so a reboot is needed.
    EXPECT_NE(run(shell, m_reboot_unless, "/proc/driver/nvidia/version", (m_dir / "none").string()), 0) << shell;
  }
}

TEST_F(ShippedGuards, TheNouveauGuardReadsProcModulesOrLsmod) {
  const auto modules = (m_dir / "modules").string();
  const std::string nvidia = "nvidia 56823808 2 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (PO)\n";
  const std::string nouveau = "nouveau 2904064 0 - Live 0x0000000000000000\n";
  for (const std::string shell : {"/bin/sh", "/bin/bash"}) {
    write("modules", nvidia);
    EXPECT_EQ(run(shell, m_nouveau_unless, "/proc/modules", modules), 0) << shell << ": nouveau not loaded, done";
    write("modules", nvidia + nouveau);
    EXPECT_NE(run(shell, m_nouveau_unless, "/proc/modules", modules), 0) << shell << ": nouveau loaded";
    // No /proc/modules: lsmod answers, in its own format (header, then columns).
    write("bin/lsmod", "#!/bin/sh\nprintf 'Module                  Size  Used by\\nnvidia              56823808  2\\n'\n");
    fs::permissions(m_dir / "bin/lsmod", fs::perms::owner_all);
    EXPECT_EQ(run(shell, m_nouveau_unless, "/proc/modules", (m_dir / "none").string()), 0) << shell;
    write("bin/lsmod", "#!/bin/sh\nprintf 'Module                  Size  Used by\\nnouveau              2904064  0\\n'\n");
    EXPECT_NE(run(shell, m_nouveau_unless, "/proc/modules", (m_dir / "none").string()), 0) << shell;
  }
}

}  // namespace
}  // namespace gpuctl
