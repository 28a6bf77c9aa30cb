// Applying a node's plan (apply/apply.hpp) through a FakeTransport in a TransportPool, and the
// known fixes for failed commands.
#include <gpuctl/apply/apply.hpp>

#include "fake_transport.hpp"
#include "program_builder.hpp"

#include <gtest/gtest.h>

#include <mutex>

namespace gpuctl {
namespace {

using testing::FakeTransport;
using testing::ForwardingTransport;
using testing::FileSpec;
using testing::ProgramFixture;
using testing::StepSpec;
using testing::resolved_command;
using testing::resolved_file;
using testing::resolved_package;
using testing::resolved_service;

struct FailureHintCase {
  const char* output;
  const char* hint_part;   // empty: no hint
};

class FailureHint : public ::testing::TestWithParam<FailureHintCase> {};

TEST_P(FailureHint, KnowsTheFix) {
  const auto hint = failure_hint(GetParam().output);
  if (std::string_view(GetParam().hint_part).empty()) EXPECT_EQ(hint, "") << GetParam().output;
  else EXPECT_NE(hint.find(GetParam().hint_part), std::string::npos) << GetParam().output << " -> " << hint;
}

INSTANTIATE_TEST_SUITE_P(
    Table, FailureHint,
    ::testing::Values(
        FailureHintCase{"E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 812", "wait for it"},
        FailureHintCase{"E: Unable to acquire the dpkg frontend lock (/var/lib/dpkg/lock-frontend)", "wait for it"},
        FailureHintCase{"E: dpkg was interrupted, you must manually run 'dpkg --configure -a'", "dpkg --configure -a"},
        FailureHintCase{"write error: No space left on device", "df -h"},
        FailureHintCase{"dpkg: error processing package nvidia-dkms-550 (--configure):\n installed nvidia-dkms-550 package "
                        "post-installation script subprocess returned error exit status 10",
                        "post-installation script failed"},
        FailureHintCase{"gpuctl: version 550.1 of nvidia-driver-550 is not in the configured repositories", "apt-cache madison"},
        FailureHintCase{"E: Unable to locate package cuda-toolkit-12-4", "repository URL and key"},
        FailureHintCase{"sudo: a password is required", "passwordless sudo"},
        FailureHintCase{"W: GPG error: ... NO_PUBKEY A4B469963BF863CC", "repository key"},
        FailureHintCase{"Segmentation fault", ""}, FailureHintCase{"", ""}));

// Hands out FakeTransports; the n-th open gets boot_id boot_ids[min(n, last)].
struct FakeNodes {
  std::vector<std::string> boot_ids{"boot-a"};
  std::function<void(FakeTransport&)> setup;
  std::vector<std::unique_ptr<FakeTransport>> opened;

  std::vector<std::string> all_commands() const {
    std::vector<std::string> out;
    for (const auto& t : opened) out.insert(out.end(), t->commands.begin(), t->commands.end());
    return out;
  }

