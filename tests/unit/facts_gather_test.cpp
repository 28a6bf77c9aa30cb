#include <gpuctl/facts/gather.hpp>

#include "fake_transport.hpp"

#include <gtest/gtest.h>

using namespace gpuctl;
using gpuctl::testing::FakeTransport;

TEST(GatherFacts, ReportsEachNodeOkUnreachableOrFailedWithoutStoppingOthers) {
  std::vector<Node> nodes(3);
  nodes[0].name = "gpu01";
  nodes[1].name = "gpu02";
  nodes[2].name = "gpu03";
  std::vector<const Node*> pointers{&nodes[0], &nodes[1], &nodes[2]};
  const std::string ok_output =
      "@@gpuctl-n1 begin kernel\n6.8.0-45-generic\n\n@@gpuctl-n1 end kernel rc=0\n\n@@gpuctl-n1 stderr-end kernel\n";
  const TransportFactory connect = [&](const Node& node) -> Result<std::unique_ptr<Transport>> {
    if (node.name == "gpu02") return fail(ErrorCode::transport, "connection refused");
    auto fake = std::make_unique<FakeTransport>(node.name);
    if (node.name == "gpu01") fake->on_command("@@gpuctl-n1", CommandResult{0, ok_output, "", {}});
    else fake->on_command("@@gpuctl-n1", CommandResult{0, "no markers here\n", "", {}});
    return fake;
  };
  facts::GatherOptions options;
  options.forks = 2;
  options.collect.marker_nonce = "n1";
  std::vector<std::string> seen;
  const auto outcomes = facts::gather_facts(pointers, options, connect,
                                            [&](const facts::NodeFactsOutcome& o) { seen.push_back(o.node); });
  ASSERT_EQ(outcomes.size(), 3u);
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_EQ(outcomes[0].status, exec::NodeStatus::ok);
  ASSERT_TRUE(outcomes[0].facts.has_value());
  EXPECT_EQ(outcomes[0].facts->kernel.value, "6.8.0-45-generic");
  EXPECT_FALSE(outcomes[0].facts->gpus.present()) << "a probe missing from the output is absent";
  EXPECT_EQ(outcomes[1].status, exec::NodeStatus::unreachable);
  EXPECT_NE(outcomes[1].error.find("connection refused"), std::string::npos);
  EXPECT_EQ(outcomes[2].status, exec::NodeStatus::failed);
  EXPECT_NE(outcomes[2].error.find("printed no probe output"), std::string::npos);
}
