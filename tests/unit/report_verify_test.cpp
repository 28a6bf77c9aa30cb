// Verify reports (report/reports.hpp): JUnit XML and the nodes x checks table.
#include <gpuctl/report/reports.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace gpuctl {
namespace {

CheckResult check(std::string name, CheckStatus status, std::string observed = {}, std::string expected = {},
                  std::string detail = {}) {
  return CheckResult{std::move(name), status, std::move(observed), std::move(expected), std::move(detail)};
}

std::vector<NodeVerifyOutcome> sample_outcomes() {
  NodeVerifyOutcome good{{"gpu01", exec::NodeStatus::ok, "", {}},
                         {check("gpu_count", CheckStatus::pass, "8", "8"), check("ecc_errors", CheckStatus::pass, "all 8 GPUs", "x")}};
  NodeVerifyOutcome bad{{"gpu02", exec::NodeStatus::failed, "2 checks did not pass", {}},
                        {check("gpu_count", CheckStatus::fail, "7", "8", "a GPU may have fallen off the bus"),
                         check("ecc_errors", CheckStatus::error, "", "", "GPUs unknown: <nvidia-smi> & \"friends\" can't run"),
                         check("exporters_active", CheckStatus::skipped, "", "", "monitoring disabled")}};
  NodeVerifyOutcome gone{{"gpu03", exec::NodeStatus::unreachable, "connect: Connection refused <127.0.0.3>", {}}, {}};
  return {good, bad, gone};
}

std::size_t count(std::string_view text, std::string_view needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string_view::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(VerifyJunit, HasOneSuitePerNodeWithFailureErrorAndSkippedElements) {
  const auto xml = verify_to_junit(sample_outcomes());
  EXPECT_TRUE(xml.starts_with("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites"));
  EXPECT_TRUE(xml.ends_with("</testsuites>\n"));
  EXPECT_EQ(count(xml, "<testsuite "), 3u);
  EXPECT_EQ(count(xml, "</testsuite>"), 3u);
  EXPECT_NE(xml.find("<testsuite name=\"gpu01\" tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"0\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testsuite name=\"gpu02\" tests=\"3\" failures=\"1\" errors=\"1\" skipped=\"1\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testsuite name=\"gpu03\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"gpu01\" name=\"gpu_count\"></testcase>"), std::string::npos);
  EXPECT_NE(xml.find("<failure message=\"observed 7, expected 8 (a GPU may have fallen off the bus)\"/>"), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"monitoring disabled\"/>"), std::string::npos);
  EXPECT_NE(xml.find("name=\"reachable\"><error message=\"connect: Connection refused &lt;127.0.0.3&gt;\"/>"),
            std::string::npos) << xml;
  EXPECT_EQ(count(xml, "<failure "), 1u);
  EXPECT_EQ(count(xml, "<error "), 2u);
}

TEST(VerifyJunit, EscapesMarkupCharactersInAttributes) {
  const auto xml = verify_to_junit(sample_outcomes());
  EXPECT_NE(xml.find("&lt;nvidia-smi&gt; &amp; &quot;friends&quot; can&apos;t run"), std::string::npos) << xml;
  EXPECT_EQ(xml.find("<nvidia-smi>"), std::string::npos);
  EXPECT_EQ(xml.find("\"friends\""), std::string::npos);
}

TEST(VerifyJunit, ReplacesControlCharactersThatXmlForbids) {
  auto outcomes = sample_outcomes();
  outcomes[1].checks[0].detail = std::string("bell\x07here");
  const auto xml = verify_to_junit(outcomes);
  EXPECT_EQ(xml.find('\x07'), std::string::npos);
  EXPECT_NE(xml.find("bell?here"), std::string::npos);
}

TEST(VerifyJunit, IsWellFormedForXmllint) {
  if (std::system("xmllint --version >/dev/null 2>&1") != 0) GTEST_SKIP() << "xmllint is not installed";
  std::string path = (std::filesystem::temp_directory_path() / "gpuctl-junit-XXXXXX").string();
  const int fd = mkstemp(path.data());
  ASSERT_GE(fd, 0);
  ::close(fd);
  auto outcomes = sample_outcomes();
  outcomes[0].outcome.node = "odd&<node>\"'";
  std::ofstream(path) << verify_to_junit(outcomes);
  EXPECT_EQ(std::system(("xmllint --noout '" + path + "' 2>/dev/null").c_str()), 0);
  std::filesystem::remove(path);
}

TEST(VerifyTable, ListsEveryNonPassingCheckWithObservedAndExpected) {
  const auto table = render_verify_table(sample_outcomes());
  EXPECT_NE(table.find("node    c1   c2   c3\n"), std::string::npos) << table;
  EXPECT_NE(table.find("gpu01 PASS PASS    -\n"), std::string::npos) << table;
  EXPECT_NE(table.find("gpu02 FAIL  ERR skip\n"), std::string::npos) << table;
  EXPECT_NE(table.find("gpu03 unreachable: connect: Connection refused"), std::string::npos) << table;
  EXPECT_NE(table.find("  c1 = gpu_count\n  c2 = ecc_errors\n  c3 = exporters_active\n"), std::string::npos);
  EXPECT_NE(table.find("Not passing:\n"), std::string::npos);
  EXPECT_NE(table.find("  gpu02 gpu_count fail: observed 7, expected 8 (a GPU may have fallen off the bus)\n"),
            std::string::npos) << table;
  EXPECT_NE(table.find("  gpu02 ecc_errors error: observed -, expected - (GPUs unknown:"), std::string::npos) << table;
  // Skips are counted per check, not listed among the failures.
  EXPECT_EQ(table.find("gpu02 exporters_active skipped"), std::string::npos) << table;
  EXPECT_NE(table.find("\nSkipped: exporters_active on 1 node (not asked for by the inventory; the reasons: verify --json)\n"),
            std::string::npos) << table;
  EXPECT_EQ(table.find("gpu01 gpu_count"), std::string::npos);  // passing checks are not listed
  EXPECT_NE(table.find("Verify: 1 of 3 nodes pass every check.\n"), std::string::npos);
}

TEST(VerifyTable, SkipsOnManyNodesAreOneLineAndOnlySkipsMeanNoNotPassingSection) {
  std::vector<NodeVerifyOutcome> outcomes;
  for (int i = 1; i <= 500; ++i) {
    NodeVerifyOutcome o;
    o.outcome.node = fmt::format("gpu{:03}", i);
    o.outcome.status = exec::NodeStatus::ok;
    o.checks.push_back(CheckResult{"gpu_count", CheckStatus::pass, "8", "8", "", "", ""});
    o.checks.push_back(CheckResult{"nvlink_topology", CheckStatus::skipped, "", "", "gpu.nvlink is not declared", "", ""});
    outcomes.push_back(std::move(o));
  }
  const auto table = render_verify_table(outcomes);
  EXPECT_EQ(table.find("Not passing"), std::string::npos);
  EXPECT_NE(table.find("Skipped: nvlink_topology on 500 nodes ("), std::string::npos) << table.substr(table.size() - 300);
  EXPECT_EQ(table.find("gpu.nvlink is not declared"), std::string::npos);
}

TEST(VerifyTable, AllPassingHasNoNotPassingSection) {
  auto outcomes = sample_outcomes();
  outcomes.resize(1);
  const auto table = render_verify_table(outcomes);
  EXPECT_EQ(table.find("Not passing"), std::string::npos);
  EXPECT_NE(table.find("Verify: 1 of 1 nodes pass every check."), std::string::npos);
}

}  // namespace
}  // namespace gpuctl
