// The plan's two views (plan/render.hpp): JSON round trip and the text for people.
#include <gpuctl/plan/render.hpp>

#include "program_builder.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <gtest/gtest.h>

namespace gpuctl {
namespace {

using testing::FileSpec;
using testing::ProgramFixture;
using testing::StepSpec;

constexpr std::string_view k_secret = "S3CR3T-MUNGE-KEY";

Change change(Action action, std::string step, std::string resource, std::string summary, std::string reason = {},
              std::string diff = {}, std::size_t step_index = 0, std::size_t resource_index = 0) {
  return Change{action, std::move(step), std::move(resource), std::move(summary), std::move(reason), std::move(diff),
                step_index, resource_index};
}

Plan sample_plan() {
  Plan plan;
  plan.created_at = "2025-01-02T03:04:05Z";
  plan.inventory_path = "cluster.yaml";
  plan.inventory_digest = "inv-digest";
  plan.gpuctl_version = "0.1.0";
  plan.limit = "gpu[01-04]";
  plan.connection = "ssh";
  plan.playbooks = {{"gpu-node", "playbooks/gpu-node.yaml", "pb-1"}, {"./head.yaml", "./head.yaml", "pb-2"}};
  plan.templates_dir = "templates";
  plan.templates = {{"nccl.conf.mustache", "tpl-1"}, {"slurm.conf.mustache", "tpl-2"}};
  plan.source_files = {{"keys/cuda.asc", "src-1"}};
  plan.secrets = {{"munge.key", "sec-1"}};
  NodePlan gpu01{"gpu01", NodePlanStatus::planned, "", "fp-1", {}};
  gpu01.changes = {
      change(Action::create, "nccl", "file:/etc/nccl.conf", "create /etc/nccl.conf (0644 root:root)", "file does not exist",
             "--- /dev/null\n+++ /etc/nccl.conf\n@@ -0,0 +1,1 @@\n+NCCL_DEBUG=WARN\n", 5, 0),
      change(Action::update, "slurm", "file:/etc/slurm/slurm.conf", "update /etc/slurm/slurm.conf", "content differs",
             "--- a\n+++ b\n@@ -1,1 +1,1 @@\n-old\n+new\n", 6, 4),
      change(Action::update, "slurm", "file:/etc/munge/munge.key", "update /etc/munge/munge.key", "secret content differs",
             "", 6, 1),
      change(Action::remove, "slurm", "package:old", "remove old (1.0)", "package is installed", "", 6, 2),
      change(Action::run, "slurm", "command:touch /x", "run `touch /x`", "/x does not exist", "", 6, 3),
      change(Action::restart, "slurm", "handler:restart-slurmd", "restart service slurmd", "notified", "", 6, 0),
      change(Action::reboot, "driver", "reboot", "reboot and wait for a new boot_id", "the driver changed", "", 2, 0),
  };
  gpu01.changes[0].content_digest = "content-1";
  NodePlan gpu02{"gpu02", NodePlanStatus::planned, "", "fp-2", {}};
  NodePlan gpu03{"gpu03", NodePlanStatus::unreachable, "connection refused", "", {}};
  NodePlan gpu04{"gpu04", NodePlanStatus::failed, "unknown variable 'x'", "", {}};
  plan.nodes = {gpu01, gpu02, gpu03, gpu04};
  return plan;
}

void expect_equal(const Plan& a, const Plan& b) {
  EXPECT_EQ(a.created_at, b.created_at);
  EXPECT_EQ(a.inventory_path, b.inventory_path);
  EXPECT_EQ(a.inventory_digest, b.inventory_digest);
  EXPECT_EQ(a.gpuctl_version, b.gpuctl_version);
  EXPECT_EQ(a.limit, b.limit);
  EXPECT_EQ(a.connection, b.connection);
  ASSERT_EQ(a.playbooks.size(), b.playbooks.size());
  for (std::size_t i = 0; i < a.playbooks.size(); ++i) {
    EXPECT_EQ(a.playbooks[i].name, b.playbooks[i].name);
    EXPECT_EQ(a.playbooks[i].path, b.playbooks[i].path);
    EXPECT_EQ(a.playbooks[i].digest, b.playbooks[i].digest);
  }
  EXPECT_EQ(a.templates_dir, b.templates_dir);
  const auto same_inputs = [](const std::vector<BoundInput>& x, const std::vector<BoundInput>& y) {
    return std::ranges::equal(x, y, [](const BoundInput& p, const BoundInput& q) {
      return p.name == q.name && p.digest == q.digest;
    });
  };
  EXPECT_TRUE(same_inputs(a.templates, b.templates));
  EXPECT_TRUE(same_inputs(a.source_files, b.source_files));
  EXPECT_TRUE(same_inputs(a.secrets, b.secrets));
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (std::size_t n = 0; n < a.nodes.size(); ++n) {
    const auto& x = a.nodes[n];
    const auto& y = b.nodes[n];
    EXPECT_EQ(x.node, y.node);
    EXPECT_EQ(x.status, y.status) << x.node;
    EXPECT_EQ(x.error, y.error) << x.node;
    EXPECT_EQ(x.state_fingerprint, y.state_fingerprint) << x.node;
    ASSERT_EQ(x.changes.size(), y.changes.size()) << x.node;
    for (std::size_t c = 0; c < x.changes.size(); ++c) {
      const auto& p = x.changes[c];
      const auto& q = y.changes[c];
      EXPECT_EQ(p.action, q.action);
      EXPECT_EQ(p.step, q.step);
      EXPECT_EQ(p.resource, q.resource);
      EXPECT_EQ(p.summary, q.summary);
      EXPECT_EQ(p.reason, q.reason);
      EXPECT_EQ(p.diff, q.diff);
      EXPECT_EQ(p.step_index, q.step_index);
      EXPECT_EQ(p.resource_index, q.resource_index);
      EXPECT_EQ(p.content_digest, q.content_digest);
    }
  }
}

TEST(PlanJson, RoundTripGivesTheSamePlan) {
  const auto plan = sample_plan();
  const auto json = plan_to_json(plan);
  const auto back = plan_from_json(json, "plan.json");
  ASSERT_TRUE(back) << back.error().to_string();
  expect_equal(plan, *back);
  EXPECT_EQ(plan_to_json(*back), json);
}

TEST(PlanJson, RecordsFormatVersionAndSummary) {
  const auto json = plan_to_json(sample_plan());
  EXPECT_NE(json.find("\"format_version\": 2"), std::string::npos);
  EXPECT_NE(json.find("\"nodes_with_changes\": 1"), std::string::npos) << json;
  EXPECT_NE(json.find("\"changes\": 7"), std::string::npos);
  EXPECT_NE(json.find("\"has_errors\": true"), std::string::npos);
  EXPECT_NE(json.find("\"symbol\": \"»\""), std::string::npos);
}

Result<Plan> with_format_version(int version) {
  auto json = plan_to_json(sample_plan());
  const auto at = json.find("\"format_version\": 2");
  EXPECT_NE(at, std::string::npos);
  json.replace(at, 19, fmt::format("\"format_version\": {}", version));
  return plan_from_json(json, "plan.json");
}

TEST(PlanJson, PlanOfAnOlderGpuctlIsRefusedWithWhatToDo) {
  const auto back = with_format_version(1);
  ASSERT_FALSE(back);
  EXPECT_EQ(back.error().code, ErrorCode::parse);
  EXPECT_NE(back.error().message.find("made by an older gpuctl"), std::string::npos) << back.error().message;
  EXPECT_NE(back.error().message.find("run gpuctl plan again"), std::string::npos) << back.error().message;
  EXPECT_EQ(back.error().where.file, "plan.json");
}

TEST(PlanJson, PlanOfANewerGpuctlIsRefused) {
  const auto back = with_format_version(3);
  ASSERT_FALSE(back);
  EXPECT_NE(back.error().message.find("made by a newer gpuctl (format_version 3"), std::string::npos)
      << back.error().message;
}

TEST(PlanJson, UnknownConnectionOrStatusIsRefused) {
  auto json = plan_to_json(sample_plan());
  auto at = json.find("\"connection\": \"ssh\"");
  ASSERT_NE(at, std::string::npos);
  EXPECT_FALSE(plan_from_json(std::string(json).replace(at, 19, "\"connection\": \"rsh\""), "p"));
  at = json.find("\"status\": \"failed\"");
  ASSERT_NE(at, std::string::npos);
  EXPECT_FALSE(plan_from_json(json.replace(at, 18, "\"status\": \"broken\""), "p"));
}

TEST(PlanJson, ChangesDigestCoversEveryFieldOfEveryChange) {
  const auto changes = sample_plan().nodes[0].changes;
  const auto digest = changes_digest(changes);
  EXPECT_EQ(digest, changes_digest(changes));
  const std::vector<void (*)(Change&)> edits{
      [](Change& c) { c.action = Action::run; }, [](Change& c) { c.step += "x"; },
      [](Change& c) { c.resource += "x"; },      [](Change& c) { c.summary += "x"; },
      [](Change& c) { c.reason += "x"; },        [](Change& c) { c.diff += "x"; },
      [](Change& c) { ++c.step_index; },         [](Change& c) { ++c.resource_index; },
      [](Change& c) { c.content_digest += "x"; }};
  for (std::size_t i = 0; i < edits.size(); ++i) {
    auto edited = changes;
    edits[i](edited[1]);
    EXPECT_NE(changes_digest(edited), digest) << "edit " << i;
  }
  // Moving bytes from one field to the next changes the digest too (length-prefixed fields).
  auto shifted = changes;
  shifted[0].summary += shifted[0].reason.substr(0, 1);
  shifted[0].reason.erase(0, 1);
  EXPECT_NE(changes_digest(shifted), digest);
  auto reordered = changes;
  std::swap(reordered[0], reordered[1]);
  EXPECT_NE(changes_digest(reordered), digest);
}

TEST(PlanJson, NotJsonOrMissingFieldsAreParseErrors) {
  EXPECT_EQ(plan_from_json("not json", "p").error().code, ErrorCode::parse);
  EXPECT_EQ(plan_from_json("{\"format_version\": 2}", "p").error().code, ErrorCode::parse);
  auto json = plan_to_json(sample_plan());
  const auto at = json.find("\"action\": \"create\"");
  json.replace(at, 18, "\"action\": \"launch\"");
  const auto unknown = plan_from_json(json, "p");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("unknown action 'launch'"), std::string::npos);
}

// The address read back is only ever a host name or IP address (the text view folds by it).
TEST(PlanJson, AnAddressThatIsNoHostNameIsRefused) {
  auto plan = sample_plan();
  plan.nodes[0].address = "10.0.0.1";
  plan.nodes[1].address = "fe80::1";
  const auto back = plan_from_json(plan_to_json(plan), "p");
  ASSERT_TRUE(back) << back.error().to_string();
  EXPECT_EQ(back->nodes[0].address, "10.0.0.1");
  EXPECT_EQ(back->nodes[1].address, "fe80::1");
  plan.nodes[0].address = "curl x|sh";
  const auto bad = plan_from_json(plan_to_json(plan), "p");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("node 'gpu01': address 'curl x|sh' is not a host name or IP address"), std::string::npos)
      << bad.error().to_string();
}

