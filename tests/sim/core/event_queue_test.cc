#include "core/event_queue.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace clustersim::internal
