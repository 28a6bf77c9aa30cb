// The state probe (plan/node_state.hpp): the generated script really run by /bin/sh against a
// temp dir, then parsed; hand-written probe outputs for packages, services and guards.
#include <gpuctl/verify/catalog.hpp>
#include <gpuctl/plan/node_state.hpp>

#include "probe_capture.hpp"
#include "program_builder.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <pwd.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuctl {
namespace {

namespace fs = std::filesystem;
using testing::FileSpec;
using testing::ProgramFixture;
using testing::StepSpec;
using testing::resolved_command;
using testing::resolved_file;
using testing::resolved_package;
using testing::resolved_service;

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "gpuctl-probe-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
    m_path = pattern;
  }
  ~TempDir() { fs::remove_all(m_path); }
  std::string operator/(std::string_view name) const { return (m_path / name).string(); }

 private:
  fs::path m_path;
};

void write_file(const std::string& path, std::string_view content, mode_t mode) {
  std::ofstream(path, std::ios::binary) << content;
  ::chmod(path.c_str(), mode);
}

// Runs `script` with /bin/sh and returns its standard output.
std::string run_sh(const TempDir& dir, const std::string& script) {
  const auto script_path = dir / "probe.sh";
  std::ofstream(script_path, std::ios::binary) << script;
  std::string output;
  FILE* pipe = ::popen(("/bin/sh " + script_path).c_str(), "r");
  if (!pipe) throw std::runtime_error("popen failed");
  char buffer[4096];
  std::size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output.append(buffer, n);
  ::pclose(pipe);
  return output;
}

std::string user_name() { return ::getpwuid(::geteuid())->pw_name; }
std::string group_name() { return ::getgrgid(::getegid())->gr_name; }

