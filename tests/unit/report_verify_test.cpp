// Verify reports (report/reports.hpp): JUnit XML and the nodes x checks table.
#include <gpuctl/inventory/hostlist.hpp>
#include <gpuctl/report/reports.hpp>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
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

TEST(VerifyTable, ExpandedListsEveryNonPassingCheckOfEveryNode) {
  const auto table = render_verify_table(sample_outcomes(), {.expand = true});
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
  EXPECT_NE(table.find("\nSkipped: exporters_active on 1 node (not asked for by the inventory, or not applicable there; each reason: verify --json)\n"),
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
  EXPECT_LE(std::ranges::count(table, '\n'), 10) << table;
  EXPECT_EQ(table.find("gpu.nvlink is not declared"), std::string::npos);
}

// verify --nccl-nodes on 512 nodes in pairs: each pair's bandwidth once (both nodes of a pair
// carry the same observed value); 256 sets are summed up with the 5 slowest, not listed.
TEST(VerifyTable, NcclSetsAreListedOnceEachSlowestFirstAndManySetsAreSummedUp) {
  const auto observed = [](int pair, double busbw) {
    return fmt::format("busbw {:.1f} GB/s (algbw {:.1f}) across gpu[{:03}-{:03}], 16 GPUs, 256 MiB x 20, 0 wrong here", busbw,
                       busbw * 8 / 15, 2 * pair + 1, 2 * pair + 2);
  };
  std::vector<NodeVerifyOutcome> outcomes;
  for (int i = 0; i < 512; ++i) {
    NodeVerifyOutcome o;
    o.outcome.node = fmt::format("gpu{:03}", i + 1);
    o.outcome.status = exec::NodeStatus::ok;
    const double busbw = i / 2 == 77 ? 301.2 : i / 2 == 12 ? 355.0 : 370.0 + (i / 2) % 10;
    o.checks.push_back(CheckResult{"nccl_allreduce_nodes", CheckStatus::pass, observed(i / 2, busbw), "x", "", "", ""});
    outcomes.push_back(std::move(o));
  }
  auto table = render_verify_table(outcomes);
  EXPECT_NE(table.find("NCCL all-reduce across nodes (256 sets that passed, slowest first):\n"
                       "  busbw min 301.2, median 374.0, max 379.0 GB/s; the 5 slowest:\n"
                       "  busbw 301.2 GB/s (algbw 160.6) across gpu[155-156]"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("\n  busbw 355.0 GB/s (algbw 189.3) across gpu[025-026]"), std::string::npos) << table;
  EXPECT_LE(std::ranges::count(table, '\n'), 16) << table;

  outcomes.resize(4);  // two pairs: both listed, each once
  table = render_verify_table(outcomes);
  EXPECT_NE(table.find("NCCL all-reduce across nodes (2 sets that passed, slowest first):\n  busbw 370.0 GB/s"),
            std::string::npos)
      << table;
  EXPECT_EQ(count(table, "across gpu[001-002]"), 1u) << table;
  EXPECT_EQ(count(table, "across gpu[003-004]"), 1u) << table;
}

TEST(VerifyTable, AllPassingHasNoNotPassingSection) {
  auto outcomes = sample_outcomes();
  outcomes.resize(1);
  const auto table = render_verify_table(outcomes);
  EXPECT_EQ(table.find("Not passing"), std::string::npos);
  EXPECT_NE(table.find("Verify: 1 of 1 nodes pass every check."), std::string::npos);
}

TEST(VerifyTable, FoldedCountsNodesPerCheckAndGroupsFailuresByCheckAndObservedValue) {
  const auto table = render_verify_table(sample_outcomes());
  EXPECT_NE(table.find("check              pass   fail  error   skip\n"), std::string::npos) << table;
  EXPECT_NE(table.find("gpu_count             1      1      -      -\n"), std::string::npos) << table;
  EXPECT_NE(table.find("exporters_active      -      -      -      1\n"), std::string::npos) << table;
  EXPECT_NE(table.find("Not passing:\n  gpu_count fail on gpu02: observed 7, expected 8 (a GPU may have fallen off the bus)\n"),
            std::string::npos) << table;
  EXPECT_NE(table.find("  ecc_errors error on gpu02: observed -, expected - (GPUs unknown:"), std::string::npos) << table;
  EXPECT_NE(table.find("  unreachable on gpu03: connect: Connection refused <127.0.0.3>\n"), std::string::npos) << table;
  EXPECT_NE(table.find("Verify: 1 of 3 nodes pass every check.\n"), std::string::npos);
}

// Issue #15's target: a converged verify of 512 nodes with 36 failing reads in at most 60
// lines, and names every failing node.
TEST(VerifyTable, FiveHundredTwelveNodesWithThirtySixFailingFitSixtyLines) {
  std::vector<NodeVerifyOutcome> outcomes;
  std::vector<std::string> failing;
  for (int i = 1; i <= 512; ++i) {
    NodeVerifyOutcome o;
    o.outcome.node = fmt::format("gpu{:03}", i);
    o.address = fmt::format("10.2.{}.{}", i / 200, i % 200);
    o.outcome.status = exec::NodeStatus::ok;
    for (const auto* name : {"nouveau_not_loaded", "driver_version", "gpu_count", "ecc_errors", "row_remap", "pcie_link",
                             "persistence_mode", "nccl_conf", "services", "exporters_active"})
      o.checks.push_back(check(name, CheckStatus::pass, "ok", "ok"));
    o.checks.push_back(check("nvlink_topology", CheckStatus::skipped, "", "", "gpu.nvlink is not declared"));
    if (i % 14 == 0) {  // 36 nodes fail, in three kinds
      o.outcome.status = exec::NodeStatus::failed;
      failing.push_back(o.outcome.node);
      auto& c = o.checks[static_cast<std::size_t>(i % 3 == 0 ? 2 : i % 3 == 1 ? 3 : 5)];
      c.status = CheckStatus::fail;
      if (c.name == "gpu_count") c.observed = "7", c.expected = "8", c.detail = "a GPU may have fallen off the bus";
      if (c.name == "ecc_errors") c.observed = "GPU 3: 2 uncorrectable volatile ECC errors", c.expected = "0";
      if (c.name == "pcie_link") c.observed = fmt::format("{}: GPU 0 at x8", o.outcome.node), c.expected = "x16";
    }
    outcomes.push_back(std::move(o));
  }
  ASSERT_EQ(failing.size(), 36u);
  const auto table = render_verify_table(outcomes);
  EXPECT_LE(std::ranges::count(table, '\n'), 60) << table;
  // Every failing node is named: the hostlists of the "Not passing" lines expand to exactly them.
  std::vector<std::string> named;
  for (auto at = table.find(" on gpu"); at != std::string::npos; at = table.find(" on gpu", at + 1)) {
    const auto start = at + 4;
    const auto end = table.find_first_of(" :", start);
    const auto nodes = hostlist::expand(table.substr(start, end - start));
    ASSERT_TRUE(nodes) << table.substr(start, end - start);
    named.insert(named.end(), nodes->begin(), nodes->end());
  }
  std::ranges::sort(named);
  EXPECT_EQ(named, failing) << table;
  // A message that names the node itself folds with the placeholder.
  EXPECT_NE(table.find("pcie_link fail on gpu["), std::string::npos) << table;
  EXPECT_NE(table.find("observed <node>: GPU 0 at x8, expected x16"), std::string::npos) << table;
  EXPECT_NE(table.find("Verify: 476 of 512 nodes pass every check."), std::string::npos);
}

// The same failure on many nodes names each node's GPU serials: they fold as <serial>.
TEST(VerifyTable, FailuresThatDifferOnlyByGpuSerialsFoldIntoOneLine) {
  std::vector<NodeVerifyOutcome> outcomes;
  for (int i = 1; i <= 3; ++i) {
    NodeVerifyOutcome o;
    o.outcome = {fmt::format("gpu{:02}", i), exec::NodeStatus::failed, "", {}};
    o.checks.push_back(check("persistence_mode", CheckStatus::fail,
                             fmt::format("GPU 0 (16549{:08}): persistence mode off; GPU 1 (16549{:08}): persistence mode off",
                                         i * 7, i * 11),
                             "persistence mode on"));
    outcomes.push_back(std::move(o));
  }
  outcomes[2].checks[0].observed = "GPU 0 (1654900000021): persistence mode off";  // one GPU only: its own line
  const auto table = render_verify_table(outcomes);
  EXPECT_NE(table.find("  persistence_mode fail on gpu[01-02] (2 nodes): observed GPU 0 (<serial>): persistence mode off; "
                       "GPU 1 (<serial>): persistence mode off, expected persistence mode on\n"),
            std::string::npos) << table;
  EXPECT_NE(table.find("  persistence_mode fail on gpu03: observed GPU 0 (1654900000021): persistence mode off"),
            std::string::npos) << table;
}

}  // namespace
}  // namespace gpuctl
