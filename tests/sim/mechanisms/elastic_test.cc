// Elastic jobs ([mechanisms] elastic, JobSpec::min_gpus / max_gpus): shrinking to admit others,
// growing into idle GPUs, the scaling curve's rates and the resize cost, worked out by hand.
#include <gtest/gtest.h>

#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;

// Amdahl with p = 1/2: speed-up(g) = 1 / (1/2 + 1/(2g)): 1 GPU 1, 2 GPUs 4/3, 4 GPUs 8/5.
// A job's duration holds at its requested count, so with g GPUs it runs at
// speed-up(g) / speed-up(requested).
double amdahl_half(int gpus) { return 1.0 / (0.5 + 0.5 / gpus); }

SimOptions elastic_node(int gpus) {
  SimOptions options = testing::small_cluster(1, gpus);
  options.scheduler.policy = "sjf";
  options.mechanisms.elastic = true;
  options.mechanisms.parallel_fraction = 0.5;
  options.mechanisms.resize_cost = OverheadCost{OverheadCost::Model::kConstant, 4, 1, {}};
  return options;
}

JobSpec elastic_job(const std::string& id, Time submit, int gpus, double duration, int min_gpus,
                    int max_gpus) {
  JobSpec spec = job(id, submit, gpus, duration);
  spec.min_gpus = min_gpus;
  spec.max_gpus = max_gpus;
  return spec;
}

// One node of 4 GPUs. A asks for 2 GPUs (1..4), 100 s at 2. B (rigid, 3 GPUs, 50 s) arrives at
// 40 and is ranked first (shorter).
//   0      A starts and, nothing waiting, grows into the idle GPUs: it has not begun, so it
//          starts on 4 at no cost (rate 8/5 / 4/3 = 1.2).
//   0..40  48 s of work done.
//   40     B needs 3 GPUs: A gives back the 2 above its request, then 1 more down to its
//          minimum (B ranks first). A pauses 4 s on 1 GPU (rate 1 / 4/3 = 0.75); B runs 40..90.
//   44..90 46 s at 0.75: 34.5 more.
//   90     B is done; A grows back to 4, pauses 4 s, then runs its last 17.5 s of work at 1.2.
TEST(Elastic, ShrinksToAdmitAndGrowsIntoIdleGpus) {
  const RunResult result =
      simulate(elastic_node(4), {elastic_job("a", 0, 2, 100, 1, 4), job("b", 40, 3, 50)});
  const double grown = amdahl_half(4) / amdahl_half(2), shrunk = amdahl_half(1) / amdahl_half(2);
  const double done_by_90 = 40 * grown + 46 * shrunk;
  const double finish = 94 + (100 - done_by_90) / grown;
  EXPECT_DOUBLE_EQ(result.jobs[1].jct, 50);
  EXPECT_NEAR(result.jobs[0].finish_time, finish, 1e-9);
  EXPECT_EQ(result.jobs[0].resizes, 2);
  EXPECT_EQ(result.metrics.resizes, 2u);
  EXPECT_DOUBLE_EQ(result.jobs[0].resize_gpu_seconds, 1 * 4 + 4 * 4);
  EXPECT_EQ(result.jobs[0].preemptions, 0);
  // Progress is GPU-seconds spent running: 4 GPUs 0..40, 1 GPU 44..90, 4 GPUs 94..finish.
  EXPECT_NEAR(result.jobs[0].gpu_seconds, 4 * 40 + 1 * 50 + 4 * (finish - 90), 1e-9);
  EXPECT_NEAR(result.metrics.useful_gpu_seconds, 4 * 40 + 46 + 4 * (finish - 94) + 3 * 50, 1e-9);
}

TEST(Elastic, OffEveryJobRunsAtItsRequest) {
  SimOptions options = elastic_node(4);
  options.mechanisms.elastic = false;
  const RunResult result =
      simulate(options, {elastic_job("a", 0, 2, 100, 1, 4), job("b", 40, 3, 50)});
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 100);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 150);
  EXPECT_EQ(result.metrics.resizes, 0u);
}