TEST(NodeStateProbe, RealShellRunReportsFilesGuardsAndRebootGuards) {
  TempDir dir;
  // NUL and high bytes, and lines that look like probe sections: content is read by size.
  static constexpr char k_raw[] = "\x00\x01\xff\xfe\n@@done\n@@file 0 644 root root 3\nend";
  const std::string binary(k_raw, sizeof k_raw - 1);
  write_file(dir / "plain.conf", "a=1\nb=2\n", 0640);
  write_file(dir / "no-newline.conf", "last line", 0600);
  write_file(dir / "binary.bin", binary, 0644);
  write_file(dir / "empty.conf", "", 0644);
  write_file(dir / "munge.key", "KEY-BYTES", 0400);
  write_file(dir / "marker", "", 0644);

  ProgramFixture fixture(
      {StepSpec{"files",
                {resolved_file(dir / "plain.conf", "a=1\n"), resolved_file(dir / "missing.conf", "x"),
                 resolved_file(dir / "no-newline.conf", "x"), resolved_file(dir / "binary.bin", "x"),
                 resolved_file(dir / "empty.conf", "x"),
                 resolved_file(dir / "munge.key", "KEY-BYTES", FileSpec{0400, "munge", "munge", true, {}})}},
       StepSpec{"guards",
                {resolved_command("touch marker", dir / "marker"), resolved_command("touch other", dir / "other"),
                 resolved_command("fix-a", "", "true"), resolved_command("fix-b", "", "exit 3"),
                 resolved_command("unguarded")},
                RebootPolicy::on_change, "false"},
       StepSpec{"ok-boot", {}, RebootPolicy::on_change, "test -e " + (dir / "marker")},
       StepSpec{"boot-if-marker", {}, RebootPolicy::on_change, {}, {}, "test -e " + (dir / "marker")},
       StepSpec{"boot-if-other", {}, RebootPolicy::on_change, {}, {}, "test -e " + (dir / "other")}});

  const auto output = run_sh(dir, node_state_script(fixture.program));
  const auto state = parse_node_state(fixture.program, output);
  ASSERT_TRUE(state) << state.error().to_string() << "\n" << output;

  const auto& plain = state->files.at(dir / "plain.conf");
  EXPECT_TRUE(plain.exists);
  EXPECT_EQ(plain.content, "a=1\nb=2\n");
  EXPECT_EQ(plain.digest, util::sha256_hex("a=1\nb=2\n"));
  EXPECT_EQ(plain.mode, 0640u);
  EXPECT_EQ(plain.owner, user_name());
  EXPECT_EQ(plain.group, group_name());

  EXPECT_FALSE(state->files.at(dir / "missing.conf").exists);

  const auto& no_newline = state->files.at(dir / "no-newline.conf");
  EXPECT_EQ(no_newline.content, "last line");
  EXPECT_EQ(no_newline.mode, 0600u);

  const auto& bin = state->files.at(dir / "binary.bin");
  EXPECT_EQ(bin.content, binary);
  EXPECT_EQ(bin.digest, util::sha256_hex(binary));

  const auto& empty = state->files.at(dir / "empty.conf");
  EXPECT_TRUE(empty.exists);
  EXPECT_EQ(empty.content, "");

  const auto& secret = state->files.at(dir / "munge.key");
  EXPECT_TRUE(secret.exists);
  EXPECT_EQ(secret.content, "");  // only the digest travels
  EXPECT_EQ(secret.digest, util::sha256_hex("KEY-BYTES"));
  EXPECT_EQ(secret.mode, 0400u);
  EXPECT_EQ(output.find("KEY-BYTES"), std::string::npos);

  EXPECT_TRUE(state->guards_done.at("touch marker"));
  EXPECT_FALSE(state->guards_done.at("touch other"));
  EXPECT_TRUE(state->guards_done.at("fix-a"));
  EXPECT_FALSE(state->guards_done.at("fix-b"));
  EXPECT_FALSE(state->guards_done.contains("unguarded"));
  EXPECT_TRUE(state->reboot_needed.at("guards"));
  EXPECT_FALSE(state->reboot_needed.at("ok-boot"));
  EXPECT_FALSE(state->reboot_needed.contains("files"));
  EXPECT_TRUE(state->changes_reboot.at("boot-if-marker"));
  EXPECT_FALSE(state->changes_reboot.at("boot-if-other"));
  EXPECT_FALSE(state->changes_reboot.contains("ok-boot"));
}

// CommandResource: "It runs when neither guard says it is done already."
TEST(NodeStateProbe, CommandWithBothGuardsIsDoneWhenEitherSaysSo) {
  TempDir dir;
  write_file(dir / "exists", "", 0644);
  ProgramFixture fixture({StepSpec{"s",
                                   {resolved_command("a", dir / "exists", "false"), resolved_command("b", dir / "nope", "true"),
                                    resolved_command("c", dir / "nope", "false")}}});
  const auto state = parse_node_state(fixture.program, run_sh(dir, node_state_script(fixture.program)));
  ASSERT_TRUE(state) << state.error().to_string();
  EXPECT_TRUE(state->guards_done.at("a"));
  EXPECT_TRUE(state->guards_done.at("b"));
  EXPECT_FALSE(state->guards_done.at("c"));
}

TEST(NodeStateProbe, PathsWithSpacesAndQuotesAreQuoted) {
  TempDir dir;
  const auto odd = dir / "it's a file";
  write_file(odd, "odd\n", 0644);
  ProgramFixture fixture({StepSpec{"s", {resolved_file(odd, "odd\n")}}});
  const auto state = parse_node_state(fixture.program, run_sh(dir, node_state_script(fixture.program)));
  ASSERT_TRUE(state) << state.error().to_string();
  EXPECT_EQ(state->files.at(odd).content, "odd\n");
}

