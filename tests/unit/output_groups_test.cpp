#include <gpuctl/exec/output_groups.hpp>

#include <gtest/gtest.h>

using namespace gpuctl::exec;

TEST(GroupOutputs, FoldsIdenticalOutputUnderOneCompressedHostlist) {
  const auto groups = group_outputs({{"gpu01", "550.127.08\n", "", 0},
                                      {"gpu02", "550.127.08\n", "", 0},
                                      {"gpu03", "535.54.03\n", "", 0},
                                      {"gpu04", "550.127.08\n", "", 0}});
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].hostlist, "gpu[01-02,04]");
  EXPECT_EQ(groups[0].out, "550.127.08\n");
  EXPECT_EQ((groups[0].nodes), (std::vector<std::string>{"gpu01", "gpu02", "gpu04"}));
  EXPECT_EQ(groups[1].hostlist, "gpu03");
}

TEST(GroupOutputs, SameOutputWithDifferentExitCodeOrStderrIsNotFolded) {
  const auto groups = group_outputs({{"n1", "x\n", "", 0}, {"n2", "x\n", "", 1}, {"n3", "x\n", "warn\n", 0},
                                      {"n4", "x\n", "", 1}});
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].hostlist, "n1");
  EXPECT_EQ(groups[1].hostlist, "n[2,4]");
  EXPECT_EQ(groups[1].exit_code, 1);
  EXPECT_EQ(groups[2].err, "warn\n");
}

TEST(GroupOutputs, EmptyInputGivesNoGroups) { EXPECT_TRUE(group_outputs({}).empty()); }
