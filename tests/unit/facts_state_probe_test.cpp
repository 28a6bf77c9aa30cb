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

// Answers the batch (sent on stdin to `sh -s`) under its own nonce: the kernel release, the
// packages and the state probe's stdout and stderr; records the options of every command.
class ProbedNode : public FakeTransport {
 public:
  using FakeTransport::FakeTransport;
  std::vector<CommandOptions> options;
  std::string state_out = "@@done\n";
  std::string state_err;
  int state_rc = 0;

  Result<CommandResult> run(const std::string& command, const CommandOptions& opts = {}) override {
    options.push_back(opts);
    std::smatch nonce;
    if (command != "sh -s" || !std::regex_search(opts.stdin_data, nonce, std::regex("@@gpuctl-([0-9a-f]+)")))
      return FakeTransport::run(command, opts);
    commands.push_back(command);
    const auto m = "@@gpuctl-" + nonce[1].str();
    const auto block = [&](const std::string& name, const std::string& text, int rc) {
      return m + " begin " + name + "\n" + text + "\n" + m + " end " + name + " rc=" + std::to_string(rc) + "\n";
    };
    std::string out = block("kernel", "6.8.0-45-generic", 0) +
                      block("packages", "munge\t0.5.15-2\thold ok installed\n", 0);
    if (opts.stdin_data.find("p_state()") != std::string::npos) out += block("state", state_out, state_rc);
    const std::string err = m + " begin state\n" + state_err + "\n" + m + " end state\n";
    return CommandResult{0, out, err, std::chrono::milliseconds(42)};
  }
};

facts::CollectOptions with_state(std::string script) {
  facts::CollectOptions options;
  options.state_script = std::move(script);
  return options;
}

TEST(StateProbe, OneRoundTripRunsFactsAndTheStateScriptTogether) {
  ProbedNode node("gpu07");
  const auto probe = facts::run_state_probe(node, with_state("echo '@@done'"), true);
  ASSERT_TRUE(probe) << probe.error().to_string();
  ASSERT_EQ(node.commands.size(), 1u) << "one round trip";
  EXPECT_EQ(node.commands[0], "sh -s");
  EXPECT_NE(node.options[0].stdin_data.find("p_state() {\necho '@@done'\n}"), std::string::npos)
      << node.options[0].stdin_data;
  EXPECT_TRUE(node.options[0].become) << "the batch runs through sudo when the state needs root";
  EXPECT_EQ(probe->facts.node, "gpu07");
  EXPECT_EQ(probe->facts.kernel.value, "6.8.0-45-generic");
  EXPECT_EQ(probe->output, "@@done\n");
  EXPECT_EQ(probe->package_lines, "munge\t0.5.15-2\thold ok installed\n");
  EXPECT_EQ(probe->duration, std::chrono::milliseconds(42));
  EXPECT_FALSE(probe->facts.sources.contains("state")) << "file contents are no check's source";
}

TEST(StateProbe, ScriptExitingNonZeroIsATransportErrorQuotingItsStderr) {
  ProbedNode node;
  node.state_rc = 2;
  node.state_err = "sh: 3: Syntax error";
  const auto probe = facts::run_state_probe(node, with_state("if"));
  ASSERT_FALSE(probe);
  EXPECT_EQ(probe.error().code, ErrorCode::transport);
  EXPECT_NE(probe.error().message.find("state probe exited 2: sh: 3: Syntax error"), std::string::npos)
      << probe.error().message;
}

TEST(StateProbe, BatchWithoutTheStateProbeIsAnError) {
  ProbedNode node;
  const auto probe = facts::run_state_probe(node, facts::CollectOptions{});
  ASSERT_FALSE(probe);
  EXPECT_NE(probe.error().message.find("the state probe did not run"), std::string::npos) << probe.error().message;
}

TEST(StateProbe, UnreachableNodeIsTheTransportsError) {
  FakeTransport node;
  node.fail_commands_with(Error{ErrorCode::transport, "connection refused", {}, {}});
  const auto probe = facts::run_state_probe(node, with_state("echo '@@done'"));
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
