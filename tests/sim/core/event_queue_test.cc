#include "clustersim/event_queue.h"

#include <gtest/gtest.h>

namespace clustersim {
namespace {

TEST(EventQueue, PopsInTimeThenKindThenJobThenInsertionOrder) {
  EventQueue queue;
  queue.push(5.0, EventKind::kSample);
  queue.push(5.0, EventKind::kCompletion, 7);
  queue.push(1.0, EventKind::kRound);
  queue.push(5.0, EventKind::kCompletion, 3);
  queue.push(5.0, EventKind::kCheckpointDone, 1);
  queue.push(5.0, EventKind::kCompletion, 3, 9);
  ASSERT_EQ(queue.size(), 6u);
  EXPECT_EQ(queue.pop().kind, EventKind::kRound);
  Event e = queue.pop();
  EXPECT_EQ(e.job, 3u);
  EXPECT_EQ(e.epoch, 0u);  // same time, kind and job: inserted first comes first
  EXPECT_EQ(queue.pop().epoch, 9u);
  EXPECT_EQ(queue.pop().job, 7u);
  EXPECT_EQ(queue.pop().kind, EventKind::kCheckpointDone);
  EXPECT_EQ(queue.pop().kind, EventKind::kSample);
  EXPECT_TRUE(queue.empty());
}

TEST(EventQueue, SortsManyRandomTimes) {
  EventQueue queue;
  std::uint64_t x = 12345;
  for (int i = 0; i < 10000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    queue.push(static_cast<double>(x >> 40), EventKind::kCompletion, static_cast<std::uint32_t>(i));
  }
  double last = -1;
  while (!queue.empty()) {
    const Event e = queue.pop();
    ASSERT_GE(e.time, last);
    last = e.time;
  }
}

}  // namespace
}  // namespace clustersim