  TransportFactory factory() {
    return [this](const Node& node) -> Result<std::unique_ptr<Transport>> {
      auto transport = std::make_unique<FakeTransport>(node.name);
      transport->files["/proc/sys/kernel/random/boot_id"] =
          boot_ids[std::min(opened.size(), boot_ids.size() - 1)] + "\n";
      if (setup) setup(*transport);
      transport->on_command("", CommandResult{0, "", "", {}});
      opened.push_back(std::move(transport));
      return std::unique_ptr<Transport>(std::make_unique<ForwardingTransport>(*opened.back()));
    };
  }
};

class RecordingHooks : public RunHooks {
 public:
  void on_step_start(const std::string&, const std::string& step) override { events.push_back("start " + step); }
  void on_step_done(const std::string&, const std::string& step, StepStatus status, std::chrono::milliseconds) override {
    events.push_back("done " + step + " " + std::string(to_string(status)));
  }
  void on_change_done(const std::string&, const Change& change, bool ok, std::chrono::milliseconds) override {
    events.push_back("change " + change.resource + (ok ? " ok" : " failed"));
  }
  std::vector<std::string> events;
};

Node test_node() {
  Node node;
  node.name = "gpu01";
  return node;
}

std::vector<std::pair<std::string, StepStatus>> step_statuses(const NodeApplyResult& result) {
  std::vector<std::pair<std::string, StepStatus>> out;
  for (const auto& s : result.steps) out.emplace_back(s.name, s.status);
  return out;
}

std::size_t index_of(const std::vector<std::string>& commands, std::string_view needle) {
  for (std::size_t i = 0; i < commands.size(); ++i)
    if (commands[i].find(needle) != std::string::npos) return i;
  return commands.size();
}

TEST(ApplyNode, ExecutesChangesInPlanOrderAndWritesFilesWithModeAndOwner) {
  ProgramFixture fixture(
      {StepSpec{"munge",
                {resolved_package("munge"),
                 resolved_file("/etc/munge/munge.key", "KEY", FileSpec{0400, "munge", "munge", true, {"restart-munge"}}),
                 resolved_service("munge", true, true)}},
       StepSpec{"converged", {}},
       StepSpec{"tools", {resolved_command("touch /opt/done", "/opt/done"), resolved_file("/etc/x.conf", "x=1\n")}}},
      {Handler{"restart-munge", "", "munge", ""}}, "gpu01");
  const auto plan = make_node_plan(fixture.program, NodeState{});
  FakeNodes nodes;
  exec::TransportPool pool(nodes.factory());
  RecordingHooks hooks;
  const auto result = apply_node(pool, test_node(), fixture.program, plan, ApplyOptions{}, hooks);

  EXPECT_FALSE(result.failed) << result.error;
  EXPECT_TRUE(result.changed);
  EXPECT_EQ(result.node, "gpu01");
  EXPECT_EQ(step_statuses(result), (std::vector<std::pair<std::string, StepStatus>>{
                                       {"munge", StepStatus::changed}, {"converged", StepStatus::ok}, {"tools", StepStatus::changed}}));
  ASSERT_EQ(nodes.opened.size(), 1u);  // one transport for the whole node
  auto& t = *nodes.opened[0];
  const auto& cmds = t.commands;
  ASSERT_EQ(cmds.size(), 6u) << ::testing::PrintToString(cmds);
  EXPECT_NE(cmds[0].find("apt-get install"), std::string::npos);
  EXPECT_EQ(cmds[1], "write /etc/munge/munge.key");
  EXPECT_NE(cmds[2].find("systemctl enable munge"), std::string::npos);
  EXPECT_NE(cmds[2].find("systemctl start munge"), std::string::npos);
  EXPECT_EQ(cmds[3], "systemctl restart munge");
  EXPECT_EQ(cmds[4], "touch /opt/done");
  EXPECT_EQ(cmds[5], "write /etc/x.conf");

  EXPECT_EQ(t.files.at("/etc/munge/munge.key"), "KEY");
  EXPECT_EQ(t.attributes.at("/etc/munge/munge.key").mode, 0400u);
  EXPECT_EQ(t.attributes.at("/etc/munge/munge.key").owner, "munge");
  EXPECT_EQ(t.attributes.at("/etc/munge/munge.key").group, "munge");
  EXPECT_EQ(t.files.at("/etc/x.conf"), "x=1\n");
  EXPECT_EQ(t.attributes.at("/etc/x.conf").mode, 0644u);
  EXPECT_EQ(t.attributes.at("/etc/x.conf").owner, "root");

  EXPECT_EQ(hooks.events.front(), "start munge");
  EXPECT_EQ(hooks.events[4], "change handler:restart-munge ok");
  EXPECT_EQ(hooks.events[5], "done munge changed");
  EXPECT_EQ(hooks.events.back(), "done tools changed");
}

TEST(ApplyNode, FailingCommandStopsTheNodeAtItsStepWithOutputTailAndHint) {
  ProgramFixture fixture({StepSpec{"repo", {resolved_file("/etc/apt/sources.list.d/cuda.list", "deb x\n")}},
                          StepSpec{"driver", {resolved_package("nvidia-driver-550", "550.127.08", true),
                                              resolved_command("echo after-the-failure")}},
                          StepSpec{"toolkit", {resolved_package("cuda-toolkit-12-4")}},
                          StepSpec{"nccl", {resolved_file("/etc/nccl.conf", "x\n")}}});
  const auto plan = make_node_plan(fixture.program, NodeState{});
  FakeNodes nodes;
  std::string output;
  for (int i = 1; i <= 30; ++i) output += "noise line " + std::to_string(i) + "\n";
  output += "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 812 (unattended-upgr)\n";
  nodes.setup = [&](FakeTransport& t) { t.on_command("nvidia-driver-550", CommandResult{100, output, "", {}}); };
  exec::TransportPool pool(nodes.factory());
  RunHooks hooks;
  const auto result = apply_node(pool, test_node(), fixture.program, plan, ApplyOptions{}, hooks);

  EXPECT_TRUE(result.failed);
  EXPECT_EQ(result.failed_step, "driver");
  EXPECT_NE(result.error.find("exited 100"), std::string::npos) << result.error;
  EXPECT_NE(result.output_tail.find("Could not get lock"), std::string::npos);
  EXPECT_EQ(result.output_tail.find("noise line 1\n"), std::string::npos) << "only the last lines: " << result.output_tail;
  EXPECT_NE(result.hint.find("wait for it"), std::string::npos) << result.hint;
  EXPECT_EQ(step_statuses(result), (std::vector<std::pair<std::string, StepStatus>>{{"repo", StepStatus::changed},
                                                                                    {"driver", StepStatus::failed},
                                                                                    {"toolkit", StepStatus::skipped},
                                                                                    {"nccl", StepStatus::skipped}}));
  const auto cmds = nodes.all_commands();
  EXPECT_EQ(index_of(cmds, "after-the-failure"), cmds.size()) << "a change after the failure ran";
  EXPECT_EQ(index_of(cmds, "cuda-toolkit"), cmds.size()) << "a later step ran";
  EXPECT_FALSE(nodes.opened[0]->files.contains("/etc/nccl.conf"));
}

TEST(ApplyNode, UnreachableNodeFailsItsFirstChangingStep) {
  ProgramFixture fixture({StepSpec{"a", {resolved_command("true")}}, StepSpec{"b", {resolved_command("true")}}});
  const auto plan = make_node_plan(fixture.program, NodeState{});
  exec::TransportPool pool([](const Node&) -> Result<std::unique_ptr<Transport>> {
    return fail(ErrorCode::transport, "connection refused");
  });
  RunHooks hooks;
  const auto result = apply_node(pool, test_node(), fixture.program, plan, ApplyOptions{}, hooks);
  EXPECT_TRUE(result.failed);
  EXPECT_EQ(result.failed_step, "a");
  EXPECT_NE(result.error.find("connection refused"), std::string::npos);
  EXPECT_EQ(step_statuses(result).back(), (std::pair<std::string, StepStatus>{"b", StepStatus::skipped}));
}

TEST(ApplyNode, EmptyPlanChangesNothing) {
  ProgramFixture fixture({StepSpec{"a", {resolved_command("true", "/x")}}});
  NodeState state;
  state.guards_done["true"] = true;
  const auto plan = make_node_plan(fixture.program, state);
  ASSERT_TRUE(plan.changes.empty());
  FakeNodes nodes;
  exec::TransportPool pool(nodes.factory());
  RunHooks hooks;
  const auto result = apply_node(pool, test_node(), fixture.program, plan, ApplyOptions{}, hooks);
  EXPECT_FALSE(result.failed);
  EXPECT_FALSE(result.changed);
  EXPECT_EQ(step_statuses(result), (std::vector<std::pair<std::string, StepStatus>>{{"a", StepStatus::ok}}));
  EXPECT_TRUE(nodes.opened.empty()) << "no connection needed for nothing";
}

TEST(ApplyNode, RebootWaitsForANewBootIdOnAFreshTransport) {
  ProgramFixture fixture({StepSpec{"driver", {resolved_package("nvidia-driver-550")}, RebootPolicy::on_change},
                          StepSpec{"after", {resolved_command("echo after")}}});
  const auto plan = make_node_plan(fixture.program, NodeState{});
  FakeNodes nodes;
  nodes.boot_ids = {"boot-a", "boot-a", "boot-b"};
  exec::TransportPool pool(nodes.factory());
  RunHooks hooks;
  ApplyOptions options;
  options.reboot_poll = std::chrono::seconds(0);
  options.reboot_timeout = std::chrono::seconds(30);
  const auto result = apply_node(pool, test_node(), fixture.program, plan, options, hooks);
  EXPECT_FALSE(result.failed) << result.error;
  EXPECT_EQ(nodes.opened.size(), 3u);
  EXPECT_NE(index_of(nodes.opened[0]->commands, "systemctl reboot"), nodes.opened[0]->commands.size());
  EXPECT_EQ(nodes.opened.back()->commands, std::vector<std::string>{"echo after"});
}

TEST(ApplyNode, NodeThatNeverComesBackFailsTheRebootStep) {
  ProgramFixture fixture({StepSpec{"driver", {resolved_package("nvidia-driver-550")}, RebootPolicy::on_change}});
  const auto plan = make_node_plan(fixture.program, NodeState{});
  FakeNodes nodes;  // every transport reports the same boot_id
  exec::TransportPool pool(nodes.factory());
  RunHooks hooks;
  ApplyOptions options;
  options.reboot_poll = std::chrono::seconds(0);
  options.reboot_timeout = std::chrono::seconds(0);
  const auto result = apply_node(pool, test_node(), fixture.program, plan, options, hooks);
  EXPECT_TRUE(result.failed);
  EXPECT_EQ(result.failed_step, "driver");
  EXPECT_NE(result.error.find("did not come back"), std::string::npos) << result.error;
}

}  // namespace
}  // namespace gpuctl
