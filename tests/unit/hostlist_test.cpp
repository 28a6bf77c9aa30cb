#include <gpuctl/inventory/hostlist.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

using gpuctl::hostlist::compress;
using gpuctl::hostlist::compress_for_slurm;
using gpuctl::hostlist::expand;
using Names = std::vector<std::string>;

namespace {

std::string fmt_rack(int rack, int node) {
  char name[32];
  std::snprintf(name, sizeof name, "r%02dn%02d", rack, node);
  return name;
}

struct ExpandCase {
  const char* expression;
  Names expected;
};

class HostlistExpand : public ::testing::TestWithParam<ExpandCase> {};

TEST_P(HostlistExpand, MatchesScontrolShowHostnames) {
  const auto& c = GetParam();
  auto names = expand(c.expression);
  ASSERT_TRUE(names.has_value()) << c.expression << ": " << names.error().to_string();
  EXPECT_EQ(*names, c.expected) << c.expression;
}

INSTANTIATE_TEST_SUITE_P(
    Table, HostlistExpand,
    ::testing::Values(
        ExpandCase{"head01", {"head01"}},
        ExpandCase{"node[1-3]", {"node1", "node2", "node3"}},
        ExpandCase{"node[01-03,10]", {"node01", "node02", "node03", "node10"}},
        ExpandCase{"node[08-10]", {"node08", "node09", "node10"}},
        ExpandCase{"node[098-100]", {"node098", "node099", "node100"}},
        // Slurm: the low end sets the width, a longer high end just grows.
        ExpandCase{"node[0-2]", {"node0", "node1", "node2"}},
        ExpandCase{"node5", {"node5"}},
        ExpandCase{"node[5]", {"node5"}},
        ExpandCase{"rack[1-2]-gpu[001-002]", {"rack1-gpu001", "rack1-gpu002", "rack2-gpu001", "rack2-gpu002"}},
        ExpandCase{"a,b[1-2],c", {"a", "b1", "b2", "c"}},
        ExpandCase{"a, b", {"a", "b"}},
        ExpandCase{"[1-2]x", {"1x", "2x"}},
        ExpandCase{"node[1-2],node[2-3]", {"node1", "node2", "node3"}},
        ExpandCase{"gpu-[7,3]", {"gpu-7", "gpu-3"}}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(Hostlist, LowEndSetsPaddingAndHighEndMayBeWider) {
  auto names = expand("n[98-100]");
  ASSERT_TRUE(names);
  EXPECT_EQ(*names, (Names{"n98", "n99", "n100"}));
  names = expand("n[01-100]");
  ASSERT_TRUE(names);
  ASSERT_EQ(names->size(), 100u);
  EXPECT_EQ(names->front(), "n01");
  EXPECT_EQ((*names)[98], "n99");
  EXPECT_EQ(names->back(), "n100");
}

struct ErrorCase {
  const char* expression;
  int column;
  const char* message;
};

class HostlistErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(HostlistErrors, ReportsWhatAndWhere) {
  const auto& c = GetParam();
  auto names = expand(c.expression, 1000);
  ASSERT_FALSE(names.has_value()) << c.expression << " should fail";
  EXPECT_EQ(names.error().code, gpuctl::ErrorCode::parse);
  EXPECT_EQ(names.error().where.column, c.column) << c.expression << ": " << names.error().to_string();
  EXPECT_NE(names.error().message.find(c.message), std::string::npos)
      << c.expression << ": got '" << names.error().message << "', want '" << c.message << "'";
}

INSTANTIATE_TEST_SUITE_P(
    Table, HostlistErrors,
    ::testing::Values(
        ErrorCase{"node[1-3", 5, "missing ']'"},
        ErrorCase{"node1-3]", 8, "unbalanced ']'"},
        ErrorCase{"node[1-[2]]", 8, "nested '['"},
        ErrorCase{"node[]", 5, "empty brackets"},
        ErrorCase{"node[1,,3]", 8, "empty range"},
        ErrorCase{"node[1-]", 8, "incomplete range"},
        ErrorCase{"node[-3]", 6, "incomplete range"},
        ErrorCase{"node[5-1]", 6, "reversed range '5-1'"},
        ErrorCase{"node[a-3]", 6, "'a' is not a number"},
        ErrorCase{"node[1-x]", 8, "'x' is not a number"},
        ErrorCase{"node[1-2/2]", 9, "not a number"},
        ErrorCase{"node[01-001]", 6, "padding mismatch"},
        ErrorCase{"node[1-010]", 6, "padding mismatch"},
        ErrorCase{"node[001-10]", 6, "padding mismatch"},
        ErrorCase{"node[1-1001]", 1, "more than 1000 names"},
        ErrorCase{"a,node[1-999],b[1-2]", 15, "more than 1000 names"},
        ErrorCase{"x[1-100]y[1-100]", 1, "more than 1000 names"},
        ErrorCase{"node[1-99999999999999999999]", 8, "too large"},
        ErrorCase{"a,,b", 3, "empty name"},
        ErrorCase{"a,", 3, "empty name"},
        ErrorCase{"", 1, "empty hostlist"}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(Hostlist, CapDefaultsToOneHundredThousand) {
  EXPECT_FALSE(expand("n[1-100001]"));
  EXPECT_TRUE(expand("n[1-100000]"));
  // Cartesian products are counted before anything is generated.
  EXPECT_FALSE(expand("a[1-100000]b[1-100000]c[1-100000]"));
}

struct CompressCase {
  Names names;
  const char* expected;
};

class HostlistCompress : public ::testing::TestWithParam<CompressCase> {};

TEST_P(HostlistCompress, MatchesNodesetFold) {
  const auto& c = GetParam();
  const auto folded = compress(c.names);
  EXPECT_EQ(folded, c.expected);
  // Folding loses nothing: expanding gives back the same set.
  auto back = expand(folded);
  ASSERT_TRUE(back) << folded << ": " << back.error().to_string();
  EXPECT_EQ(std::set<std::string>(back->begin(), back->end()),
            std::set<std::string>(c.names.begin(), c.names.end()));
}

INSTANTIATE_TEST_SUITE_P(
    Table, HostlistCompress,
    ::testing::Values(
        CompressCase{{"node1"}, "node1"},
        CompressCase{{"node3", "node1", "node2"}, "node[1-3]"},
        CompressCase{{"node01", "node02", "node03", "node10"}, "node[01-03,10]"},
        CompressCase{{"node09", "node10", "node11"}, "node[09-11]"},
        CompressCase{{"node99", "node100"}, "node[99-100]"},
        CompressCase{{"node1", "node01"}, "node[1,01]"},
        // Like `nodeset -f`: numbers of one width together, a padded one after the shorter ones.
        CompressCase{{"n1", "n2", "n3", "n5", "n01"}, "n[1-3,5,01]"},
        CompressCase{{"n08", "n09", "n10"}, "n[08-10]"},
        CompressCase{{"n99", "n100", "n101"}, "n[99-101]"},
        CompressCase{{"head", "gpu2", "gpu1", "gpu1"}, "gpu[1-2],head"},
        CompressCase{{"rack1-gpu001", "rack1-gpu002", "rack2-gpu001", "rack2-gpu002"}, "rack[1-2]-gpu[001-002]"},
        CompressCase{{"rack1-gpu1", "rack1-gpu2", "rack2-gpu1"}, "rack1-gpu[1-2],rack2-gpu1"},
        CompressCase{{"n10", "n9", "n2"}, "n[2,9-10]"}),
    [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(Hostlist, CompressOfNothingIsEmpty) { EXPECT_EQ(compress({}), ""); }

// Hostlists for Slurm's files: the forms Slurm 22.05's parser accepts (checked against the
// real `scontrol show hostnames` below when it is installed; the expected strings hold without).
Names range(const std::string& prefix, int low, int high, int width, const std::string& suffix = "") {
  Names names;
  for (int i = low; i <= high; ++i) {
    auto number = std::to_string(i);
    if (number.size() < static_cast<std::size_t>(width)) number.insert(0, width - number.size(), '0');
    names.push_back(prefix + number + suffix);
  }
  return names;
}

// r01n01..r04n16 with r02n07, r03n01 and r04n09..r04n16 missing.
Names racks_with_holes() {
  Names names;
  for (int rack = 1; rack <= 4; ++rack)
    for (int node = 1; node <= 16; ++node) {
      if ((rack == 2 && node == 7) || (rack == 3 && node == 1) || (rack == 4 && node > 8)) continue;
      names.push_back(fmt_rack(rack, node));
    }
  return names;
}

std::vector<CompressCase> slurm_cases() {
  return {
      {range("gpu", 1, 12, 3), "gpu[001-012]"},
      {{"r01n05"}, "r01n05"},
      {{"r01n05", "r02n05", "r03n05"}, "r[01-03]n[05]"},  // ClusterShell: r[01-03]n05
      {{"r01n01", "r01n02", "r02n01", "r02n02"}, "r[01-02]n[01-02]"},
      {racks_with_holes(), "r01n[01-16],r02n[01-06,08-16],r03n[02-16],r04n[01-08]"},
      {{"r1n1", "r1n2", "r2n1", "r3n1"}, "r1n[1-2],r[2-3]n[1]"},
      {{"rack1-gpu07"}, "rack1-gpu07"},
      {{"rack1-gpu07", "rack2-gpu07"}, "rack[1-2]-gpu[07]"},
      {range("rack", 1, 4, 2, "-gpu34"), "rack[01-04]-gpu[34]"},
      {{"rack1-gpu01", "rack1-gpu02", "rack2-gpu01", "rack2-gpu02", "rack1-gpu07", "rack2-gpu07"}, "rack[1-2]-gpu[01-02,07]"},
      {{"dgx-h100-01", "dgx-h100-02", "dgx-h100-04"}, "dgx-h100-[01-02,04]"},
      {{"dgx-h100-01", "dgx-h200-01"}, "dgx-h[100,200]-[01]"},
      {{"gpu9", "gpu10", "gpu011"}, "gpu[9-10,011]"},
      {{"node1", "node01"}, "node[1,01]"},
      // A name ending in a letter cannot end in a bracket: listed, never folded.
      {{"gpu01-ib", "gpu02-ib"}, "gpu01-ib,gpu02-ib"},
      {{"rack1-gpu01a", "rack2-gpu01a"}, "rack1-gpu01a,rack2-gpu01a"},
      {{"head", "gpu2", "gpu1"}, "gpu[1-2],head"},
      // At most two ranges per name: Slurm expands three in another order than expand().
      {{"c1r1n1", "c1r1n2", "c1r2n1", "c1r2n2", "c2r1n1", "c2r1n2", "c2r2n1", "c2r2n2"}, "c1r[1-2]n[1-2],c2r[1-2]n[1-2]"},
      {{"c1r1n1", "c2r1n1"}, "c[1-2]r1n[1]"},
      // ... counting the bracket the last number gets (found by fuzzing: Slurm expands
      // "c[1-2]r[1-2]n[1]" as c1r1n1 c2r1n1 c1r2n1 c2r2n1).
      {{"c1r1n1", "c1r2n1", "c2r1n1", "c2r2n1"}, "c1r[1-2]n[1],c2r[1-2]n[1]"},
      {{"c1r1n1", "c1r1n2", "c1r2n1", "c1r2n2"}, "c1r[1-2]n[1-2]"},
      // NodeAddr: addresses fold the same way.
      {range("10.10.1.", 1, 8, 0), "10.10.1.[1-8]"},
      {{"10.0.1.1", "10.0.2.1"}, "10.0.[1-2].[1]"},  // ClusterShell: 10.0.[1-2].1
      {{"10.0.1.1", "10.0.1.2", "10.0.2.1", "10.0.2.2"}, "10.0.[1-2].[1-2]"},
      {{"fd00::1", "fd00::2"}, "fd00::[1-2]"},
  };
}

// True when `expression` has only names that end at their last bracket and at most two
// brackets each (top-level commas separate names; commas inside brackets do not).
bool slurm_shaped(const std::string& expression) {
  std::size_t brackets = 0;
  bool inside = false;
  for (std::size_t i = 0; i <= expression.size(); ++i) {
    const char c = i < expression.size() ? expression[i] : ',';
    if (c == '[') inside = true, ++brackets;
    if (c == ']') inside = false;
    if (c == ',' && !inside) {
      if (brackets > 2 || (brackets > 0 && expression[i - 1] != ']')) return false;
      brackets = 0;
    }
  }
  return true;
}

class HostlistCompressForSlurm : public ::testing::TestWithParam<CompressCase> {};

TEST_P(HostlistCompressForSlurm, FoldsInFormsSlurmAccepts) {
  const auto& c = GetParam();
  const auto folded = compress_for_slurm(c.names);
  EXPECT_EQ(folded, c.expected);
  EXPECT_TRUE(slurm_shaped(folded)) << folded;
  auto back = expand(folded);
  ASSERT_TRUE(back) << folded << ": " << back.error().to_string();
  EXPECT_EQ(std::set<std::string>(back->begin(), back->end()), std::set<std::string>(c.names.begin(), c.names.end()));
}

INSTANTIATE_TEST_SUITE_P(Corpus, HostlistCompressForSlurm, ::testing::ValuesIn(slurm_cases()),
                         [](const auto& info) { return "case" + std::to_string(info.index); });

TEST(Hostlist, CompressForSlurmLeavesTheClusterShellFoldAlone) {
  // gpuctl hostlist compress and the run output keep nodeset's fold.
  EXPECT_EQ(compress({"r01n05", "r02n05"}), "r[01-02]n05");
  EXPECT_EQ(compress({"gpu01-ib", "gpu02-ib"}), "gpu[01-02]-ib");
  EXPECT_EQ(compress_for_slurm({}), "");
}

// Every shape of a rack grid up to 3x3 (each of the 512 subsets): Slurm's form holds the same
// names, is shaped as Slurm wants, and expand() lists them as Slurm does (first range slowest).
TEST(Hostlist, CompressForSlurmHoldsEverySubsetOfARackGrid) {
  for (unsigned mask = 1; mask < 512; ++mask) {
    Names names;
    for (unsigned bit = 0; bit < 9; ++bit)
      if (mask & (1u << bit)) names.push_back(fmt_rack(bit / 3 + 1, bit % 3 + 1));
    const auto folded = compress_for_slurm(names);
    EXPECT_TRUE(slurm_shaped(folded)) << folded;
    auto back = expand(folded);
    ASSERT_TRUE(back) << folded;
    EXPECT_EQ(std::set<std::string>(back->begin(), back->end()), std::set<std::string>(names.begin(), names.end())) << folded;
  }
}

// The real parser, where Slurm is installed: `scontrol show hostnames` needs no controller,
// only a slurm.conf to read. Returns the names in Slurm's order, or "error: ..." as one entry.
std::filesystem::path scontrol_binary() {
  for (const char* path : {"/usr/bin/scontrol", "/usr/local/bin/scontrol"})
    if (access(path, X_OK) == 0) return path;
  return {};
}

Names scontrol_hostnames(const std::filesystem::path& scontrol, const std::filesystem::path& conf, const std::string& expression) {
  const std::string command = "SLURM_CONF='" + conf.string() + "' '" + scontrol.string() + "' show hostnames '" + expression + "' 2>&1";
  std::string output;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    while (const auto n = fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
    if (pclose(pipe) != 0) return {"error: " + output};
  }
  Names names;
  for (std::size_t start = 0, end; start < output.size(); start = end + 1) {
    end = output.find('\n', start);
    if (end == std::string::npos) end = output.size();
    if (end > start) names.push_back(output.substr(start, end - start));
  }
  return names;
}

// The subset `mask` (8 bits) of the cube c[1-2]r[1-2]n[1-2].
Names cube_subset(unsigned mask) {
  Names names;
  for (unsigned bit = 0; bit < 8; ++bit)
    if (mask & (1u << bit))
      names.push_back("c" + std::to_string(bit / 4 + 1) + "r" + std::to_string(bit / 2 % 2 + 1) + "n" + std::to_string(bit % 2 + 1));
  return names;
}

TEST(Hostlist, CompressForSlurmHoldsEverySubsetOfACube) {
  for (unsigned mask = 1; mask < 256; ++mask) {
    const auto names = cube_subset(mask);
    const auto folded = compress_for_slurm(names);
    EXPECT_TRUE(slurm_shaped(folded)) << folded;
    auto back = expand(folded);
    ASSERT_TRUE(back) << folded;
    EXPECT_EQ(std::set<std::string>(back->begin(), back->end()), std::set<std::string>(names.begin(), names.end())) << folded;
  }
}

TEST(Hostlist, RealScontrolExpandsEverySlurmFoldAsExpandDoes) {
  const auto scontrol = scontrol_binary();
  if (scontrol.empty()) GTEST_SKIP() << "scontrol not installed (apt-get install slurm-client)";
  char dir[] = "/tmp/gpuctl-scontrol-XXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const auto conf = std::filesystem::path(dir) / "slurm.conf";
  std::ofstream(conf) << "ClusterName=hostlists\nSlurmctldHost=localhost\n";
  // The check can fail: ClusterShell's fold of rack names is refused.
  EXPECT_TRUE(scontrol_hostnames(scontrol, conf, "r[01-02]n01").at(0).starts_with("Invalid hostlist"));
  auto forms = slurm_cases();
  for (unsigned mask : {0x1ffu, 0x1b5u, 0x0f3u, 0x155u})  // grids from the subset test
  {
    Names names;
    for (unsigned bit = 0; bit < 9; ++bit)
      if (mask & (1u << bit)) names.push_back(fmt_rack(bit / 3 + 1, bit % 3 + 1));
    forms.push_back({names, ""});
  }
  // Three numbers per name: where a third bracket would change Slurm's order.
  for (unsigned mask = 1; mask < 256; ++mask) forms.push_back({cube_subset(mask), ""});
  // One scontrol run for all forms (it takes ~50 ms): joined with commas, Slurm lists each
  // form's names in turn, keeping repeats. Form by form only to name the one that differs.
  std::string joined;
  Names ours;
  for (const auto& c : forms) {
    const auto folded = compress_for_slurm(c.names);
    const auto names = expand(folded);
    ASSERT_TRUE(names) << folded;
    joined += (joined.empty() ? "" : ",") + folded;
    ours.insert(ours.end(), names->begin(), names->end());
  }
  if (scontrol_hostnames(scontrol, conf, joined) != ours)
    for (const auto& c : forms) {
      const auto folded = compress_for_slurm(c.names);
      EXPECT_EQ(scontrol_hostnames(scontrol, conf, folded), *expand(folded)) << folded;
    }
  std::filesystem::remove_all(dir);
}

}  // namespace
