#include "core/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>
#include <vector>

namespace clustersim::internal {
namespace {

TEST(EventQueue, PopsInTimeThenRankThenSubjectThenInsertionOrder) {
  constexpr std::uint8_t kCompletion = 0, kCheckpointDone = 1, kRound = 7, kSample = 255;
  EventQueue queue;
  queue.push(5.0, kSample);
  queue.push(5.0, kCompletion, 7);
  queue.push(1.0, kRound);
  queue.push(5.0, kCompletion, 3);
  queue.push(5.0, kCheckpointDone, 1);
  queue.push(5.0, kCompletion, 3, 9);
  ASSERT_EQ(queue.size(), 6u);
  EXPECT_EQ(queue.pop().rank(), kRound);
  Event e = queue.pop();
  EXPECT_EQ(e.subject(), 3u);
  EXPECT_EQ(e.tag, 0u);  // same time, rank and subject: inserted first comes first
  EXPECT_EQ(queue.pop().tag, 9u);
  EXPECT_EQ(queue.pop().subject(), 7u);
  EXPECT_EQ(queue.pop().rank(), kCheckpointDone);
  EXPECT_EQ(queue.pop().rank(), kSample);
  EXPECT_TRUE(queue.empty());
}

TEST(EventQueue, SortsManyRandomTimes) {
  EventQueue queue;
  std::uint64_t x = 12345;
  for (int i = 0; i < 10000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    queue.push(static_cast<double>(x >> 40), /*rank=*/0, static_cast<std::uint32_t>(i));
  }
  double last = -1;
  while (!queue.empty()) {
    const Event e = queue.pop();
    ASSERT_GE(e.time, last);
    last = e.time;
  }
}

// Many ties (100 distinct times, 4 ranks, 50 subjects) in a heap larger than the bottom-up
// limit, popped down through it: both pop paths keep the total order, checked against a stable
// sort of the pushes by (time, rank, subject) (insertion order breaks the remaining ties).
TEST(EventQueue, PopsTiesInOrderAcrossTheBottomUpLimit) {
  struct Pushed {
    double time;
    std::uint8_t rank;
    std::uint32_t subject, tag;
  };
  std::vector<Pushed> pushed;
  EventQueue queue;
  std::uint64_t x = 99;
  for (std::uint32_t i = 0; i < 3 * 8192; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    const Pushed p{static_cast<double>((x >> 33) % 100), static_cast<std::uint8_t>((x >> 20) % 4),
                   static_cast<std::uint32_t>((x >> 45) % 50), i};
    pushed.push_back(p);
    queue.push(p.time, p.rank, p.subject, p.tag);
  }
  std::stable_sort(pushed.begin(), pushed.end(), [](const Pushed& a, const Pushed& b) {
    return std::tie(a.time, a.rank, a.subject) < std::tie(b.time, b.rank, b.subject);
  });
  for (const Pushed& expected : pushed) {
    ASSERT_FALSE(queue.empty());
    const Event e = queue.pop();
    ASSERT_EQ(e.tag, expected.tag);
    ASSERT_EQ(e.time, expected.time);
  }
  EXPECT_TRUE(queue.empty());
}

}  // namespace
}  // namespace clustersim::internal
