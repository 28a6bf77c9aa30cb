#include <gpuctl/apply/rollout.hpp>

#include <gtest/gtest.h>

using namespace gpuctl;

TEST(Rollout, ParsesCountsAndPercentages) {
  EXPECT_EQ(parse_batch_size("2")->batch_size, 2u);
  EXPECT_DOUBLE_EQ(parse_batch_size("25%")->batch_percent, 25.0);
  for (const char* bad : {"0", "-1", "x", "", "0%", "150%", "2x"}) EXPECT_FALSE(parse_batch_size(bad)) << bad;
  EXPECT_DOUBLE_EQ(*parse_percent("10%"), 10.0);
  EXPECT_DOUBLE_EQ(*parse_percent("0"), 0.0);
  EXPECT_FALSE(parse_percent("101%"));
}

TEST(Rollout, SplitsNodesIntoConsecutiveBatches) {
  const auto batches = make_batches(5, *parse_batch_size("2"));
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(batches[0], (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(batches[2], (std::vector<std::size_t>{4}));
}

TEST(Rollout, PercentBatchesRoundUpAndNeverEmpty) {
  EXPECT_EQ(make_batches(6, *parse_batch_size("25%")).size(), 3u);  // ceil(1.5) = 2 per batch
  EXPECT_EQ(make_batches(3, *parse_batch_size("1%")).size(), 3u);   // at least one node per batch
  EXPECT_EQ(make_batches(4, RolloutPolicy{}).size(), 1u);           // no policy: one batch
  EXPECT_TRUE(make_batches(0, RolloutPolicy{}).empty());
}

TEST(Rollout, StopsOnlyWhenFailuresExceedTheThreshold) {
  RolloutPolicy policy;
  policy.max_fail_percent = 25;
  EXPECT_FALSE(rollout_should_stop(1, 4, policy));  // exactly 25%: go on
  EXPECT_TRUE(rollout_should_stop(2, 4, policy));
  policy.max_fail_percent = 0;
  EXPECT_TRUE(rollout_should_stop(1, 10, policy));
  EXPECT_FALSE(rollout_should_stop(0, 10, policy));
  EXPECT_FALSE(rollout_should_stop(3, 3, RolloutPolicy{}));  // default 100%: never stops
}