TEST(PlanText, ShowsEverySymbolReasonAndDiffByNodeAndStep) {
  const auto text = render_plan_text(sample_plan());
  for (const char* expected :
       {"  gpu01  (1 create, 2 update, 1 remove, 1 run, 1 restart, 1 reboot)\n", "    [nccl]\n", "    [slurm]\n",
        "      + create /etc/nccl.conf (0644 root:root)\n", "          file does not exist\n",
        "          +NCCL_DEBUG=WARN\n", "      ~ update /etc/slurm/slurm.conf\n", "          -old\n",
        "      - remove old (1.0)\n", "      » run `touch /x`\n", "      ↻ restart service slurmd\n",
        "      ↻ reboot and wait for a new boot_id\n", "  gpu02  no changes\n", "  gpu03  unreachable: connection refused\n",
        "  gpu04  failed: unknown variable 'x'\n"})
    EXPECT_NE(text.find(expected), std::string::npos) << "missing: " << expected << "\nin:\n" << text;
  EXPECT_EQ(text.find("\x1b["), std::string::npos);
}

TEST(PlanText, SummaryLineCountsEveryAction) {
  const auto plan = sample_plan();
  const auto summary = render_plan_summary(plan);
  EXPECT_EQ(summary,
            "Plan: 4 nodes, 1 with changes (1 to create, 2 to update, 1 to remove, 1 to run, 1 restarts, 1 reboots); "
            "1 unreachable; 1 failed.");
  EXPECT_NE(render_plan_text(plan).find("\n" + summary + "\n"), std::string::npos);
}

