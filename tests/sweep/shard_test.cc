// --shard K/N: parsing, and the cost-balanced, deterministic split of a grid's points.
#include "clustersim/sweep/shard.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "clustersim/error.h"
#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/point_config.h"

namespace clustersim::sweep {
namespace {

TEST(SweepShard, ParsesKOfN) {
  ShardSpec shard = parse_shard("2/5");
  EXPECT_EQ(shard.index, 2u);
  EXPECT_EQ(shard.count, 5u);
  EXPECT_TRUE(shard.sharded());
  EXPECT_EQ(shard.text(), "2/5");
  EXPECT_FALSE(parse_shard("").sharded());
  // One shard is the whole grid, stored as no shard at all.
  EXPECT_FALSE(parse_shard("0/1").sharded());
  EXPECT_EQ(parse_shard("0/1").text(), "");
  EXPECT_EQ(parse_shard("0/1"), ShardSpec{});
}

TEST(SweepShard, RejectsWhatIsNotKOfN) {
  for (const char* bad :
       {"5/5", "6/5", "1/0", "0/0", "1", "a/b", "-1/4", "1/4x", "/4", "1/", " 1/4"}) {
    EXPECT_THROW(parse_shard(bad), InputError) << bad;
  }
  try {
    parse_shard("4/4");
    FAIL();
  } catch (const InputError& error) {
    EXPECT_THAT(error.what(), ::testing::HasSubstr("--shard"));
    EXPECT_THAT(error.what(), ::testing::HasSubstr("0..3"));
  }
}

TEST(SweepShard, LongestFirstGoesToTheLeastLoadedShard) {
  // By hand: 5 -> s0; 3 -> s1; 3 -> s1 (3 < 5); 2 -> s0 (6 > 5); 2 -> s1 (6 < 7); 1 -> s0 (7 < 8).
  EXPECT_EQ(assign_shards({5, 3, 3, 2, 2, 1}, 2), (std::vector<std::uint32_t>{0, 1, 1, 0, 1, 0}));
  // Equal costs: round robin in point order; more shards than points leaves some empty.
  EXPECT_EQ(assign_shards({1, 1, 1, 1, 1}, 3), (std::vector<std::uint32_t>{0, 1, 2, 0, 1}));
  EXPECT_EQ(assign_shards({1, 1}, 4), (std::vector<std::uint32_t>{0, 1}));
  EXPECT_EQ(assign_shards({4, 2}, 1), (std::vector<std::uint32_t>{0, 0}));
}

TEST(SweepShard, SplitIsDeterministicAndBalancedByCost) {
  std::vector<double> costs;
  std::uint64_t state = 12345;
  for (int i = 0; i < 1000; ++i) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    costs.push_back(1.0 + static_cast<double>(state >> 40) / 1e4);  // 1 .. ~1700
  }
  const double largest = *std::max_element(costs.begin(), costs.end());
  for (std::size_t shards : {2u, 3u, 7u, 16u}) {
    auto split = assign_shards(costs, shards);
    EXPECT_EQ(split, assign_shards(costs, shards));  // same answer every time
    std::vector<double> load(shards, 0.0);
    for (std::size_t id = 0; id < costs.size(); ++id) {
      ASSERT_LT(split[id], shards);
      load[split[id]] += costs[id];
    }
    auto [low, high] = std::minmax_element(load.begin(), load.end());
    EXPECT_LE(*high - *low, largest) << shards << " shards";
    // Far better than the bound in practice: within 1% of the mean here.
    const double mean = std::accumulate(load.begin(), load.end(), 0.0) / shards;
    EXPECT_LT(*high, mean * 1.01) << shards << " shards";
  }
}

TEST(SweepShard, EveryPointOfAGridIsInExactlyOneShard) {
  Grid grid = parse_grid(R"(
[cluster]
nodes = 4
[workload]
generator = "philly"
jobs = 50
[sweep]
"scheduler.policy" = ["fifo", "las", "tiresias"]
"cluster.nodes" = [2, 8]
"workload.jobs" = [50, 400]
seeds = 3
)",
                         "g.toml", ".");
  GridCheck check = validate_grid(grid);
  const std::size_t shards = 5;
  std::vector<int> seen(grid.size(), 0);
  std::vector<double> shard_cost(shards, 0.0);
  for (std::size_t k = 0; k < shards; ++k) {
    std::vector<bool> members = shard_members(grid, check, ShardSpec{k, shards});
    ASSERT_EQ(members.size(), grid.size());
    for (std::uint64_t id = 0; id < grid.size(); ++id) {
      if (!members[id]) continue;
      ++seen[id];
      shard_cost[k] += check.config_cost[id / grid.replicates];
    }
  }
  EXPECT_THAT(seen, ::testing::Each(1));
  auto costs = point_costs(grid, check);
  auto [low, high] = std::minmax_element(shard_cost.begin(), shard_cost.end());
  EXPECT_LE(*high - *low, *std::max_element(costs.begin(), costs.end()));
  // Not sharded: every point.
  EXPECT_THAT(shard_members(grid, check, ShardSpec{}), ::testing::Each(true));
}

TEST(SweepShard, ResumeRefusesAnotherShard) {
  EXPECT_NO_THROW(check_same_shard("r.h5", "1/4", "1/4"));
  EXPECT_NO_THROW(check_same_shard("r.h5", "", ""));
  auto message = [](const char* recorded, const char* requested) {
    try {
      check_same_shard("r.h5.journal", recorded, requested);
    } catch (const InputError& error) {
      return std::string(error.what());
    }
    return std::string("no error");
  };
  EXPECT_THAT(message("0/4", "1/4"), ::testing::HasSubstr("its own --out"));
  EXPECT_THAT(message("0/4", ""), ::testing::HasSubstr("resume it with --shard 0/4"));
  EXPECT_THAT(message("", "2/4"), ::testing::HasSubstr("without --shard"));
  EXPECT_THAT(message("0/4", "1/4"), ::testing::StartsWith("r.h5.journal: "));
}

}  // namespace
}  // namespace clustersim::sweep
