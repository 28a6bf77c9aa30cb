#include <gpuctl/inventory/loader.hpp>
#include <gpuctl_build_paths.hpp>

#include <gtest/gtest.h>

using namespace gpuctl;

namespace {

Inventory example() {
  auto result = load_inventory(std::string(GPUCTL_SOURCE_DIR) + "/docs/examples/cluster.yaml");
  EXPECT_TRUE(result.ok());
  return *result.inventory;
}

std::vector<std::string> names(const std::vector<const Node*>& nodes) {
  std::vector<std::string> out;
  for (const auto* node : nodes) out.push_back(node->name);
  return out;
}

TEST(SelectNodes, EmptyPatternSelectsAll) {
  const auto inv = example();
  auto selected = select_nodes(inv, "");
  ASSERT_TRUE(selected);
  EXPECT_EQ(selected->size(), 9u);
}

TEST(SelectNodes, MixesGroupsAndHostlistsInInventoryOrder) {
  const auto inv = example();
  auto selected = select_nodes(inv, "gpu0[7-8],head");
  ASSERT_TRUE(selected) << selected.error().to_string();
  EXPECT_EQ(names(*selected), (std::vector<std::string>{"head01", "gpu07", "gpu08"}));
}

TEST(SelectNodes, GroupNameSelectsItsMembers) {
  const auto inv = example();
  auto selected = select_nodes(inv, "gpu");
  ASSERT_TRUE(selected);
  EXPECT_EQ(selected->size(), 8u);
}

TEST(SelectNodes, UnknownNameIsAnErrorWithSuggestion) {
  const auto inv = example();
  auto selected = select_nodes(inv, "gpu01,gpu99");
  ASSERT_FALSE(selected);
  EXPECT_EQ(selected.error().code, ErrorCode::not_found);
  EXPECT_NE(selected.error().message.find("'gpu99'"), std::string::npos);
  EXPECT_FALSE(selected.error().hint.empty());
}

TEST(SelectNodes, AllAtGroupAndExclusionsAsAnsibleAndClusterShellWriteThem) {
  const auto inv = example();
  const auto pick = [&](std::string_view pattern) {
    auto selected = select_nodes(inv, pattern);
    EXPECT_TRUE(selected) << pattern << ": " << selected.error().to_string();
    return selected ? names(*selected) : std::vector<std::string>{};
  };
  EXPECT_EQ(pick("all").size(), 9u);
  EXPECT_EQ(pick("@gpu").size(), 8u);
  EXPECT_EQ(pick("all,!gpu07"), pick("!gpu07")) << "only exclusions: everything else";
  EXPECT_EQ(pick("!gpu07").size(), 8u);
  EXPECT_EQ(pick("gpu,!gpu0[2-8]"), (std::vector<std::string>{"gpu01"}));
  EXPECT_EQ(pick("@gpu,!@gpu"), (std::vector<std::string>{}));
  EXPECT_EQ(pick("all,!head"), pick("gpu")) << "a group excluded by name";
  EXPECT_EQ(pick("gpu0[1,3], head01"), (std::vector<std::string>{"head01", "gpu01", "gpu03"}))
      << "a comma inside brackets is the hostlist's; spaces around terms are fine";
}

TEST(SelectNodes, AtNamesOnlyAGroupAndEmptyTermsAreErrors) {
  const auto inv = example();
  auto selected = select_nodes(inv, "@gpu01");
  ASSERT_FALSE(selected);
  EXPECT_EQ(selected.error().code, ErrorCode::not_found);
  EXPECT_NE(selected.error().message.find("'@gpu01' is not a group"), std::string::npos) << selected.error().message;
  for (const auto* bad : {"gpu01,,gpu02", "gpu01,!", ","}) {
    selected = select_nodes(inv, bad);
    ASSERT_FALSE(selected) << bad;
    EXPECT_EQ(selected.error().code, ErrorCode::parse) << bad;
  }
  selected = select_nodes(inv, "!gpu99");
  ASSERT_FALSE(selected);
  EXPECT_NE(selected.error().message.find("'gpu99'"), std::string::npos);
}

TEST(SelectNodes, BadHostlistIsAParseError) {
  const auto inv = example();
  auto selected = select_nodes(inv, "gpu[01-");
  ASSERT_FALSE(selected);
  EXPECT_EQ(selected.error().code, ErrorCode::parse);
}

}  // namespace