TEST(NodeStateProbe, PackagesGoToTheBatchsDpkgQueryAndServicesToOneSystemctlShow) {
  ProgramFixture fixture({StepSpec{"a", {resolved_package("munge"), resolved_service("munge", true, true)}},
                          StepSpec{"b", {resolved_package("munge"), resolved_package("slurmd"),
                                         resolved_service("slurmd", true, true)}}});
  const auto script = node_state_script(fixture.program);
  EXPECT_EQ(script.find("dpkg-query"), std::string::npos) << "the facts batch asks dpkg once for both";
  EXPECT_EQ(program_packages(fixture.program), (std::vector<std::string>{"munge", "slurmd"}));
  const auto options = node_probe_options(fixture.program);
  EXPECT_EQ(options.exact_packages, (std::vector<std::string>{"munge", "slurmd"}));
  EXPECT_EQ(options.state_script, node_state_script(fixture.program));
  EXPECT_NE(script.find("systemctl show --property=Id,LoadState,UnitFileState,ActiveState,Result -- munge slurmd"),
            std::string::npos) << script;
  EXPECT_NE(script.find("@@done"), std::string::npos);
}

TEST(NodeStateProbe, PlanAsksNoGpuExtrasVerifyOnlyWhatItsChecksRead) {
  ProgramFixture plain({StepSpec{"s", {resolved_package("x")}, RebootPolicy::never, "", {"gpu_count"}}});
  ProgramFixture deep({StepSpec{"s", {resolved_package("x")}, RebootPolicy::never, "", {"row_remap", "nvlink_topology"}}});
  for (const auto* fixture : {&plain, &deep}) {
    const auto plan = node_probe_options(fixture->program);
    ASSERT_TRUE(plan.optional_probes);
    EXPECT_TRUE(plan.optional_probes->empty());
  }
  const auto verify_options = [](const NodeProgram& program) {
    return node_probe_options(program, check_needs(program.checks()).probe_extras());
  };
  const auto shallow = verify_options(plain.program);
  EXPECT_FALSE(shallow.optional_probes->contains("remapped_rows"));
  EXPECT_FALSE(shallow.optional_probes->contains("topology"));
  const auto verify = verify_options(deep.program);
  EXPECT_TRUE(verify.optional_probes->contains("remapped_rows"));
  EXPECT_TRUE(verify.optional_probes->contains("topology"));
  EXPECT_TRUE(verify.optional_probes->contains("nvlink"));
}

TEST(NodeStateParse, ReadsPackagesFromTheBatchsDpkgLines) {
  ProgramFixture fixture({StepSpec{"s", {resolved_package("nvidia-driver-550"), resolved_package("munge"),
                                         resolved_package("old"), resolved_package("conf-only"),
                                         resolved_package("half"), resolved_package("libc6")}}});
  // dpkg-query -W -f='${Package}\t${Version}\t${Status}\n': Status is "want error state".
  const auto state = parse_node_state(fixture.program, "@@done\n", {},
                                      "nvidia-driver-550\t550.127.08-1\tinstall ok installed\n"
                                      "munge\t0.5.15-2\thold ok installed\n"
                                      "old\t\tunknown ok not-installed\n"
                                      "conf-only\t1.0-1\tdeinstall ok config-files\n"
                                      "half\t2.0-1\tinstall reinstreq half-configured\n"
                                      "linux-image-6.1.0-28-amd64\t6.1.119-1\tinstall ok installed\n"
                                      // A multi-arch pair: amd64 installed, i386 removed.
                                      "libc6\t2.36-9\tinstall ok installed\n"
                                      "libc6\t2.36-9\tdeinstall ok config-files\n");
  ASSERT_TRUE(state) << state.error().to_string();
  const auto& driver = state->packages.at("nvidia-driver-550");
  EXPECT_TRUE(driver.installed);
  EXPECT_FALSE(driver.held);
  EXPECT_EQ(driver.version, "550.127.08-1");
  const auto& munge = state->packages.at("munge");
  EXPECT_TRUE(munge.installed);
  EXPECT_TRUE(munge.held);
  EXPECT_EQ(munge.version, "0.5.15-2");
  // Known to dpkg-query only as another package's dependency: absent, as the status-file
  // reader (the probe's usual path) leaves it out; both paths give the same state.
  EXPECT_FALSE(state->packages.contains("old"));
  EXPECT_TRUE(state->packages.at("libc6").installed) << "the installed half of a multi-arch pair counts";
  EXPECT_FALSE(state->packages.at("conf-only").installed);
  EXPECT_FALSE(state->packages.at("half").installed);
  EXPECT_FALSE(state->packages.contains("linux-image-6.1.0-28-amd64")) << "not the program's";
}

