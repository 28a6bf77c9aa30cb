// The health policy (src/health/health-policy.yaml): every code it lists held to NVIDIA's Xid
// catalogue's bucket and to the remedy gpuctl takes, through the same path a real kernel line
// takes (parse_kernel_xids -> plan_remediation); and the reader's errors on a bad policy.
#include <gpuctl/facts/parsers.hpp>
#include <gpuctl/health/policy.hpp>
#include <gpuctl/health/xid_catalog.hpp>
#include <gpuctl/verify/remediation.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>

namespace gpuctl {
namespace {

using health::Remedy;

// NVIDIA's Xid catalogue for Ampere and later, "Resolution Bucket (Immediate Action)", as read on
// 2026-12-07 from https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html, and the
// remedy gpuctl takes for the code. Written here by hand, not from the policy: a code changed in
// one and not the other fails.
struct CatalogueRow {
  std::string_view bucket;
  Remedy remedy;
};
const std::map<int, CatalogueRow> k_catalogue{
    {8, {"RESTART_APP", Remedy::restart_app}},          {13, {"RESTART_APP", Remedy::restart_app}},
    {31, {"RESTART_APP", Remedy::restart_app}},         {43, {"IGNORE", Remedy::restart_app}},
    {45, {"WORKFLOW_XID_45", Remedy::restart_app}},     {48, {"WORKFLOW_XID_48", Remedy::reset_gpu}},
    {61, {"CONTACT_SUPPORT", Remedy::contact_support}}, {62, {"RESET_GPU", Remedy::reset_gpu}},
    {63, {"IGNORE", Remedy::none}},                     {64, {"RESET_GPU", Remedy::reset_gpu}},
    {74, {"WORKFLOW_NVLINK_ERR", Remedy::reset_gpu}},   {79, {"RESTART_BM", Remedy::reboot}},
    {92, {"IGNORE", Remedy::none}},                     {94, {"RESTART_APP", Remedy::restart_app}},
    {95, {"RESET_GPU", Remedy::reset_gpu}},             {109, {"RESET_GPU", Remedy::reset_gpu}},
    {119, {"RESET_GPU", Remedy::reset_gpu}},            {120, {"RESET_GPU", Remedy::reset_gpu}},
    {140, {"RESET_GPU", Remedy::reset_gpu}},
};

// The remedy gpuctl's remediate plans for one real-format kernel line on GPU 0000:b3:00.
RemediationPlan plan_for_line(const std::string& line) {
  NodeFacts facts;
  auto events = facts::parse_kernel_xids("[ 100.000000] " + line + "\n@@dmesg-rc 0\n");
  EXPECT_TRUE(events) << events.error().message;
  facts.xid_events = Fact<std::vector<XidEvent>>::of(events ? *events : std::vector<XidEvent>{});
  const std::vector<CheckResult> checks{{.name = "xid_events", .status = CheckStatus::fail}};
  return plan_remediation(checks, facts, /*nvswitch_board=*/false, health::health_policy());
}

TEST(HealthPolicy, TheEmbeddedPolicyParsesAndCitesItsSources) {
  const auto parsed = health::parse_health_policy(health::embedded_health_policy_text());
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_FALSE(parsed->version.empty());
  std::map<std::string, std::string> urls;
  for (const auto& source : parsed->sources) urls[source.key] = source.url;
  EXPECT_EQ(urls["xid"], "https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html");
  EXPECT_TRUE(urls.contains("sxid"));
  EXPECT_TRUE(urls.contains("recovery_action"));
  EXPECT_GT(parsed->remedy_diag_level, 0);
}

TEST(HealthPolicy, EveryListedXidHasTheCataloguesBucketAndItsRemedy) {
  const auto& policy = health::health_policy();
  for (const auto& rule : policy.xids) {
    if (rule.code == 154) continue;  // its own test: the line names the action
    const auto row = k_catalogue.find(rule.code);
    ASSERT_NE(row, k_catalogue.end()) << "Xid " << rule.code << " is in the policy but not in this test's catalogue";
    EXPECT_EQ(rule.bucket, row->second.bucket) << "Xid " << rule.code;
    EXPECT_EQ(rule.remedy, row->second.remedy) << "Xid " << rule.code;
    EXPECT_FALSE(rule.meaning.empty()) << "Xid " << rule.code;
  }
  for (const auto& [code, row] : k_catalogue) EXPECT_NE(policy.find_xid(code), nullptr) << "Xid " << code << " is missing";
}

TEST(HealthPolicy, EveryListedXidLineLeadsRemediateToItsRemedy) {
  for (const auto& [code, row] : k_catalogue) {
    const auto plan = plan_for_line(fmt::format("NVRM: Xid (PCI:0000:b3:00): {}, pid=1797828, name=pt_main_thread, Ch 00000008", code));
    const Remedy expected = health::remedy_needs_drain(row.remedy) ? row.remedy : Remedy::none;
    EXPECT_EQ(plan.remedy, expected) << "Xid " << code;
    if (expected == Remedy::reset_gpu) {
      EXPECT_EQ(plan.reset_gpus, std::vector<std::string>{"0000:b3:00.0"}) << "Xid " << code;
    }
  }
  // A code gpuctl does not know is a person's to look up: the node stays drained.
  EXPECT_EQ(plan_for_line("NVRM: Xid (PCI:0000:b3:00): 999, pid=1, name=x, Ch 00000008").remedy, Remedy::investigate);
}

TEST(HealthPolicy, Xid154FollowsTheRecoveryActionItsLineNames) {
  const auto line = [](std::string_view to) {
    return fmt::format("NVRM: Xid (PCI:0000:b3:00): 154, GPU recovery action changed from 0x0 (None) to {}", to);
  };
  EXPECT_EQ(plan_for_line(line("0x1 (GPU Reset Required)")).remedy, Remedy::reset_gpu);
  EXPECT_EQ(plan_for_line(line("0x2 (Node Reboot Required)")).remedy, Remedy::reboot);
  EXPECT_EQ(plan_for_line(line("0x4 (Drain and Reset)")).remedy, Remedy::reset_gpu);
  EXPECT_EQ(plan_for_line(line("0x0 (None)")).remedy, Remedy::none);
  EXPECT_EQ(plan_for_line(line("0x7f (Something New)")).remedy, Remedy::investigate) << "an unknown action is not guessed";
  EXPECT_EQ(plan_for_line("NVRM: Xid (PCI:0000:b3:00): 154, no action in this text").remedy, Remedy::investigate);
  EXPECT_EQ(health::xid_action(154).scope, health::XidScope::gpu);
}

TEST(HealthPolicy, ScopesForTheAlertRulesFollowTheRemedies) {
  EXPECT_EQ(health::xid_action(109).scope, health::XidScope::gpu) << "the catalogue's RESET_GPU (issue #34)";
  EXPECT_EQ(health::xid_action(13).scope, health::XidScope::application);
  EXPECT_EQ(health::xid_action(63).scope, health::XidScope::informational);
  EXPECT_EQ(health::xid_action(4242).scope, health::XidScope::unknown);
  EXPECT_NE(health::xid_action(79).action.find("reboot"), std::string_view::npos);
}

TEST(HealthPolicy, ABadPolicyIsRefusedWithTheEntryNamed) {
  const auto error_of = [](std::string_view text) {
    auto parsed = health::parse_health_policy(text);
    EXPECT_FALSE(parsed) << text;
    return parsed ? std::string() : parsed.error().message;
  };
  const std::string base = "policy: gpuctl-health\nversion: \"1\"\nchecks: {other: investigate}\n";
  EXPECT_NE(error_of(base + "xid:\n  - {code: 8, bucket: RESTART_APP, action: restart, meaning: m}\n").find("action of Xid 8"),
            std::string::npos);
  EXPECT_NE(error_of(base + "xid:\n  - {code: 8, bucket: B, action: none, meaning: m}\n  - {code: 8, bucket: B, action: none, meaning: m}\n")
                .find("Xid 8 is listed twice"),
            std::string::npos);
  EXPECT_NE(error_of("policy: gpuctl-health\nchecks: {other: investigate}\n").find("no version"), std::string::npos);
  EXPECT_NE(error_of("policy: gpuctl-health\nversion: \"1\"\n").find("'other'"), std::string::npos);
  EXPECT_NE(error_of(base + "sources: {xid: {title: t, url: http://x, checked: d}}\n").find("https"), std::string::npos);
  EXPECT_FALSE(error_of(base + "bogus: 1\n").empty());
}

}  // namespace
}  // namespace gpuctl