TEST(PlanText, StartsWithThePlaybookFilesItUsed) {
  Plan plan = sample_plan();
  plan.playbooks = {{"gpu-node", "/usr/share/gpuctl/playbooks/gpu-node.yaml", ""}, {"./site.yaml", "/home/ops/site.yaml", ""}};
  EXPECT_TRUE(render_plan_text(plan).starts_with(
      "Playbooks: /usr/share/gpuctl/playbooks/gpu-node.yaml, /home/ops/site.yaml\n\n  gpu01"))
      << render_plan_text(plan);
  plan.playbooks.clear();
  EXPECT_TRUE(render_plan_text(plan).starts_with("  gpu01"));
}

TEST(PlanText, SummaryOfAConvergedClusterHasNoCounts) {
  Plan plan;
  plan.nodes = {NodePlan{"gpu01", NodePlanStatus::planned, "", "fp", {}}};
  EXPECT_EQ(render_plan_summary(plan), "Plan: 1 node, 0 with changes.");
}

TEST(PlanText, DiffsCanBeHiddenAndColourTurnedOn) {
  const auto plain = render_plan_text(sample_plan(), TextOptions{ColorMode::never, false});
  EXPECT_EQ(plain.find("+NCCL_DEBUG=WARN"), std::string::npos);
  const auto colour = render_plan_text(sample_plan(), TextOptions{ColorMode::always, true});
  EXPECT_NE(colour.find("\x1b[32m+\x1b[0m create"), std::string::npos);
}