TEST(NodeStateParse, ReadsEveryServiceFromOneRealSystemctlShow) {
  ProgramFixture fixture({StepSpec{"s", {resolved_service("ssh", true, true), resolved_service("munge", true, true),
                                         resolved_service("nope", true, true),
                                         resolved_service("systemd-journald", true, true)}}});
  const auto show = testing::read_test_data("systemd/show-ssh-munge-nope-journald.txt");
  auto state = parse_node_state(fixture.program, "@@svcshow\n" + show + "@@svcshow-end 0\n@@done\n");
  ASSERT_TRUE(state) << state.error().to_string();
  EXPECT_TRUE(state->services.at("ssh").known);
  EXPECT_TRUE(state->services.at("ssh").enabled);
  EXPECT_TRUE(state->services.at("ssh").running);
  EXPECT_TRUE(state->services.at("nope").known);
  EXPECT_FALSE(state->services.at("nope").enabled);
  EXPECT_FALSE(state->services.at("nope").running);
  EXPECT_TRUE(state->services.at("systemd-journald").enabled) << "static counts as enabled";
  // systemd's words are kept, so verify can say "not installed" rather than "not running".
  EXPECT_EQ(state->services.at("nope").load_state, "not-found");
  EXPECT_EQ(state->services.at("nope").active_state, "inactive");
  EXPECT_EQ(state->services.at("ssh").unit_file_state, "enabled");

  // A block missing (the answer does not match the question) is an error, not a guess.
  const auto cut = show.substr(0, show.rfind("\n\nId="));
  EXPECT_FALSE(parse_node_state(fixture.program, "@@svcshow\n" + cut + "\n@@svcshow-end 0\n@@done\n"));
  // A manager that does not answer leaves the services unknown.
  state = parse_node_state(fixture.program, "@@svcshow\n@@svcshow-end 1\n@@done\n");
  ASSERT_TRUE(state) << state.error().to_string();
  EXPECT_TRUE(state->services.empty());
}

TEST(NodeStateParse, WithoutARunningSystemdUnitFilesSayWhatIsEnabled) {
  ProgramFixture fixture({StepSpec{"s", {resolved_service("ssh", true, true), resolved_service("nope", true, true),
                                         resolved_service("systemd-journald", true, true)}}});
  const auto script = node_state_script(fixture.program);
  EXPECT_NE(script.find("elif [ -d /run/systemd/system ]; then"), std::string::npos) << script;
  EXPECT_NE(script.find("systemctl list-unit-files --no-legend --no-pager -- ssh.service nope.service systemd-journald.service"),
            std::string::npos) << script;
  const auto listed = testing::read_test_data("systemd/list-unit-files-ssh-munge-nope-slurmd-journald.txt");
  const auto state = parse_node_state(fixture.program, "@@unitfiles\n" + listed + "@@unitfiles-end\n@@done\n");
  ASSERT_TRUE(state) << state.error().to_string();
  EXPECT_TRUE(state->services.at("ssh").known);
  EXPECT_TRUE(state->services.at("ssh").enabled);
  EXPECT_FALSE(state->services.at("ssh").running) << "no manager: nothing is known to run";
  EXPECT_FALSE(state->services.at("nope").enabled);
  EXPECT_TRUE(state->services.at("systemd-journald").enabled);
}

