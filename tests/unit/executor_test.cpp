#include <gpuctl/exec/executor.hpp>
#include <gpuctl/exec/remote_exec.hpp>
#include <gpuctl/exec/transport_pool.hpp>
#include <gpuctl/util/open_files.hpp>

#include "fake_transport.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <stdexcept>
#include <thread>

#include <sys/resource.h>

using namespace gpuctl;
using namespace gpuctl::exec;
using namespace std::chrono_literals;

namespace {

struct Cluster {
  std::vector<Node> nodes;
  std::vector<const Node*> pointers;
  explicit Cluster(int count) {
    for (int i = 1; i <= count; ++i) {
      Node node;
      node.name = "node" + std::to_string(100 + i).substr(1);
      nodes.push_back(node);
    }
    for (const auto& node : nodes) pointers.push_back(&node);
  }
};

ExecOptions command(std::string text) {
  ExecOptions options;
  options.command = std::move(text);
  return options;
}

}  // namespace

TEST(Executor, NeverRunsMoreNodesAtOnceThanForks) {
  Cluster cluster(12);
  std::atomic<int> in_flight{0}, peak{0};
  const auto task = [&](std::size_t, const Node&) {
    const int now = ++in_flight;
    int seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(20ms);
    --in_flight;
    return TaskResult{};
  };
  const auto outcomes = run_on_nodes(cluster.pointers, task, {.forks = 3});
  EXPECT_EQ(peak.load(), 3);
  ASSERT_EQ(outcomes.size(), 12u);
  for (const auto& outcome : outcomes) EXPECT_EQ(outcome.status, NodeStatus::ok) << outcome.node;
}

TEST(Executor, RunsNodesInParallelNotOneAfterAnother) {
  Cluster cluster(8);
  const auto start = std::chrono::steady_clock::now();
  run_on_nodes(cluster.pointers, [](std::size_t, const Node&) {
    std::this_thread::sleep_for(100ms);
    return TaskResult{};
  });
  EXPECT_LT(std::chrono::steady_clock::now() - start, 500ms);
}

TEST(Executor, IsolatesAFailingOrThrowingNode) {
  Cluster cluster(4);
  const auto outcomes = run_on_nodes(cluster.pointers, [](std::size_t index, const Node&) {
    if (index == 1) throw std::runtime_error("boom");
    if (index == 2) return TaskResult{NodeStatus::unreachable, "connection refused"};
    return TaskResult{NodeStatus::ok, {}};
  });
  EXPECT_EQ(outcomes[0].status, NodeStatus::ok);
  EXPECT_EQ(outcomes[1].status, NodeStatus::failed);
  EXPECT_NE(outcomes[1].reason.find("boom"), std::string::npos);
  EXPECT_EQ(outcomes[2].status, NodeStatus::unreachable);
  EXPECT_EQ(outcomes[2].reason, "connection refused");
  EXPECT_EQ(outcomes[3].status, NodeStatus::ok);
  EXPECT_EQ(outcomes[3].node, "node04");
}

TEST(Executor, CancellationFinishesInFlightSkipsTheRestAndReportsEveryNode) {
  Cluster cluster(10);
  util::CancellationToken token;
  std::vector<int> reported(10, 0);
  std::atomic<int> started{0};
  ExecutorOptions options{.forks = 2, .cancel = &token,
                          .on_node_done = [&](std::size_t index, const NodeOutcome&) { ++reported[index]; }};
  const auto outcomes = run_on_nodes(cluster.pointers, [&](std::size_t index, const Node&) {
    ++started;
    if (index == 2) token.cancel();  // as the SIGINT handler would, mid-run
    std::this_thread::sleep_for(30ms);
    return TaskResult{};
  }, options);
  ASSERT_EQ(outcomes.size(), 10u);
  int skipped = 0;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    EXPECT_EQ(reported[i], 1) << "node " << i << " reported once";
    if (outcomes[i].status == NodeStatus::skipped) {
      ++skipped;
      EXPECT_FALSE(outcomes[i].reason.empty());
    } else {
      EXPECT_EQ(outcomes[i].status, NodeStatus::ok);  // in-flight work was allowed to finish
    }
  }
  EXPECT_EQ(skipped, 10 - started.load());
  EXPECT_GE(skipped, 6);
  EXPECT_EQ(outcomes[2].status, NodeStatus::ok);
}

TEST(Executor, AlreadyCancelledRunStartsNothing) {
  Cluster cluster(3);
  util::CancellationToken token;
  token.cancel();
  bool ran = false;
  const auto outcomes = run_on_nodes(cluster.pointers, [&](std::size_t, const Node&) {
    ran = true;
    return TaskResult{};
  }, {.cancel = &token});
  EXPECT_FALSE(ran);
  for (const auto& outcome : outcomes) EXPECT_EQ(outcome.status, NodeStatus::skipped);
}

