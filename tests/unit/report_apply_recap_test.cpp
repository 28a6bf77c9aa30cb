// The apply recap (report/reports.hpp): nodes whose entries read the same fold into one.
#include <gpuctl/report/reports.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

namespace gpuctl {
namespace {

NodeApplyOutcome applied(std::string node, exec::NodeStatus status, int changed_steps, std::string reason = {},
                         std::chrono::milliseconds duration = std::chrono::milliseconds(1500)) {
  NodeApplyOutcome o;
  o.outcome = {node, status, std::move(reason), duration};
  o.address = "10.3.0." + node.substr(node.size() - 2);
  for (int i = 0; i < changed_steps; ++i) o.result.steps.push_back({"step" + std::to_string(i), StepStatus::changed, {}});
  return o;
}

// The apply recap folds nodes whose entries read the same; a failing node keeps its own entry
// with its reason, output and fix; unreachable nodes fold by their error, address out.
TEST(ApplyRecap, FoldsNodesWhoseEntriesReadTheSame) {
  std::vector<NodeApplyOutcome> outcomes;
  for (int i = 1; i <= 60; ++i)
    outcomes.push_back(applied(fmt::format("gpu{:02}", i), exec::NodeStatus::changed, 9, {},
                               std::chrono::milliseconds(1000 * i)));
  auto broken = applied("gpu61", exec::NodeStatus::failed, 2, "step 'driver': apt-get install failed (exit 100)");
  broken.result.output_tail = "dpkg: error processing package nvidia-driver-550 (--configure):\n post-installation script returned 1";
  broken.result.hint = "read the package's postinst output above";
  outcomes.push_back(broken);
  outcomes.push_back(applied("gpu62", exec::NodeStatus::unreachable, 0, "cannot connect to 10.3.0.62: Connection refused"));
  outcomes.push_back(applied("gpu63", exec::NodeStatus::unreachable, 0, "cannot connect to 10.3.0.63: Connection refused"));
  const auto recap = render_apply_recap(outcomes);
  EXPECT_NE(recap.find("  gpu[01-60]           changed      9 steps changed (60 nodes, longest 60.0s)\n"), std::string::npos)
      << recap;
  EXPECT_NE(recap.find("  gpu61                failed       2 steps changed (1.5s)\n"
                       "      step 'driver': apt-get install failed (exit 100)\n"
                       "      output (last lines):\n"
                       "        | dpkg: error processing package nvidia-driver-550 (--configure):\n"
                       "        |  post-installation script returned 1\n"
                       "      fix: read the package's postinst output above\n"),
            std::string::npos) << recap;
  EXPECT_NE(recap.find("  gpu[62-63]           unreachable  (2 nodes, longest 1.5s)\n"
                       "      cannot connect to <address>: Connection refused\n"),
            std::string::npos) << recap;
  EXPECT_NE(recap.find("63 nodes: 0 ok, 60 changed, 1 failed, 2 unreachable, 0 skipped"), std::string::npos);
  EXPECT_LE(std::ranges::count(recap, '\n'), 14) << recap;
}

}  // namespace
}  // namespace gpuctl
