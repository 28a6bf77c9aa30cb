#include <gpuctl/inventory/hostlist.hpp>

#include <gtest/gtest.h>

#include <set>

using gpuctl::hostlist::compress;
using gpuctl::hostlist::expand;
using Names = std::vector<std::string>;

namespace {

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

}  // namespace