TEST(Executor, EffectiveForksIsClampedToNodesAndAtLeastOne) {
  EXPECT_EQ(effective_forks(64, 5), 5);
  EXPECT_EQ(effective_forks(0, 5), 1);
  EXPECT_EQ(effective_forks(2, 5), 2);
  EXPECT_EQ(effective_forks(3, 0), 1);
}

TEST(RemoteExec, MapsExitCodesAndConnectFailuresToOutcomes) {
  Cluster cluster(3);
  const TransportFactory connect = [](const Node& node) -> Result<std::unique_ptr<Transport>> {
    if (node.name == "node03") return fail(ErrorCode::transport, "connection refused");
    auto fake = std::make_unique<gpuctl::testing::FakeTransport>(node.name);
    fake->on_command("hostname", CommandResult{node.name == "node02" ? 2 : 0, node.name + "\n", "", {}});
    return fake;
  };
  std::vector<std::string> seen;
  const auto results = run_command_on_nodes(cluster.pointers, command("hostname"), connect,
                                            [&](const ExecNodeResult& r) { seen.push_back(r.outcome.node); });
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].outcome.status, NodeStatus::ok);
  EXPECT_EQ(results[0].result->out, "node01\n");
  EXPECT_EQ(results[1].outcome.status, NodeStatus::failed);
  EXPECT_EQ(results[1].outcome.reason, "exit code 2");
  EXPECT_EQ(results[2].outcome.status, NodeStatus::unreachable);
  EXPECT_NE(results[2].outcome.reason.find("connection refused"), std::string::npos);
  EXPECT_FALSE(results[2].result.has_value());
  EXPECT_EQ(seen.size(), 3u);
}

TEST(RemoteExec, CommandTimeoutIsAFailureNotUnreachable) {
  Cluster cluster(1);
  const TransportFactory connect = [](const Node& node) -> Result<std::unique_ptr<Transport>> {
    auto fake = std::make_unique<gpuctl::testing::FakeTransport>(node.name);
    fake->fail_commands_with(Error{ErrorCode::timeout, "command timed out after 5s", {}, {}});
    return fake;
  };
  const auto results = run_command_on_nodes(cluster.pointers, command("sleep 100"), connect);
  EXPECT_EQ(results[0].outcome.status, NodeStatus::failed);
  EXPECT_NE(results[0].outcome.reason.find("timed out"), std::string::npos);
}

TEST(TransportPool, OpensOneTransportPerNodeAndRetriesFailedOpens) {
  Cluster cluster(2);
  int opens = 0;
  bool refuse = true;
  TransportPool pool([&](const Node& node) -> Result<std::unique_ptr<Transport>> {
    ++opens;
    if (node.name == "node02" && refuse) return fail(ErrorCode::transport, "refused");
    return std::make_unique<gpuctl::testing::FakeTransport>(node.name);
  });
  auto first = pool.get(cluster.nodes[0]);
  auto again = pool.get(cluster.nodes[0]);
  ASSERT_TRUE(first && again);
  EXPECT_EQ(*first, *again);
  EXPECT_FALSE(pool.get(cluster.nodes[1]).has_value());
  refuse = false;
  EXPECT_TRUE(pool.get(cluster.nodes[1]).has_value());
  EXPECT_EQ(opens, 3);
  EXPECT_EQ(pool.size(), 2u);
  pool.close("node01");
  EXPECT_EQ(pool.size(), 1u);
}

// A run keeps every node's session open only when they all fit beside gpuctl's own files.
TEST(TransportPool, SessionsStayOpenOnlyWhenEveryNodeFitsTheOpenFileLimit) {
  EXPECT_TRUE(can_keep_sessions_open(10, 1024));
  EXPECT_TRUE(can_keep_sessions_open(1024 - k_reserved_descriptors, 1024));
  EXPECT_FALSE(can_keep_sessions_open(1024 - k_reserved_descriptors + 1, 1024));
  EXPECT_FALSE(can_keep_sessions_open(2000, 1024));
  EXPECT_FALSE(can_keep_sessions_open(1, k_reserved_descriptors - 1));
  EXPECT_TRUE(can_keep_sessions_open(100000, std::numeric_limits<long>::max()));
}

TEST(OpenFiles, RaiseLiftsTheSoftLimitToTheHardOne) {
  rlimit before{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &before), 0);
  if (before.rlim_max == RLIM_INFINITY || before.rlim_max < 512) GTEST_SKIP() << "needs a finite hard limit >= 512";
  rlimit lowered = before;
  lowered.rlim_cur = 256;
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &lowered), 0);
  EXPECT_EQ(gpuctl::util::open_file_limit(), 256);
  EXPECT_EQ(gpuctl::util::raise_open_file_limit(), static_cast<long>(before.rlim_max));
  EXPECT_EQ(gpuctl::util::open_file_limit(), static_cast<long>(before.rlim_max));
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &before), 0);
}