TEST(NodeStateParse, ReadsServiceStates) {
  ProgramFixture fixture({StepSpec{"s", {resolved_service("munge", true, true)}}});
  const auto state = parse_node_state(fixture.program,
                                      "@@svc munge enabled active\n"
                                      "@@svc slurmd disabled inactive\n"
                                      "@@svc udev static activating\n"
                                      "@@svc nope ? ?\n"
                                      "@@svc gone not-found inactive\n"
                                      "@@done\n");
  ASSERT_TRUE(state) << state.error().to_string();
  EXPECT_TRUE(state->services.at("munge").known);
  EXPECT_TRUE(state->services.at("munge").enabled);
  EXPECT_TRUE(state->services.at("munge").running);
  EXPECT_FALSE(state->services.at("slurmd").enabled);
  EXPECT_FALSE(state->services.at("slurmd").running);
  EXPECT_TRUE(state->services.at("udev").enabled);
  EXPECT_TRUE(state->services.at("udev").running);
  EXPECT_FALSE(state->services.at("nope").known);
  EXPECT_TRUE(state->services.at("gone").known);
  EXPECT_FALSE(state->services.at("gone").enabled);
}

TEST(NodeStateParse, ReadsGuardsByResourceIndexAcrossSteps) {
  ProgramFixture fixture({StepSpec{"a", {resolved_file("/etc/x", "x"), resolved_command("one", "/one")}},
                          StepSpec{"b", {resolved_command("two", "", "true")}}});
  const auto state = parse_node_state(fixture.program, "@@stat\n@@stat-end\n@@guard 1 1\n@@guard 2 0\n@@done\n");
  ASSERT_TRUE(state) << state.error().to_string();
  EXPECT_FALSE(state->guards_done.at("one"));
  EXPECT_TRUE(state->guards_done.at("two"));
  EXPECT_FALSE(state->files.at("/etc/x").exists);
}

TEST(NodeStateParse, IgnoresNoiseBetweenSections) {
  ProgramFixture fixture({StepSpec{"a", {resolved_command("one", "/one")}}});
  const auto state = parse_node_state(fixture.program, "motd: welcome\n\n@@guard 0 0\nstray line\n@@done\n");
  ASSERT_TRUE(state) << state.error().to_string();
  EXPECT_TRUE(state->guards_done.at("one"));
}

TEST(NodeStateParse, TruncatedOutputIsAnError) {
  ProgramFixture fixture({StepSpec{"a", {resolved_command("one", "/one")}}});
  const auto state = parse_node_state(fixture.program, "@@guard 0 0\n");
  ASSERT_FALSE(state);
  EXPECT_EQ(state.error().code, ErrorCode::parse);
  EXPECT_NE(state.error().message.find("did not finish"), std::string::npos);
}

TEST(NodeStateParse, FileContentShorterThanItsSizeIsAnError) {
  ProgramFixture fixture({StepSpec{"a", {resolved_file("/etc/x", "x")}}});
  const auto state = parse_node_state(fixture.program, "@@stat\n644 root root 100 /etc/x\n@@stat-end\n@@cat\nshort\n@@cat-end\n@@done\n");
  ASSERT_FALSE(state);
  EXPECT_NE(state.error().message.find("do not add up"), std::string::npos) << state.error().message;
}

