// The pure planner (plan/plan.hpp): which changes converge an observed NodeState to a program.
#include <gpuctl/plan/plan.hpp>

#include "program_builder.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace gpuctl {
namespace {

using testing::FileSpec;
using testing::ProgramFixture;
using testing::StepSpec;
using testing::resolved_command;
using testing::resolved_file;
using testing::resolved_package;
using testing::resolved_service;

ObservedFile observed_file(std::string content, std::uint32_t mode = 0644, std::string owner = "root",
                           std::string group = "root") {
  ObservedFile f;
  f.exists = true;
  f.digest = util::sha256_hex(content);
  f.content = std::move(content);
  f.mode = mode;
  f.owner = std::move(owner);
  f.group = std::move(group);
  return f;
}

NodePlan plan_one(std::vector<ResolvedResource> resources, const NodeState& state) {
  ProgramFixture fixture({StepSpec{"step", std::move(resources)}});
  return make_node_plan(fixture.program, state);
}

TEST(Planner, AbsentFileIsCreatedWithADiffFromNothing) {
  const auto plan = plan_one({resolved_file("/etc/nccl.conf", "NCCL_DEBUG=WARN\n", {0640, "root", "adm", false, {}})}, {});
  ASSERT_EQ(plan.changes.size(), 1u);
  const auto& c = plan.changes[0];
  EXPECT_EQ(c.action, Action::create);
  EXPECT_EQ(c.step, "step");
  EXPECT_EQ(c.resource, "file:/etc/nccl.conf");
  EXPECT_EQ(c.summary, "create /etc/nccl.conf (0640 root:adm)");
  EXPECT_EQ(c.reason, "file does not exist");
  EXPECT_EQ(c.diff, "--- /dev/null\n+++ /etc/nccl.conf\n@@ -0,0 +1,1 @@\n+NCCL_DEBUG=WARN\n");
  EXPECT_EQ(c.step_index, 0u);
  EXPECT_EQ(c.resource_index, 0u);
}

TEST(Planner, FileWithOtherContentIsUpdatedWithADiff) {
  NodeState state;
  state.files["/etc/nccl.conf"] = observed_file("NCCL_DEBUG=INFO\n");
  const auto plan = plan_one({resolved_file("/etc/nccl.conf", "NCCL_DEBUG=WARN\n")}, state);
  ASSERT_EQ(plan.changes.size(), 1u);
  const auto& c = plan.changes[0];
  EXPECT_EQ(c.action, Action::update);
  EXPECT_EQ(c.summary, "update /etc/nccl.conf");
  EXPECT_EQ(c.reason, "content differs");
  EXPECT_EQ(c.diff, "--- /etc/nccl.conf\n+++ /etc/nccl.conf\n@@ -1,1 +1,1 @@\n-NCCL_DEBUG=INFO\n+NCCL_DEBUG=WARN\n");
}

TEST(Planner, FileInItsStateNeedsNoChange) {
  NodeState state;
  state.files["/etc/x"] = observed_file("same\n", 0600, "munge", "munge");
  EXPECT_TRUE(plan_one({resolved_file("/etc/x", "same\n", {0600, "munge", "munge", false, {}})}, state).changes.empty());
}

TEST(Planner, ModeAndOwnerDifferencesAreUpdatesWithoutDiff) {
  NodeState state;
  state.files["/etc/x"] = observed_file("same\n", 0644, "root", "root");
  const auto plan = plan_one({resolved_file("/etc/x", "same\n", {0600, "munge", "munge", false, {}})}, state);
  ASSERT_EQ(plan.changes.size(), 1u);
  EXPECT_EQ(plan.changes[0].action, Action::update);
  EXPECT_EQ(plan.changes[0].reason, "mode 0644 -> 0600, owner root:root -> munge:munge");
  EXPECT_EQ(plan.changes[0].diff, "");
}

TEST(Planner, GroupAloneDiffersIsAnOwnerChange) {
  NodeState state;
  state.files["/etc/x"] = observed_file("same\n", 0644, "root", "adm");
  const auto plan = plan_one({resolved_file("/etc/x", "same\n")}, state);
  ASSERT_EQ(plan.changes.size(), 1u);
  EXPECT_EQ(plan.changes[0].reason, "owner root:adm -> root:root");
}

constexpr std::string_view k_secret = "S3CR3T-MUNGE-KEY-BYTES";

void expect_no_secret(const NodePlan& plan) {
  for (const auto& c : plan.changes) {
    EXPECT_EQ(c.diff, "") << c.summary;
    EXPECT_EQ(c.summary.find(k_secret), std::string::npos) << c.summary;
    EXPECT_EQ(c.reason.find(k_secret), std::string::npos) << c.reason;
  }
}

TEST(Planner, AbsentSecretIsCreatedWithoutDiff) {
  const auto plan = plan_one({resolved_file("/etc/munge/munge.key", std::string(k_secret), {0400, "munge", "munge", true, {}})}, {});
  ASSERT_EQ(plan.changes.size(), 1u);
  EXPECT_EQ(plan.changes[0].action, Action::create);
  EXPECT_EQ(plan.changes[0].summary, "create /etc/munge/munge.key (0400 munge:munge)");
  expect_no_secret(plan);
}

TEST(Planner, DifferingSecretIsUpdatedWithoutRevealingEitherSide) {
  NodeState state;
  ObservedFile observed;   // what the probe reports for a secret: digest only
  observed.exists = true;
  observed.digest = util::sha256_hex("OLD-KEY");
  observed.mode = 0400;
  observed.owner = observed.group = "munge";
  state.files["/etc/munge/munge.key"] = observed;
  const auto plan = plan_one({resolved_file("/etc/munge/munge.key", std::string(k_secret), {0400, "munge", "munge", true, {}})}, state);
  ASSERT_EQ(plan.changes.size(), 1u);
  EXPECT_EQ(plan.changes[0].action, Action::update);
  EXPECT_EQ(plan.changes[0].reason, "secret content differs");
  expect_no_secret(plan);
  EXPECT_EQ(plan.changes[0].reason.find("OLD-KEY"), std::string::npos);
}

TEST(Planner, MatchingSecretNeedsNoChange) {
  NodeState state;
  ObservedFile observed;
  observed.exists = true;
  observed.digest = util::sha256_hex(k_secret);
  observed.mode = 0400;
  observed.owner = observed.group = "munge";
  state.files["/etc/munge/munge.key"] = observed;
  EXPECT_TRUE(
      plan_one({resolved_file("/etc/munge/munge.key", std::string(k_secret), {0400, "munge", "munge", true, {}})}, state)
          .changes.empty());
}

struct PackageCase {
  const char* what;
  ResolvedResource wanted;
  std::optional<ObservedPackage> observed;
  std::optional<Action> action;  // nullopt: no change
  const char* summary;
};

class PlannerPackages : public ::testing::TestWithParam<PackageCase> {};

TEST_P(PlannerPackages, PlansThePackageChange) {
  const auto& p = GetParam();
  NodeState state;
  if (p.observed) state.packages[p.wanted.resource.package.name] = *p.observed;
  const auto plan = plan_one({p.wanted}, state);
  if (!p.action) {
    EXPECT_TRUE(plan.changes.empty()) << p.what << ": " << (plan.changes.empty() ? "" : plan.changes[0].summary);
    return;
  }
  ASSERT_EQ(plan.changes.size(), 1u) << p.what;
  EXPECT_EQ(plan.changes[0].action, *p.action) << p.what;
  EXPECT_EQ(plan.changes[0].summary, p.summary) << p.what;
  EXPECT_EQ(plan.changes[0].resource, "package:" + p.wanted.resource.package.name);
  EXPECT_FALSE(plan.changes[0].reason.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Table, PlannerPackages,
    ::testing::Values(
        PackageCase{"not installed", resolved_package("munge"), std::nullopt, Action::create, "install munge (none -> latest)"},
        PackageCase{"dpkg says not installed", resolved_package("munge"), ObservedPackage{false, "", false},
                    Action::create, "install munge (none -> latest)"},
        PackageCase{"not installed, versioned and held", resolved_package("nvidia-driver-550", "550.127.08", true),
                    std::nullopt, Action::create, "install nvidia-driver-550 (none -> 550.127.08), held"},
        PackageCase{"older version", resolved_package("nvidia-driver-550", "550.127.08", true),
                    ObservedPackage{true, "550.90.07-1", true}, Action::update,
                    "upgrade nvidia-driver-550 (550.90.07-1 -> 550.127.08), held"},
        PackageCase{"newer version", resolved_package("nvidia-driver-550", "550.127.08"),
                    ObservedPackage{true, "550.144.03-1", false}, Action::update,
                    "change nvidia-driver-550 (550.144.03-1 -> 550.127.08)"},
        // Versions order by their numbers, not as text: "550.127" is newer than "550.54".
        PackageCase{"older than it reads as text", resolved_package("nvidia-driver-550", "550.54.15"),
                    ObservedPackage{true, "550.127.08-1", false}, Action::update,
                    "change nvidia-driver-550 (550.127.08-1 -> 550.54.15)"},
        PackageCase{"older with an epoch", resolved_package("nvidia-driver-550", "550.127.08"),
                    ObservedPackage{true, "1:550.90.07-1", false}, Action::update,
                    "upgrade nvidia-driver-550 (1:550.90.07-1 -> 550.127.08)"},
        PackageCase{"right version with revision and held", resolved_package("nvidia-driver-550", "550.127.08", true),
                    ObservedPackage{true, "550.127.08-1", true}, std::nullopt, ""},
        PackageCase{"right version but not held", resolved_package("nvidia-driver-550", "550.127.08", true),
                    ObservedPackage{true, "550.127.08-1", false}, Action::update,
                    "hold nvidia-driver-550 at 550.127.08-1"},
        PackageCase{"any version installed", resolved_package("munge"), ObservedPackage{true, "0.5.15-2", false},
                    std::nullopt, ""},
        PackageCase{"absent and not installed", resolved_package("nouveau-dkms", "", false, PackageState::absent),
                    std::nullopt, std::nullopt, ""},
        PackageCase{"absent but installed", resolved_package("nouveau-dkms", "", false, PackageState::absent),
                    ObservedPackage{true, "1.0-1", false}, Action::remove, "remove nouveau-dkms (1.0-1)"}));

struct ServiceCase {
  const char* what;
  std::optional<bool> enabled, running;
  std::optional<ObservedService> observed;
  const char* summary;   // empty: no change
  const char* reason;
};

class PlannerServices : public ::testing::TestWithParam<ServiceCase> {};

TEST_P(PlannerServices, PlansTheServiceChange) {
  const auto& p = GetParam();
  NodeState state;
  if (p.observed) state.services["munge"] = *p.observed;
  const auto plan = plan_one({resolved_service("munge", p.enabled, p.running)}, state);
  if (std::string_view(p.summary).empty()) {
    EXPECT_TRUE(plan.changes.empty()) << p.what;
    return;
  }
  ASSERT_EQ(plan.changes.size(), 1u) << p.what;
  EXPECT_EQ(plan.changes[0].action, Action::update);
  EXPECT_EQ(plan.changes[0].resource, "service:munge");
  EXPECT_EQ(plan.changes[0].summary, p.summary) << p.what;
  EXPECT_EQ(plan.changes[0].reason, p.reason) << p.what;
}

INSTANTIATE_TEST_SUITE_P(
    Table, PlannerServices,
    ::testing::Values(
        ServiceCase{"disabled and stopped", true, true, ObservedService{true, false, false},
                    "enable and start service munge", "service is disabled, not running"},
        ServiceCase{"stopped", true, true, ObservedService{true, true, false}, "start service munge",
                    "service is enabled, not running"},
        ServiceCase{"disabled", true, true, ObservedService{true, false, true}, "enable service munge",
                    "service is disabled, running"},
        ServiceCase{"in state", true, true, ObservedService{true, true, true}, "", ""},
        ServiceCase{"wanted stopped", std::nullopt, false, ObservedService{true, true, true}, "stop service munge",
                    "service is enabled, running"},
        ServiceCase{"unmanaged aspects ignored", std::nullopt, std::nullopt, ObservedService{true, false, false}, "", ""},
        ServiceCase{"unknown to systemd", true, true, std::nullopt, "enable and start service munge",
                    "systemd did not report the service"}));

TEST(Planner, CommandRunsWhenItsCreatesGuardIsNotDone) {
  NodeState state;
  state.guards_done["curl -o /k https://x/k"] = false;
  const auto plan = plan_one({resolved_command("curl -o /k https://x/k", "/k")}, state);
  ASSERT_EQ(plan.changes.size(), 1u);
  EXPECT_EQ(plan.changes[0].action, Action::run);
  EXPECT_EQ(plan.changes[0].summary, "run `curl -o /k https://x/k`");
  EXPECT_EQ(plan.changes[0].reason, "/k does not exist");
}

TEST(Planner, CommandIsSkippedWhenItsGuardIsDone) {
  NodeState state;
  state.guards_done["update-initramfs -u"] = true;
  EXPECT_TRUE(plan_one({resolved_command("update-initramfs -u", "", "! grep -q nouveau /proc/modules")}, state).changes.empty());
  state.guards_done["touch /x"] = true;
  EXPECT_TRUE(plan_one({resolved_command("touch /x", "/x")}, state).changes.empty());
}

TEST(Planner, CommandReasonPrefersTheWrittenReasonThenTheUnlessGuard) {
  NodeState state;
  state.guards_done["a"] = false;
  const auto with_reason = plan_one({resolved_command("a", "", "test -f /y", "nouveau is loaded")}, state);
  ASSERT_EQ(with_reason.changes.size(), 1u);
  EXPECT_EQ(with_reason.changes[0].reason, "nouveau is loaded");
  const auto unless = plan_one({resolved_command("a", "", "test -f /y")}, state);
  ASSERT_EQ(unless.changes.size(), 1u);
  EXPECT_EQ(unless.changes[0].reason, "`test -f /y` failed");
}

TEST(Planner, UnguardedCommandAlwaysRunsEvenIfAGuardResultExists) {
  NodeState state;
  state.guards_done["echo hi"] = true;
  const auto plan = plan_one({resolved_command("echo hi")}, state);
  ASSERT_EQ(plan.changes.size(), 1u);
  EXPECT_EQ(plan.changes[0].reason, "the command has no guard, so it always runs");
}

std::vector<std::string> resources_of(const NodePlan& plan) {
  std::vector<std::string> out;
  for (const auto& c : plan.changes) out.push_back(c.resource);
  return out;
}

TEST(Planner, HandlerRunsOncePerStepAfterItsResourcesEvenWhenNotifiedTwice) {
  ProgramFixture fixture(
      {StepSpec{"slurm",
                {resolved_file("/etc/slurm/slurm.conf", "a\n", {.notify = {"restart-slurmd"}}),
                 resolved_file("/etc/slurm/gres.conf", "b\n", {.notify = {"restart-slurmd", "reload"}}),
                 resolved_package("slurmd")}},
       StepSpec{"other", {resolved_file("/etc/other", "c\n", {.notify = {"restart-slurmd"}})}}},
      {Handler{"restart-slurmd", "", "slurmd", ""}, Handler{"reload", "systemctl daemon-reload", "", ""}});
  const auto plan = make_node_plan(fixture.program, {});
  EXPECT_EQ(resources_of(plan),
            (std::vector<std::string>{"file:/etc/slurm/slurm.conf", "file:/etc/slurm/gres.conf", "package:slurmd",
                                      "handler:restart-slurmd", "handler:reload", "file:/etc/other",
                                      "handler:restart-slurmd"}));
  EXPECT_EQ(plan.changes[3].action, Action::restart);
  EXPECT_EQ(plan.changes[3].summary, "restart service slurmd");
  EXPECT_EQ(plan.changes[3].step_index, 0u);
  EXPECT_EQ(plan.changes[4].action, Action::run);
  EXPECT_EQ(plan.changes[4].summary, "run handler reload: `systemctl daemon-reload`");
  EXPECT_EQ(plan.changes[6].step, "other");
  EXPECT_EQ(plan.changes[6].step_index, 1u);
  EXPECT_EQ(plan.changes[5].resource_index, 0u);
  EXPECT_EQ(plan.changes[2].resource_index, 2u);
}

TEST(Planner, UnchangedResourceDoesNotNotify) {
  NodeState state;
  state.files["/etc/slurm/slurm.conf"] = observed_file("a\n");
  ProgramFixture fixture({StepSpec{"slurm", {resolved_file("/etc/slurm/slurm.conf", "a\n", {.notify = {"restart-slurmd"}}),
                                             resolved_package("slurmd")}}},
                         {Handler{"restart-slurmd", "", "slurmd", ""}});
  const auto plan = make_node_plan(fixture.program, state);
  EXPECT_EQ(resources_of(plan), std::vector<std::string>{"package:slurmd"});
}

TEST(Planner, OnChangeRebootFollowsOnlyAChangedStep) {
  NodeState state;
  state.files["/etc/modprobe.d/blacklist-nouveau.conf"] = observed_file("blacklist nouveau\n");
  ProgramFixture fixture({StepSpec{"nouveau", {resolved_file("/etc/modprobe.d/blacklist-nouveau.conf", "blacklist nouveau\n")},
                                   RebootPolicy::on_change},
                          StepSpec{"driver", {resolved_package("nvidia-driver-550", "550.127.08")}, RebootPolicy::on_change},
                          StepSpec{"toolkit", {resolved_package("cuda-toolkit-12-4")}, RebootPolicy::never}});
  const auto plan = make_node_plan(fixture.program, state);
  EXPECT_EQ(resources_of(plan), (std::vector<std::string>{"package:nvidia-driver-550", "reboot", "package:cuda-toolkit-12-4"}));
  EXPECT_EQ(plan.changes[1].action, Action::reboot);
  EXPECT_EQ(plan.changes[1].step, "driver");
  EXPECT_EQ(plan.changes[1].reason, "this step changed something that takes effect at boot");
}

// reboot: deferred (the nouveau blacklist): the next step that can reboot takes the reboot, so
// a fresh node reboots once; with nothing of its own to change that step still reboots; a
// deferred step with no rebooting step after it reboots itself.
TEST(Planner, DeferredRebootIsTakenByTheNextRebootingStep) {
  const auto blacklist = [] { return resolved_file("/etc/modprobe.d/blacklist-nouveau.conf", "blacklist nouveau\n"); };
  const auto driver = [] { return resolved_package("nvidia-driver-550", "550.127.08"); };
  {
    ProgramFixture fixture({StepSpec{"nouveau", {blacklist()}, RebootPolicy::deferred},
                            StepSpec{"repository", {resolved_file("/etc/apt/sources.list.d/x.list", "deb x\n")}},
                            StepSpec{"driver", {driver()}, RebootPolicy::on_change},
                            StepSpec{"toolkit", {resolved_package("cuda-toolkit-12-4")}}});
    const auto plan = make_node_plan(fixture.program, NodeState{});
    EXPECT_EQ(resources_of(plan),
              (std::vector<std::string>{"file:/etc/modprobe.d/blacklist-nouveau.conf", "file:/etc/apt/sources.list.d/x.list",
                                        "package:nvidia-driver-550", "reboot", "package:cuda-toolkit-12-4"}));
    ASSERT_EQ(plan.changes[3].action, Action::reboot);
    EXPECT_EQ(plan.changes[3].step, "driver");
    EXPECT_EQ(plan.changes[3].reason,
              "this step changed something that takes effect at boot; step nouveau changed something that takes effect "
              "at boot (its reboot is this one)");
  }
  {
    NodeState state;  // the driver is in place and loaded; only the blacklist drifted
    state.packages["nvidia-driver-550"] = ObservedPackage{true, "550.127.08-1", false};
    ProgramFixture fixture({StepSpec{"nouveau", {blacklist()}, RebootPolicy::deferred},
                            StepSpec{"driver", {driver()}, RebootPolicy::on_change}});
    const auto plan = make_node_plan(fixture.program, state);
    EXPECT_EQ(resources_of(plan), (std::vector<std::string>{"file:/etc/modprobe.d/blacklist-nouveau.conf", "reboot"}));
    EXPECT_EQ(plan.changes[1].step, "driver");
    EXPECT_EQ(plan.changes[1].reason, "step nouveau changed something that takes effect at boot (its reboot is this one)");
  }
  {
    ProgramFixture fixture({StepSpec{"driver", {driver()}, RebootPolicy::on_change},
                            StepSpec{"nouveau", {blacklist()}, RebootPolicy::deferred}});
    const auto plan = make_node_plan(fixture.program, NodeState{});
    EXPECT_EQ(resources_of(plan), (std::vector<std::string>{"package:nvidia-driver-550", "reboot",
                                                            "file:/etc/modprobe.d/blacklist-nouveau.conf", "reboot"}));
    EXPECT_EQ(plan.changes[3].step, "nouveau") << "no step after it reboots: it reboots itself";
  }
  {
    NodeState state;  // nothing deferred: a converged driver step does not reboot
    state.files["/etc/modprobe.d/blacklist-nouveau.conf"] = observed_file("blacklist nouveau\n");
    state.packages["nvidia-driver-550"] = ObservedPackage{true, "550.127.08-1", false};
    ProgramFixture fixture({StepSpec{"nouveau", {blacklist()}, RebootPolicy::deferred},
                            StepSpec{"driver", {driver()}, RebootPolicy::on_change}});
    EXPECT_TRUE(make_node_plan(fixture.program, state).changes.empty());
  }
}

// reboot_if: the nouveau blacklist needs a reboot only while nouveau is loaded. On a node that
// already runs the NVIDIA driver (an adopted one: nothing to install), writing the blacklist
// plans no reboot; with nouveau loaded the driver step takes the deferred one as before.
TEST(Planner, RebootIfKeepsChangesThatTakeNoEffectAtBootFromRebooting) {
  const auto blacklist = [] { return resolved_file("/etc/modprobe.d/blacklist-nouveau.conf", "blacklist nouveau\n"); };
  const auto driver = [] { return resolved_package("nvidia-driver-550", "550.127.08"); };
  ProgramFixture fixture(
      {StepSpec{"nouveau", {blacklist()}, RebootPolicy::deferred, {}, {}, "grep -q '^nouveau ' /proc/modules"},
       StepSpec{"driver", {driver()}, RebootPolicy::on_change}});
  NodeState state;
  state.packages["nvidia-driver-550"] = ObservedPackage{true, "550.127.08-1", false};
  state.changes_reboot["nouveau"] = false;  // nouveau is not loaded
  EXPECT_EQ(resources_of(make_node_plan(fixture.program, state)),
            (std::vector<std::string>{"file:/etc/modprobe.d/blacklist-nouveau.conf"}));

  state.changes_reboot["nouveau"] = true;  // loaded: the blacklist's reboot is the driver step's
  const auto plan = make_node_plan(fixture.program, state);
  EXPECT_EQ(resources_of(plan), (std::vector<std::string>{"file:/etc/modprobe.d/blacklist-nouveau.conf", "reboot"}));
  EXPECT_EQ(plan.changes[1].step, "driver");

  // reboot_unless still acts: a failed guard reboots whatever reboot_if says.
  state.changes_reboot["nouveau"] = false;
  state.reboot_needed["nouveau"] = true;
  EXPECT_EQ(resources_of(make_node_plan(fixture.program, state)),
            (std::vector<std::string>{"file:/etc/modprobe.d/blacklist-nouveau.conf", "reboot"}));
  NodeState unasked = state;
  unasked.changes_reboot.clear();
  EXPECT_NE(state.fingerprint(), unasked.fingerprint()) << "reboot_if's answer is part of the node's state";
}

TEST(Planner, FailedRebootGuardRebootsAStepWithoutChanges) {
  NodeState state;
  state.packages["nvidia-driver-550"] = ObservedPackage{true, "550.127.08-1", false};
  state.reboot_needed["driver"] = true;
  ProgramFixture fixture({StepSpec{"driver", {resolved_package("nvidia-driver-550", "550.127.08")}, RebootPolicy::on_change,
                                   "grep -q ' 550.127.08 ' /proc/driver/nvidia/version"}});
  const auto plan = make_node_plan(fixture.program, state);
  ASSERT_EQ(plan.changes.size(), 1u);
  EXPECT_EQ(plan.changes[0].action, Action::reboot);
  EXPECT_EQ(plan.changes[0].resource, "reboot");
  EXPECT_EQ(plan.changes[0].reason, "`grep -q ' 550.127.08 ' /proc/driver/nvidia/version` failed");
}

TEST(Planner, PassedRebootGuardAndNoChangesMeanNoReboot) {
  NodeState state;
  state.packages["nvidia-driver-550"] = ObservedPackage{true, "550.127.08-1", false};
  state.reboot_needed["driver"] = false;
  ProgramFixture fixture({StepSpec{"driver", {resolved_package("nvidia-driver-550", "550.127.08")}, RebootPolicy::on_change,
                                   "true"}});
  EXPECT_TRUE(make_node_plan(fixture.program, state).changes.empty());
}

// `--playbook driver-upgrade --playbook gpu-node`: both have a driver step with the same package
// and reboot guard. The second finds its install planned already and the first's reboot loads
// the new module: one install and one reboot, not two (issue #18: HGX servers take minutes).
TEST(Planner, AChangeAnEarlierStepMakesIsPlannedOnceAndItsRebootServesTheGuard) {
  NodeState state;
  state.packages["nvidia-open"] = ObservedPackage{true, "535.183.01-1", true};
  state.reboot_needed["driver"] = true;  // the module in memory is 535
  const auto driver = [] {
    return StepSpec{"driver", {resolved_package("nvidia-open", "550.127.08", true)}, RebootPolicy::on_change,
                    "grep -q ' 550.127.08 ' /proc/driver/nvidia/version"};
  };
  ProgramFixture fixture({driver(), StepSpec{"nccl", {resolved_service("nvidia-persistenced", true, true)}}, driver()});
  const auto plan = make_node_plan(fixture.program, state);
  std::vector<std::string> seen;
  for (const auto& change : plan.changes) seen.push_back(fmt::format("{} {}", change.step_index, change.resource));
  EXPECT_EQ(seen, (std::vector<std::string>{"0 package:nvidia-open", "0 reboot", "1 service:nvidia-persistenced"}));

  // Alone, the later step still reboots on its guard: nothing earlier loads the module.
  ProgramFixture alone({StepSpec{"nccl", {}}, driver()});
  state.packages["nvidia-open"] = ObservedPackage{true, "550.127.08-1", true};
  const auto guard_only = make_node_plan(alone.program, state);
  ASSERT_EQ(guard_only.changes.size(), 1u);
  EXPECT_EQ(guard_only.changes[0].action, Action::reboot);
}

TEST(Planner, ConvergedNodeHasAnEmptyPlanWithItsFingerprint) {
  NodeState state;
  state.files["/etc/x"] = observed_file("x\n");
  state.packages["munge"] = ObservedPackage{true, "0.5.15-2", true};
  state.services["munge"] = ObservedService{true, true, true};
  state.guards_done["touch /x"] = true;
  ProgramFixture fixture({StepSpec{"all",
                                   {resolved_file("/etc/x", "x\n"), resolved_package("munge", "0.5.15", true),
                                    resolved_service("munge", true, true), resolved_command("touch /x", "/x")},
                                   RebootPolicy::on_change}},
                         {}, "gpu01");
  const auto plan = make_node_plan(fixture.program, state);
  EXPECT_EQ(plan.node, "gpu01");
  EXPECT_EQ(plan.status, NodePlanStatus::planned);
  EXPECT_TRUE(plan.changes.empty());
  EXPECT_EQ(plan.state_fingerprint, state.fingerprint());
  Plan whole;
  whole.nodes.push_back(plan);
  EXPECT_FALSE(whole.has_changes());
  EXPECT_FALSE(whole.has_errors());
}

struct VersionCase {
  const char* installed;
  const char* wanted;
  bool matches;
};

class VersionMatches : public ::testing::TestWithParam<VersionCase> {};

TEST_P(VersionMatches, ComparesUpstreamVersions) {
  EXPECT_EQ(version_matches(GetParam().installed, GetParam().wanted), GetParam().matches)
      << GetParam().installed << " vs " << GetParam().wanted;
}

INSTANTIATE_TEST_SUITE_P(Table, VersionMatches,
                         ::testing::Values(VersionCase{"550.127.08", "550.127.08", true},
                                           VersionCase{"550.127.08-1", "550.127.08", true},
                                           VersionCase{"550.127.08-0ubuntu1", "550.127.08", true},
                                           VersionCase{"1:550.127.08-1", "550.127.08", true},
                                           VersionCase{"1:550.127.08", "550.127.08", true},
                                           VersionCase{"1:550.127.08-1", "1:550.127.08-1", true},
                                           VersionCase{"550.127.081-1", "550.127.08", false},
                                           VersionCase{"550.127.08.1", "550.127.08", false},
                                           VersionCase{"550.127", "550.127.08", false},
                                           VersionCase{"550.90.07-1", "550.127.08", false},
                                           VersionCase{"2:550.90.07-1", "550.127.08", false},
                                           VersionCase{"", "550.127.08", false}));

}  // namespace
}  // namespace gpuctl
