// The event loop must not allocate per event: after the tables sized at load, the only
// allocations are the geometric growth of a few reused buffers. Counted with a replaced global
// operator new (this test is its own executable so the counter sees nothing else).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>

#include "clustersim/options.h"
#include "clustersim/simulator.h"
#include "test_util.h"

namespace {
std::atomic<std::size_t> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  ++allocations;
  if (void* p = std::malloc(size == 0 ? 1 : size)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace clustersim {
namespace {

struct Counted {
  std::size_t allocations;
  std::uint64_t events;
};

Counted count_run(const std::string& policy, std::size_t jobs) {
  SimOptions options = testing::small_cluster(16, 8, 4);
  options.check_invariants = false;  // the checker allocates by design
  options.cluster.vcs = {{"a", 64}, {"b", 64}};
  options.scheduler.vc_quota = VcQuotaMode::kLend;
  options.scheduler.policy = policy;
  options.scheduler.lease_s = 120;
  options.scheduler.checkpoint_s = 5;
  options.scheduler.restore_s = 5;
  options.sample_interval_s = 0;
  const auto workload = testing::random_jobs(jobs, 8.0, 600.0, {1, 2, 4, 8}, 3, {"a", "b"});
  const std::size_t before = allocations.load();
  const RunResult result = simulate(options, workload);
  return {allocations.load() - before, result.metrics.events};
}

TEST(Allocation, EventLoopDoesNotAllocatePerEvent) {
  // The key registry (options.h) is built once per process, at the first run's validation: not
  // part of what a run costs.
  simulator_keys();
  for (const std::string policy : {"fifo", "tiresias", "drf"}) {
    const Counted small = count_run(policy, 5000);
    const Counted large = count_run(policy, 20000);
    ASSERT_GT(large.events, 3 * small.events) << policy;
    // Four times the events: only a few more (doubling) allocations, far fewer than events.
    EXPECT_LT(large.allocations, small.allocations + 64) << policy;
    EXPECT_LT(small.allocations * 20, small.events) << policy;
  }
}

}  // namespace
}  // namespace clustersim