TEST(NodeStateParse, FilesWithoutTheirSectionOrASecretWithoutItsDigestAreErrors) {
  ProgramFixture fixture({StepSpec{"a", {resolved_file("/etc/x", "x"),
                                         resolved_file("/etc/munge/munge.key", "k", FileSpec{0400, "munge", "munge", true, {}})}}});
  auto state = parse_node_state(fixture.program, "@@done\n");
  ASSERT_FALSE(state);
  EXPECT_NE(state.error().message.find("no file section"), std::string::npos) << state.error().message;
  state = parse_node_state(fixture.program, "@@stat\n400 munge munge 1024 /etc/munge/munge.key\n@@stat-end\n@@done\n");
  ASSERT_FALSE(state);
  EXPECT_NE(state.error().message.find("no digest for /etc/munge/munge.key"), std::string::npos) << state.error().message;
  state = parse_node_state(fixture.program, "@@stat\n400 munge munge 1024 /etc/munge/munge.key\n@@stat-end\n@@sha\n" +
                                                std::string(64, 'a') + "  /etc/munge/munge.key\n@@sha-end\n@@done\n");
  ASSERT_TRUE(state) << state.error().to_string();
  EXPECT_FALSE(state->files.at("/etc/x").exists);
  EXPECT_EQ(state->files.at("/etc/munge/munge.key").digest, std::string(64, 'a'));
}

TEST(NodeStateParse, SectionNamingAResourceThatIsNotThereIsAnError) {
  ProgramFixture fixture({StepSpec{"a", {resolved_command("one", "/one")}}});
  EXPECT_FALSE(parse_node_state(fixture.program, "@@stat\n644 root root 1 /etc/x\n@@stat-end\n@@done\n"));  // no such file
  EXPECT_FALSE(parse_node_state(fixture.program, "@@guard 7 0\n@@done\n"));  // no resource 7
  EXPECT_FALSE(parse_node_state(fixture.program, "@@reboot 3 1\n@@done\n")); // no step 3
}

NodeState sample_state() {
  NodeState state;
  ObservedFile f;
  f.exists = true;
  f.digest = util::sha256_hex("a");
  f.mode = 0644;
  f.owner = f.group = "root";
  state.files["/etc/x"] = f;
  state.packages["munge"] = ObservedPackage{true, "0.5.15-2", false};
  state.facts.boot_id = Fact<std::string>::of("boot-1");
  GpuInfo gpu;
  gpu.temperature_c = 40;
  gpu.power_draw_w = 100;
  state.facts.gpus = Fact<std::vector<GpuInfo>>::of({gpu});
  state.facts.uptime_s = Fact<double>::of(1000);
  return state;
}

TEST(NodeStateFingerprint, ChangesWhenAFileDigestChanges) {
  const auto before = sample_state();
  auto after = sample_state();
  after.files["/etc/x"].digest = util::sha256_hex("b");
  EXPECT_EQ(before.fingerprint(), sample_state().fingerprint());
  EXPECT_NE(before.fingerprint(), after.fingerprint());
}

TEST(NodeStateFingerprint, ChangesWithPackagesAndTheBootId) {
  auto held = sample_state();
  held.packages["munge"].held = true;
  EXPECT_NE(sample_state().fingerprint(), held.fingerprint());
  auto rebooted = sample_state();
  rebooted.facts.boot_id = Fact<std::string>::of("boot-2");
  EXPECT_NE(sample_state().fingerprint(), rebooted.fingerprint());
}

TEST(NodeStateFingerprint, IgnoresTemperaturePowerAndUptime) {
  auto warmer = sample_state();
  (*warmer.facts.gpus.value)[0].temperature_c = 75;
  (*warmer.facts.gpus.value)[0].power_draw_w = 650;
  warmer.facts.uptime_s = Fact<double>::of(99999);
  EXPECT_EQ(sample_state().fingerprint(), warmer.fingerprint());
}

TEST(NodeStateFingerprint, IgnoresTheNodesSlurmState) {
  auto drained = sample_state();
  drained.slurm_node = ObservedSlurmNode{true, 0, "NodeName=node01 State=IDLE+DRAIN\n"};
  EXPECT_EQ(sample_state().fingerprint(), drained.fingerprint());
}