// Growing must pay for its pause. A (2 GPUs, 1..4, 100 s) runs beside C (rigid, 2 GPUs); when
// C ends, A grows only if what it has left runs faster at 4 GPUs by more than the 4 s resize.
TEST(Elastic, GrowsOnlyWhenItPaysForTheResize) {
  const double grown = amdahl_half(4) / amdahl_half(2);
  {  // C ends at 95: 5 s left would take 5 / 1.2 + 4 s grown: A stays on 2 GPUs.
    const RunResult result =
        simulate(elastic_node(4), {elastic_job("a", 0, 2, 100, 1, 4), job("c", 0, 2, 95)});
    EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 100);
    EXPECT_EQ(result.jobs[0].resizes, 0);
  }
  {  // C ends at 50: 50 s left take 50 / 1.2 + 4 < 50 grown.
    const RunResult result =
        simulate(elastic_node(4), {elastic_job("a", 0, 2, 100, 1, 4), job("c", 0, 2, 50)});
    EXPECT_NEAR(result.jobs[0].finish_time, 54 + 50 / grown, 1e-9);
    EXPECT_EQ(result.jobs[0].resizes, 1);
  }
}

// A job ranked before the waiting one is not shrunk below its request.
TEST(Elastic, DoesNotShrinkAJobRankedFirstBelowItsRequest) {
  const RunResult result =
      simulate(elastic_node(4), {elastic_job("a", 0, 2, 100, 1, 2), job("b", 10, 3, 500)});
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 100);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 600);
  EXPECT_EQ(result.metrics.resizes, 0u);
}

// Strict locality: GPUs given back must be on one node, or the waiting job cannot use them.
// Two nodes of 4 GPUs; A and B (3 GPUs, 1..4, 100 s) start on a node each and grow to the whole
// node as they start. C (rigid, 3 GPUs, 10 s, ranked first) arrives at 20: A alone gives back 3
// GPUs on node 0 (not 1 + 2 from both, which would leave C waiting), and C runs at once.
TEST(Elastic, UnderStrictLocalityShrinksOnTheOneNodeTheWaitingJobWillUse) {
  SimOptions options = testing::small_cluster(2, 4);
  options.scheduler.policy = "sjf";
  options.scheduler.strict_locality = true;
  options.mechanisms.elastic = true;
  options.mechanisms.resize_cost = OverheadCost{OverheadCost::Model::kConstant, 0, 1, {}};
  const RunResult result = simulate(
      options,
      {elastic_job("a", 0, 3, 100, 1, 4), elastic_job("b", 0, 3, 100, 1, 4), job("c", 20, 3, 10)});
  EXPECT_DOUBLE_EQ(result.jobs[2].finish_time, 30);
  EXPECT_EQ(result.jobs[1].resizes, 0);  // B keeps its node
  EXPECT_GE(result.jobs[0].resizes, 1);
  EXPECT_DOUBLE_EQ(result.jobs[1].gpu_seconds, 4 * result.jobs[1].finish_time);
}

// A per-model scaling table replaces Amdahl: "lin" scales linearly, so at 4 GPUs a job asking
// for 2 runs twice as fast.
TEST(Elastic, PerModelScalingTable) {
  SimOptions options = elastic_node(4);
  options.mechanisms.scaling = {{"lin", {{1, 1.0}, {2, 2.0}, {4, 4.0}}}};
  options.mechanisms.resize_cost = OverheadCost{OverheadCost::Model::kConstant, 0, 1, {}};
  JobSpec a = elastic_job("a", 0, 2, 100, 1, 4);
  a.model = "lin";
  const RunResult result = simulate(options, {a});
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 50);
  EXPECT_DOUBLE_EQ(result.jobs[0].gpu_seconds, 4 * 50);
}

}  // namespace
}  // namespace clustersim