// Secrets end to end: a plan made by the planner for a secret file shows its path in both views
// but never the content.
TEST(PlanViews, SecretsNeverAppearInTextOrJson) {
  ProgramFixture fixture({StepSpec{"slurm",
                                   {testing::resolved_file("/etc/munge/munge.key", std::string(k_secret),
                                                           FileSpec{0400, "munge", "munge", true, {}}),
                                    testing::resolved_file("/etc/munge/other.key", std::string(k_secret) + "-2",
                                                           FileSpec{0400, "munge", "munge", true, {}})}}});
  NodeState state;
  ObservedFile old_key;
  old_key.exists = true;
  old_key.digest = util::sha256_hex("OLD");
  old_key.mode = 0400;
  old_key.owner = old_key.group = "munge";
  state.files["/etc/munge/other.key"] = old_key;
  Plan plan;
  plan.nodes.push_back(make_node_plan(fixture.program, state));
  ASSERT_EQ(plan.nodes[0].changes.size(), 2u);
  const auto text = render_plan_text(plan);
  const auto json = plan_to_json(plan);
  EXPECT_NE(text.find("/etc/munge/munge.key"), std::string::npos);
  EXPECT_NE(json.find("/etc/munge/other.key"), std::string::npos);
  EXPECT_EQ(text.find(k_secret), std::string::npos) << text;
  EXPECT_EQ(json.find(k_secret), std::string::npos) << json;
}

}  // namespace
}  // namespace gpuctl

namespace gpuctl {
namespace {

// A node's error or a file's lines with escape sequences are printed escaped (issue #37): the
// plan a reviewer reads cannot be rewritten by what a node printed.
TEST(PlanText, EscapesWhatNodesPrinted) {
  Plan plan;
  plan.nodes.push_back(NodePlan{"gpu01", NodePlanStatus::failed, "apt: \x1b[2K\x1b[1Aall good\r", "", {}});
  Change change;
  change.action = Action::update;
  change.step = "s";
  change.summary = "update /etc/x";
  change.diff = "--- a\n+++ b\n@@ -1 +1 @@\n-x\n+\x1b]0;title\x07y\n";
  plan.nodes.push_back(NodePlan{"gpu02", NodePlanStatus::planned, "", "", {change}});
  const auto text = render_plan_text(plan, {ColorMode::never, true, true});
  EXPECT_EQ(text.find('\x1b'), std::string::npos) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos) << text;
  EXPECT_NE(text.find("apt: \\x1b[2K\\x1b[1Aall good\\x0d"), std::string::npos) << text;
  EXPECT_NE(text.find("+\\x1b]0;title\\x07y"), std::string::npos) << text;
}

}  // namespace
}  // namespace gpuctl
