// Each allocation mechanism on small cases whose schedules are worked out by hand: exact JCTs.
#include <gtest/gtest.h>

#include "allocation_test_util.h"
#include "clustersim/allocation_mechanism.h"

namespace clustersim {
namespace {

using testing::cpu_profile;
using testing::model_job;
using testing::model_of;
using testing::one_node;

// One node, 2 GPUs, 6 cores (3 per GPU: the proportional share, where durations hold).
//   hungry: 0.5 at 1 core, 1 at 3, 2 at 5 (and beyond): best demand 5 cores, speed 2.
//   steady: 0.5 at 1 core, 1 at 3 and beyond: best demand 3 cores (its proportional share).
// A (hungry, 100 s of work) arrives at 0; B (steady, 20 s) at 10.
struct Outcome {
  double jct_a, jct_b;
  std::uint64_t reallocations;
};

Outcome run_two_jobs(const std::string& mechanism) {
  auto model = model_of({cpu_profile("hungry", {1, 3, 5}, {0.5, 1, 2}, 3),
                         cpu_profile("steady", {1, 3, 5}, {0.5, 1, 1}, 3)},
                        3);
  SimOptions options = one_node(2, 6);
  options.throughput = model.get();
  options.scheduler.allocation = mechanism;
  const RunResult result =
      simulate(options, {model_job("a", "hungry", 0, 100), model_job("b", "steady", 10, 20)});
  return {result.jobs[0].jct, result.jobs[1].jct, result.metrics.reallocations};
}

TEST(Proportional, EveryJobGetsItsShare) {
  const Outcome o = run_two_jobs("proportional");
  EXPECT_DOUBLE_EQ(o.jct_a, 100);  // 3 cores: speed 1
  EXPECT_DOUBLE_EQ(o.jct_b, 20);
  EXPECT_EQ(o.reallocations, 0u);
}

TEST(Greedy, BestDemandOrWait) {
  const Outcome o = run_two_jobs("greedy");
  EXPECT_DOUBLE_EQ(o.jct_a, 50);  // 5 cores: speed 2
  // B's best demand (3 cores) does not fit beside A's 5: it waits until 50, runs 20 s.
  EXPECT_DOUBLE_EQ(o.jct_b, 60);
}

TEST(Tetris, PacksBestDemandsLikeGreedyOnOneNode) {
  const Outcome o = run_two_jobs("tetris");
  EXPECT_DOUBLE_EQ(o.jct_a, 50);
  EXPECT_DOUBLE_EQ(o.jct_b, 60);
}

// A runs at 5 cores (speed 2) for 10 s: 20 s of work done. B's best and proportional share (3
// cores) do not fit in the 1 free core, so A goes back to its share (speed 1) and B starts at
// once. B ends at 30; A gets its 5 cores back: 20 + 20 done, 60 left at speed 2: ends at 60.
TEST(Tune, TakesCoresBackFromTheHungryJobThenGivesThemBack) {
  const Outcome o = run_two_jobs("tune");
  EXPECT_DOUBLE_EQ(o.jct_a, 60);
  EXPECT_DOUBLE_EQ(o.jct_b, 20);
  EXPECT_EQ(o.reallocations, 2u);  // down at 10, up at 30
}

// The LP's optimum here is tune's: A alone gets 5 cores; with B both must have 3 (no job below
// its proportional-share speed); A alone again gets 5.
TEST(Opt, SolvesToTheSameScheduleHere) {
  const Outcome o = run_two_jobs("opt");
  EXPECT_DOUBLE_EQ(o.jct_a, 60);
  EXPECT_DOUBLE_EQ(o.jct_b, 20);
}

// DRF: floors min(best, share) = 3 cores each; A's extra 2 cores only while B is away.
TEST(Drf, DividesWhatIsLeftAboveTheFloors) {
  const Outcome o = run_two_jobs("drf");
  EXPECT_DOUBLE_EQ(o.jct_a, 60);
  EXPECT_DOUBLE_EQ(o.jct_b, 20);
}

// Tune gives cores back from the job that loses least. One node, 4 GPUs, 16 cores (4 per GPU).
//   hungry A: 2x at 8 cores; mild C: 1.2x at 8 cores; steady B: 1x from 4 cores.
// A and C start at 0 with 8 cores each (the node is full); B arrives at 10 and needs 4: C loses
// 0.2 going back to its share, A would lose 1, so C gives 4 cores and A keeps its 8.
//   A: 100 s of work at speed 2: ends at 50.
//   C: 12 done by 10 (1.2x), then speed 1 until A ends at 50 (52 done), then its 8 cores again:
//      48 left at 1.2x = 40 s: ends at 90.
//   B: 100 s at speed 1 from 10: ends at 110.
TEST(Tune, TheJobThatLosesLeastGivesFirst) {
  auto model = model_of({cpu_profile("hungry", {1, 4, 8}, {0.5, 1, 2}, 4),
                         cpu_profile("mild", {1, 4, 8}, {0.5, 1, 1.2}, 4),
                         cpu_profile("steady", {1, 4, 8}, {0.5, 1, 1}, 4)},
                        4);
  SimOptions options = one_node(4, 16);
  options.throughput = model.get();
  options.scheduler.allocation = "tune";
  const RunResult result =
      simulate(options, {model_job("a", "hungry", 0, 100), model_job("c", "mild", 0, 100),
                         model_job("b", "steady", 10, 100)});
  EXPECT_DOUBLE_EQ(result.jobs[0].jct, 50);
  EXPECT_NEAR(result.jobs[1].jct, 90, 1e-9);
  EXPECT_DOUBLE_EQ(result.jobs[2].jct, 100);
}

// A re-allocation may cost time: with realloc_s, a job whose cores change pauses that long.
// Tune's case above with realloc_s = 2: A pauses at 10 (down) and at 30 (up).
//   A: 20 done by 10; paused 10..12; speed 1 12..30 (38 done); paused 30..32; 62 left at 2x:
//      ends at 63.
TEST(Tune, ReallocationCostsPauseTheJob) {
  auto model = model_of({cpu_profile("hungry", {1, 3, 5}, {0.5, 1, 2}, 3),
                         cpu_profile("steady", {1, 3, 5}, {0.5, 1, 1}, 3)},
                        3);
  SimOptions options = one_node(2, 6);
  options.throughput = model.get();
  options.scheduler.allocation = "tune";
  options.scheduler.realloc_s = 2;
  const RunResult result =
      simulate(options, {model_job("a", "hungry", 0, 100), model_job("b", "steady", 10, 20)});
  EXPECT_DOUBLE_EQ(result.jobs[0].jct, 63);
  EXPECT_DOUBLE_EQ(result.jobs[0].overhead_gpu_seconds, 4);
  EXPECT_DOUBLE_EQ(result.jobs[1].jct, 20);
}

TEST(AllocationMechanisms, UnknownNameIsRejected) {
  SchedulerOptions options;
  options.allocation = "magic";
  EXPECT_THROW(make_allocation_mechanism(options), std::invalid_argument);
  EXPECT_EQ(allocation_mechanism_names().size(), 6u);
}

}  // namespace
}  // namespace clustersim
