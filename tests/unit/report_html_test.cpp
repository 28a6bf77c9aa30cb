// The HTML verify report (report/html.hpp), the Prometheus textfile (report/prometheus.hpp)
// and reading back `verify --json` (report/verify_json.hpp).
#include <gpuctl/report/html.hpp>
#include <gpuctl/report/prometheus.hpp>
#include <gpuctl/report/reports.hpp>
#include <gpuctl/report/verify_json.hpp>

#include <gtest/gtest.h>

#include <regex>

namespace gpuctl {
namespace {

CheckResult check(std::string name, CheckStatus status, std::string observed = {}, std::string expected = {},
                  std::string detail = {}) {
  return CheckResult{std::move(name), status, std::move(observed), std::move(expected), std::move(detail)};
}

std::vector<NodeVerifyOutcome> sample_outcomes() {
  NodeVerifyOutcome good{{"gpu01", exec::NodeStatus::ok, "", {}},
                         {check("gpu_count", CheckStatus::pass, "8", "8"), check("ecc_errors", CheckStatus::pass, "0", "0")}};
  NodeVerifyOutcome bad{{"gpu02", exec::NodeStatus::failed, "check gpu_count fail", {}},
                        {check("gpu_count", CheckStatus::fail, "7", "8", "a GPU may have fallen off the bus"),
                         check("ecc_errors", CheckStatus::error, "", "", "<script>alert('x')</script> & \"more\""),
                         check("exporters_active", CheckStatus::skipped, "", "", "monitoring disabled")}};
  NodeVerifyOutcome gone{{"gpu03", exec::NodeStatus::unreachable, "connect: Connection refused <127.0.0.3>", {}}, {}};
  return {good, bad, gone};
}

HtmlReportInfo sample_info() {
  HtmlReportInfo info;
  info.cluster = "hopper";
  info.generated_at = "2025-01-02T03:04:05Z";
  info.node_groups = {{"gpu01", {"gpu", "rack1"}}, {"gpu02", {"gpu"}}, {"gpu03", {"gpu", "rack2"}}};
  return info;
}

std::size_t count(std::string_view text, std::string_view needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(HtmlEscape, EscapesMarkupAndQuotes) {
  EXPECT_EQ(html_escape("<a href=\"x\">Tom's & co</a>"), "&lt;a href=&quot;x&quot;&gt;Tom&#39;s &amp; co&lt;/a&gt;");
  EXPECT_EQ(html_escape("plain"), "plain");
}

TEST(VerifyHtml, EscapesTextFromNodesSoItCannotInjectMarkup) {
  const auto html = render_verify_html(sample_outcomes(), sample_info());
  EXPECT_EQ(count(html, "<script>alert"), 0u);
  EXPECT_NE(html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;more&quot;"), std::string::npos);
  EXPECT_NE(html.find("Connection refused &lt;127.0.0.3&gt;"), std::string::npos);
  // Exactly one script element: ours.
  EXPECT_EQ(count(html, "<script>"), 1u);
}

TEST(VerifyHtml, HasOneRowPerNodeAndOneColumnPerCheck) {
  const auto html = render_verify_html(sample_outcomes(), sample_info());
  const auto grid = html.substr(html.find("<table id=\"grid\">"), html.find("<table id=\"problems\">") - html.find("<table id=\"grid\">"));
  EXPECT_EQ(count(grid, "<tr data-node="), 3u);
  EXPECT_EQ(count(grid, "<th class=\"check\""), 3u);  // gpu_count, ecc_errors, exporters_active
  EXPECT_EQ(count(grid, "data-status=\"pass\""), 2u);
  EXPECT_EQ(count(grid, "data-status=\"fail\""), 1u);
  EXPECT_EQ(count(grid, "data-status=\"error\""), 1u);
  EXPECT_EQ(count(grid, "data-status=\"skipped\""), 1u);
  EXPECT_EQ(count(grid, "data-status=\"none\""), 1u);  // gpu01 has no exporters_active check
  EXPECT_NE(grid.find("class=\"unreachable\" colspan=\"3\""), std::string::npos);
}

TEST(VerifyHtml, SummaryCountsNodesAndChecks) {
  const auto html = render_verify_html(sample_outcomes(), sample_info());
  EXPECT_NE(html.find("data-count=\"nodes\"><b>3</b>"), std::string::npos);
  EXPECT_NE(html.find("data-count=\"nodes-ok\"><b>1</b>"), std::string::npos);
  EXPECT_NE(html.find("data-count=\"nodes-failed\"><b>1</b>"), std::string::npos);
  EXPECT_NE(html.find("data-count=\"nodes-unreachable\"><b>1</b>"), std::string::npos);
  EXPECT_NE(html.find("<b>5</b>checks: 2 pass, 1 fail, 1 error, 1 skipped"), std::string::npos);
}

TEST(VerifyHtml, ListsEveryProblemWithObservedAndExpectedAndLinksCellsToIt) {
  const auto html = render_verify_html(sample_outcomes(), sample_info());
  const auto problems = html.substr(html.find("<table id=\"problems\">"));
  // fail + error + skipped on gpu02, plus unreachable gpu03.
  EXPECT_EQ(count(problems, "<tr data-node="), 4u);
  EXPECT_NE(problems.find("id=\"p-gpu02-gpu_count\"><td>gpu02</td><td>gpu_count</td><td>fail</td><td><code>7</code></td>"
                          "<td><code>8</code></td><td>a GPU may have fallen off the bus</td>"),
            std::string::npos);
  EXPECT_NE(html.find("<a href=\"#p-gpu02-gpu_count\">FAIL</a>"), std::string::npos);
}

TEST(VerifyHtml, OffersEveryGroupAsAFilterAndTagsRows) {
  const auto html = render_verify_html(sample_outcomes(), sample_info());
  for (const auto* group : {"gpu", "rack1", "rack2"})
    EXPECT_NE(html.find(std::string("<option value=\"") + group + "\">"), std::string::npos) << group;
  EXPECT_NE(html.find("<tr data-node=\"gpu01\" data-status=\"ok\" data-groups=\"gpu rack1\">"), std::string::npos);
  EXPECT_NE(html.find("id=\"status-filter\""), std::string::npos);
}

TEST(VerifyHtml, IsSelfContained) {
  const auto html = render_verify_html(sample_outcomes(), sample_info());
  EXPECT_EQ(count(html, "src="), 0u);
  EXPECT_EQ(count(html, "<link"), 0u);
  EXPECT_EQ(count(html, "http://"), 0u);
  EXPECT_EQ(count(html, "https://"), 0u);
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
}

TEST(VerifyHtml, SaysSoWhenEverythingPassed) {
  const auto outcomes = std::vector<NodeVerifyOutcome>{sample_outcomes()[0]};
  const auto html = render_verify_html(outcomes, {});
  EXPECT_NE(html.find("Every check passed on every node."), std::string::npos);
}

TEST(Prometheus, WritesOneSeriesPerNodeAndCheckWithoutSkippedChecks) {
  const auto text = verify_to_prometheus(sample_outcomes(), 1700000000);
  EXPECT_NE(text.find("gpuctl_check_status{node=\"gpu01\",check=\"gpu_count\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("gpuctl_check_status{node=\"gpu02\",check=\"gpu_count\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("gpuctl_check_status{node=\"gpu02\",check=\"ecc_errors\"} 0\n"), std::string::npos);
  EXPECT_EQ(text.find("exporters_active"), std::string::npos);
  EXPECT_EQ(count(text, "gpuctl_check_status{"), 4u);
}

TEST(Prometheus, MarksUnreachableNodesDownAndStampsTheRun) {
  const auto text = verify_to_prometheus(sample_outcomes(), 1700000000);
  EXPECT_NE(text.find("gpuctl_node_up{node=\"gpu01\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("gpuctl_node_up{node=\"gpu03\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("gpuctl_node_verify_ok{node=\"gpu01\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("gpuctl_node_verify_ok{node=\"gpu02\"} 0\n"), std::string::npos);
  EXPECT_NE(text.find("gpuctl_verify_last_run_timestamp_seconds 1700000000\n"), std::string::npos);
}

TEST(Prometheus, EveryLineIsACommentOrAWellFormedSample) {
  auto outcomes = sample_outcomes();
  outcomes[0].outcome.node = "odd\"node\\with\nnewline";
  const auto text = verify_to_prometheus(outcomes, 42);
  const std::regex sample(R"re(^[a-z_]+(\{([a-z_]+="([^"\\\n]|\\["\\n])*",?)+\})? -?[0-9]+$)re");
  const std::regex comment(R"(^# (HELP|TYPE) [a-z_]+ .+$)");
  std::size_t start = 0, lines = 0;
  while (start < text.size()) {
    const auto end = text.find('\n', start);
    ASSERT_NE(end, std::string::npos) << "the last line must end with a newline";
    const auto line = text.substr(start, end - start);
    EXPECT_TRUE(std::regex_match(line, sample) || std::regex_match(line, comment)) << line;
    start = end + 1;
    ++lines;
  }
  EXPECT_GT(lines, 10u);
  EXPECT_NE(text.find("node=\"odd\\\"node\\\\with\\nnewline\""), std::string::npos);
}

TEST(Prometheus, GroupsEachFamilyUnderItsTypeLine) {
  const auto text = verify_to_prometheus(sample_outcomes(), 1);
  for (const auto* family : {"gpuctl_check_status", "gpuctl_node_up", "gpuctl_node_verify_ok",
                             "gpuctl_verify_last_run_timestamp_seconds"}) {
    const auto type = text.find(std::string("# TYPE ") + family + " gauge\n");
    ASSERT_NE(type, std::string::npos) << family;
    const auto first = text.find(std::string("\n") + family);
    EXPECT_LT(type, first) << family;
  }
}

TEST(VerifyJson, ReadsBackWhatVerifyToJsonWrote) {
  const auto original = sample_outcomes();
  const auto back = verify_from_json(verify_to_json(original), "verify.json");
  ASSERT_TRUE(back) << back.error().to_string();
  ASSERT_EQ(back->size(), 3u);
  EXPECT_EQ((*back)[1].outcome.node, "gpu02");
  EXPECT_EQ((*back)[1].outcome.status, exec::NodeStatus::failed);
  ASSERT_EQ((*back)[1].checks.size(), 3u);
  EXPECT_EQ((*back)[1].checks[0].status, CheckStatus::fail);
  EXPECT_EQ((*back)[1].checks[0].observed, "7");
  EXPECT_EQ((*back)[1].checks[1].detail, original[1].checks[1].detail);
  EXPECT_EQ((*back)[2].outcome.status, exec::NodeStatus::unreachable);
  EXPECT_EQ(verify_to_json(*back), verify_to_json(original));
}

TEST(VerifyJson, RejectsOtherDocumentsNamingTheFile) {
  const auto wrong = verify_from_json(R"({"format_version": 1, "nodes": [{"node": "a", "status": "great"}]})", "v.json");
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().to_string().find("v.json"), std::string::npos);
  EXPECT_NE(wrong.error().message.find("great"), std::string::npos);
  EXPECT_FALSE(verify_from_json("{not json", "v.json"));
  EXPECT_FALSE(verify_from_json(R"({"format_version": 7, "nodes": []})", "v.json"));
}

}  // namespace
}  // namespace gpuctl
