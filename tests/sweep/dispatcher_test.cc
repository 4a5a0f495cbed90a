// Dynamic dispatch: largest cost first, chunks that shrink, every point exactly once.
#include "clustersim/sweep/dispatcher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

namespace clustersim::sweep {
namespace {

std::vector<PendingPoint> points_with_costs(std::size_t count) {
  std::vector<PendingPoint> points;
  for (std::size_t i = 0; i < count; ++i) points.push_back({i, 1.0 + static_cast<double>(i % 7)});
  return points;
}

TEST(SweepDispatcher, HandsOutEveryPointExactlyOnceLargestFirst) {
  Dispatcher dispatcher(points_with_costs(500), 4);
  std::multiset<std::uint64_t> seen;
  double previous_cost = 1e9;
  while (!dispatcher.empty()) {
    auto chunk = dispatcher.next_chunk();
    ASSERT_FALSE(chunk.empty());
    for (auto id : chunk) {
      double cost = 1.0 + static_cast<double>(id % 7);
      EXPECT_LE(cost, previous_cost);
      previous_cost = cost;
      seen.insert(id);
    }
  }
  EXPECT_TRUE(dispatcher.next_chunk().empty());
  EXPECT_EQ(seen.size(), 500u);
  EXPECT_EQ(std::set<std::uint64_t>(seen.begin(), seen.end()).size(), 500u);
  EXPECT_DOUBLE_EQ(dispatcher.remaining_cost(), 0.0);
}

TEST(SweepDispatcher, ChunksShrinkTowardTheEnd) {
  std::vector<PendingPoint> uniform;
  for (std::uint64_t i = 0; i < 1000; ++i) uniform.push_back({i, 1.0});
  Dispatcher dispatcher(uniform, 8, DispatchOptions{2.0, 1000});
  std::vector<std::size_t> sizes;
  while (!dispatcher.empty()) sizes.push_back(dispatcher.next_chunk().size());
  EXPECT_EQ(sizes.front(), 62u);  // 1000 / (2 x 8)
  EXPECT_TRUE(std::is_sorted(sizes.rbegin(), sizes.rend()));
  EXPECT_EQ(sizes.back(), 1u);
}

TEST(SweepDispatcher, AnExpensivePointGoesAloneAndChunksRespectTheCap) {
  std::vector<PendingPoint> points{{0, 1000.0}};
  for (std::uint64_t i = 1; i <= 100; ++i) points.push_back({i, 1.0});
  Dispatcher dispatcher(points, 2, DispatchOptions{2.0, 8});
  EXPECT_EQ(dispatcher.next_chunk(), std::vector<std::uint64_t>{0});  // 1000 > 1100 / 4 alone
  EXPECT_EQ(dispatcher.next_chunk().size(), 8u);                      // 100 / 4 = 25, capped at 8
}

TEST(SweepDispatcher, EmptyGrid) {
  Dispatcher dispatcher({}, 2);
  EXPECT_TRUE(dispatcher.empty());
  EXPECT_TRUE(dispatcher.next_chunk().empty());
}

}  // namespace
}  // namespace clustersim::sweep
