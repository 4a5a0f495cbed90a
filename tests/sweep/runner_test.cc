// The TBB arena runs `threads` points at once although the main thread never joins it.
// (Each point waits until `threads` ran at once: the check does not depend on timing.)
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>

#include "clustersim/sweep/point_runner.h"

namespace clustersim::sweep {
namespace {

TEST(SweepPointRunner, RunsThreadsPointsConcurrentlyWithoutTheMainThread) {
  for (int threads : {1, 2, 3}) {
    std::atomic<int> active{0}, most{0};
    PointRunner runner(threads, [&](std::uint64_t id) {
      int now = ++active;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      // Stay until `threads` points were seen running at once (or 10 s: then they never were
      // and the check below fails). A fixed sleep here failed on a loaded machine, where a
      // thread may start more than that late.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (most.load() < threads && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      --active;
      PointResult result;
      result.point_id = id;
      return result;
    });
    std::set<std::uint64_t> done;
    std::uint64_t next = 0;
    const std::uint64_t total = 3 * static_cast<std::uint64_t>(threads);
    while (done.size() < total) {
      while (next < total && runner.running() < static_cast<std::size_t>(threads))
        runner.submit(next++);
      runner.wait_for_completion(std::chrono::milliseconds(100));
      for (auto& result : runner.take_completed()) done.insert(result.point_id);
    }
    EXPECT_EQ(most.load(), threads) << "threads=" << threads;
    EXPECT_EQ(done.size(), total);
  }
}

TEST(SweepPointRunner, ThreadCountFollowsFlagThenSlurmThenAffinity) {
  EXPECT_EQ(choose_thread_count(3), 3);
  setenv("SLURM_CPUS_PER_TASK", "5", 1);
  EXPECT_EQ(choose_thread_count(0), 5);
  unsetenv("SLURM_CPUS_PER_TASK");
  EXPECT_GE(choose_thread_count(0), 1);
}

}  // namespace
}  // namespace clustersim::sweep
