// Collecting a node's state (facts/state_probe.hpp): the facts batch, then the planner's probe
// script on the same transport; and the pure parse that puts the two together
// (plan/node_state.hpp), so plan/ itself does no I/O.
#include <gpuctl/facts/state_probe.hpp>
#include <gpuctl/plan/node_state.hpp>

#include "fake_transport.hpp"
#include "program_builder.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace gpuctl {
namespace {

using testing::FakeTransport;

// Answers the facts batch with one probe (the kernel release) under the batch's own nonce,
// and records the options of every command.
class ProbedNode : public FakeTransport {
 public:
  using FakeTransport::FakeTransport;
  std::vector<CommandOptions> options;

  Result<CommandResult> run(const std::string& command, const CommandOptions& opts = {}) override {
    options.push_back(opts);
    std::smatch nonce;
    if (std::regex_search(command, nonce, std::regex("@@gpuctl-([0-9a-f]+)"))) {
      commands.push_back(command);
      const auto m = "@@gpuctl-" + nonce[1].str();
      return CommandResult{0, m + " begin kernel\n6.8.0-45-generic\n" + m + " end kernel rc=0\n\n" + m + " stderr-end kernel\n", "", {}};
    }
    return FakeTransport::run(command, opts);
  }
};

TEST(StateProbe, CollectsFactsThenRunsTheScriptWithShOnTheSameTransport) {
  ProbedNode node("gpu07");
  node.on_command("sh -s", CommandResult{0, "@@done\n", "", {}});
  const auto probe = facts::run_state_probe(node, "echo '@@done'\n", true);
  ASSERT_TRUE(probe) << probe.error().to_string();
  ASSERT_EQ(node.commands.size(), 2u);
  EXPECT_EQ(node.commands[1], "sh -s");
  EXPECT_EQ(node.options[1].stdin_data, "echo '@@done'\n");
  EXPECT_TRUE(node.options[1].become);
  EXPECT_EQ(node.options[1].timeout, std::chrono::seconds(120));
  EXPECT_FALSE(node.options[0].become) << "the facts batch never needs root";
  EXPECT_EQ(probe->facts.node, "gpu07");
  EXPECT_EQ(probe->facts.kernel.value, "6.8.0-45-generic");
  EXPECT_EQ(probe->output, "@@done\n");
}

TEST(StateProbe, ScriptExitingNonZeroIsATransportErrorQuotingItsStderr) {
  ProbedNode node;
  node.on_command("sh -s", CommandResult{2, "", "sh: 3: Syntax error\n", {}});
  const auto probe = facts::run_state_probe(node, "if\n");
  ASSERT_FALSE(probe);
  EXPECT_EQ(probe.error().code, ErrorCode::transport);
  EXPECT_NE(probe.error().message.find("state probe exited 2: sh: 3: Syntax error"), std::string::npos)
      << probe.error().message;
}

TEST(StateProbe, UnreachableNodeFailsBeforeTheScriptRuns) {
  FakeTransport node;
  node.fail_commands_with(Error{ErrorCode::transport, "connection refused", {}, {}});
  const auto probe = facts::run_state_probe(node, "echo '@@done'\n");
  ASSERT_FALSE(probe);
  EXPECT_EQ(probe.error().code, ErrorCode::transport);
  EXPECT_EQ(probe.error().message, "connection refused");
  EXPECT_EQ(node.commands.size(), 1u);
}

TEST(NodeStateParse, KeepsTheFactsCollectedBesideTheProbe) {
  testing::ProgramFixture fixture{std::vector<testing::StepSpec>{}};
  NodeFacts facts;
  facts.node = "gpu07";
  facts.kernel = Fact<std::string>::of("6.8.0-45-generic");
  const auto state = parse_node_state(fixture.program, "@@done\n", facts);
  ASSERT_TRUE(state) << state.error().to_string();
  EXPECT_EQ(state->facts.node, "gpu07");
  EXPECT_EQ(state->facts.kernel.value, "6.8.0-45-generic");
  EXPECT_FALSE(parse_node_state(fixture.program, "cut short\n", facts)) << "output that is not the probe's";
}

}  // namespace
}  // namespace gpuctl