// A stand-in `scontrol` on PATH that prints `output` and exits `rc`.
void fake_scontrol(const TempDir& dir, const std::string& output, int rc) {
  fs::create_directories(dir / "bin");
  write_file(dir / "bin/output.txt", output, 0644);
  write_file(dir / "bin/scontrol",
             "#!/bin/sh\n[ \"$1 $2 $3\" = 'show node node01' ] || exit 99\ncat '" + (dir / "bin/output.txt") +
                 "'\nexit " + std::to_string(rc) + "\n",
             0755);
}

ProgramFixture slurm_program(std::vector<std::string> checks) {
  return ProgramFixture({StepSpec{"slurm", {}, RebootPolicy::never, "", std::move(checks)}});
}

TEST(NodeStateProbe, AsksScontrolOnlyWhenAStepChecksTheRegistration) {
  const auto active = slurm_program({"slurmd_active"});
  EXPECT_EQ(node_state_script(active.program, check_needs(active.program.checks()).probe_extras()).find("scontrol"),
            std::string::npos);
  const auto registered = slurm_program({"slurmd_active", "slurmd_registered"});
  const auto script = node_state_script(registered.program, check_needs(registered.program.checks()).probe_extras());
  EXPECT_NE(script.find("scontrol show node node01"), std::string::npos) << script;
  EXPECT_EQ(node_state_script(registered.program).find("scontrol"), std::string::npos)
      << "a plan does not read Slurm's view of the node";
  const auto state = parse_node_state(slurm_program({}).program, "@@done\n");
  ASSERT_TRUE(state);
  EXPECT_FALSE(state->slurm_node);
}

TEST(NodeStateProbe, RealShellRunCapturesScontrolOutputAndExitCode) {
  TempDir dir;
  // Lines that look like probe sections: the output is read by size.
  const std::string output = "NodeName=node01 Arch=x86_64\n@@done\n   State=IDLE\n";
  fake_scontrol(dir, output, 0);
  const auto fixture = slurm_program({"slurmd_registered"});
  const auto script = "PATH='" + (dir / "bin") + "':$PATH; export PATH\n" + node_state_script(fixture.program, ProbeExtras{.facts = {}, .slurm_node_view = true});
  auto state = parse_node_state(fixture.program, run_sh(dir, script));
  ASSERT_TRUE(state) << state.error().to_string();
  ASSERT_TRUE(state->slurm_node);
  EXPECT_TRUE(state->slurm_node->scontrol_found);
  EXPECT_EQ(state->slurm_node->exit_code, 0);
  EXPECT_EQ(state->slurm_node->output, "NodeName=node01 Arch=x86_64\n@@done\n   State=IDLE");

  fake_scontrol(dir, "Node node01 not found\n", 1);
  state = parse_node_state(fixture.program, run_sh(dir, script));
  ASSERT_TRUE(state) << state.error().to_string();
  EXPECT_EQ(state->slurm_node->exit_code, 1);
  EXPECT_EQ(state->slurm_node->output, "Node node01 not found");
}

TEST(NodeStateProbe, RealShellRunReportsAMissingScontrol) {
  TempDir dir;
  fs::create_directories(dir / "empty");
  const auto fixture = slurm_program({"slurmd_registered"});
  const auto script = "PATH='" + (dir / "empty") + "'; export PATH\n" + node_state_script(fixture.program, ProbeExtras{.facts = {}, .slurm_node_view = true});
  const auto state = parse_node_state(fixture.program, run_sh(dir, script));
  ASSERT_TRUE(state) << state.error().to_string();
  ASSERT_TRUE(state->slurm_node);
  EXPECT_FALSE(state->slurm_node->scontrol_found);
}

TEST(NodeStateParse, RejectsAScontrolSectionCutShort) {
  const auto fixture = slurm_program({"slurmd_registered"});
  EXPECT_FALSE(parse_node_state(fixture.program, "@@slurm 0 500\nNodeName=x\n@@done\n"));
  EXPECT_FALSE(parse_node_state(fixture.program, "@@slurm x 5\nhello\n@@done\n"));
}

}  // namespace
}  // namespace gpuctl
