// Each policy's ordering, checked through whole simulations on hand-made workloads whose
// schedule can be worked out by hand.
#include "clustersim/policy.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;
using testing::small_cluster;

TEST(Fifo, BackfillLetsSmallJobsPassABlockedHead) {
  SimOptions options = small_cluster(1, 4);
  const std::vector<JobSpec> jobs = {job("a", 0, 3, 10), job("b", 1, 2, 5), job("c", 2, 1, 1)};
  const RunResult backfill = simulate(options, jobs);
  EXPECT_EQ(backfill.jobs[2].start_time, 2);   // c fits the free GPU
  EXPECT_EQ(backfill.jobs[1].start_time, 10);  // b waits for a
  options.scheduler.backfill = false;
  const RunResult strict = simulate(options, jobs);
  EXPECT_EQ(strict.jobs[1].start_time, 10);
  EXPECT_EQ(strict.jobs[2].start_time, 10);  // c waits behind b
}

TEST(Sjf, ShortestWaitingJobFirst) {
  SimOptions options = small_cluster(1, 1);
  options.scheduler.policy = "sjf";
  const std::vector<JobSpec> jobs = {job("a", 0, 1, 10), job("long", 1, 1, 50),
                                     job("short", 2, 1, 5)};
  const RunResult result = simulate(options, jobs);
  EXPECT_EQ(result.jobs[2].start_time, 10);
  EXPECT_EQ(result.jobs[1].start_time, 15);
  EXPECT_EQ(result.metrics.preemptions, 0u);
}

TEST(Srtf, PreemptsAtLeaseBoundaryWithCheckpointAndRestoreCharged) {
  SimOptions options = small_cluster(1, 1);
  options.scheduler.policy = "srtf";
  options.scheduler.lease_s = 1;
  options.scheduler.checkpoint_s = 2;
  options.scheduler.restore_s = 3;
  const std::vector<JobSpec> jobs = {job("a", 0, 1, 100), job("b", 10.5, 1, 5)};
  const RunResult result = simulate(options, jobs);
  // Round at t=11: a (89 left) yields to b (5); a checkpoints until 13; b runs 13..18;
  // a restores 18..21 and finishes its 89 s at 110.
  EXPECT_DOUBLE_EQ(result.jobs[1].start_time, 13);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 18);
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 110);
  EXPECT_EQ(result.jobs[0].preemptions, 1);
  EXPECT_DOUBLE_EQ(result.jobs[0].overhead_gpu_seconds, 5);
  EXPECT_DOUBLE_EQ(result.jobs[0].queue_delay, 5);  // waiting 13..18
}

TEST(Las, LeastAttainedServiceAlternatesAtLeases) {
  SimOptions options = small_cluster(1, 1);
  options.scheduler.policy = "las";
  options.scheduler.lease_s = 10;
  const std::vector<JobSpec> jobs = {job("a", 0, 1, 100), job("b", 50, 1, 100)};
  const RunResult result = simulate(options, jobs);
  EXPECT_DOUBLE_EQ(result.jobs[1].start_time, 50);  // b has attained nothing, a has 50 s
  EXPECT_GE(result.metrics.preemptions, 2u);
  EXPECT_DOUBLE_EQ(result.metrics.makespan, 200);  // no overheads: the GPU never idles
}

TEST(Tiresias, LowerQueueJobPreemptsDemotedJob) {
  SimOptions options = small_cluster(1, 1);
  options.scheduler.policy = "tiresias";
  options.scheduler.lease_s = 10;
  options.scheduler.tiresias_thresholds = {50};
  const std::vector<JobSpec> jobs = {job("a", 0, 1, 200), job("b", 100, 1, 20)};
  const RunResult result = simulate(options, jobs);
  EXPECT_DOUBLE_EQ(result.jobs[1].start_time, 100);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 120);
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 220);
  EXPECT_EQ(result.jobs[0].preemptions, 1);
}

TEST(Tiresias, WithoutPreemptionItNeverPreempts) {
  SimOptions options = small_cluster(1, 1);
  options.scheduler.policy = "tiresias";
  options.scheduler.preemption = false;
  options.scheduler.tiresias_thresholds = {50};
  const RunResult result = simulate(options, {job("a", 0, 1, 200), job("b", 100, 1, 20)});
  EXPECT_DOUBLE_EQ(result.jobs[1].start_time, 200);
  EXPECT_EQ(result.metrics.preemptions, 0u);
}

TEST(Drf, VcUnderItsShareTakesGpusFromTheVcAbove) {
  SimOptions options = small_cluster(1, 2);
  options.scheduler.policy = "drf";
  options.scheduler.lease_s = 10;
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 4; ++i) jobs.push_back(job(testing::numbered("a", i), 0, 1, 100, "a"));
  jobs.push_back(job("b0", 5, 1, 100, "b"));
  const RunResult result = simulate(options, jobs);
  EXPECT_DOUBLE_EQ(result.jobs[4].start_time, 10);  // first lease boundary
  EXPECT_EQ(result.metrics.preemptions, 1u);
}

TEST(Drf, NextFreeGpuGoesToTheVcWithTheSmallestShare) {
  SimOptions options = small_cluster(1, 2);
  options.scheduler.policy = "drf";
  options.scheduler.preemption = false;
  // VC a holds both GPUs and queues more before b's job arrives; when a GPU frees, VC a still
  // holds one, so b (holding none) goes next although a's jobs came first.
  std::vector<JobSpec> jobs = {job("a0", 0, 1, 100, "a"), job("a1", 0, 1, 10, "a"),
                               job("a2", 1, 1, 10, "a"), job("a3", 1, 1, 10, "a"),
                               job("b0", 2, 1, 10, "b")};
  const RunResult result = simulate(options, jobs);
  EXPECT_DOUBLE_EQ(result.jobs[4].start_time, 10);
  options.scheduler.policy = "fifo";
  EXPECT_DOUBLE_EQ(simulate(options, jobs).jobs[4].start_time, 30);
}

TEST(Fifo, HonorPriorityPutsHigherPriorityJobsFirst) {
  SimOptions options = small_cluster(1, 1);
  std::vector<JobSpec> jobs = {job("a", 0, 1, 10), job("low", 1, 1, 10), job("high", 2, 1, 10)};
  jobs[2].priority = 5;
  EXPECT_DOUBLE_EQ(simulate(options, jobs).jobs[2].start_time, 20);
  options.scheduler.honor_priority = true;
  EXPECT_DOUBLE_EQ(simulate(options, jobs).jobs[2].start_time, 10);
}

TEST(PolicyRegistry, KnowsEveryPolicyAndRejectsOthers) {
  for (const auto& name : scheduling_policy_names()) {
    SchedulerOptions options;
    options.policy = name;
    EXPECT_NE(make_scheduling_policy(options), nullptr) << name;
  }
  SchedulerOptions options;
  options.policy = "lottery";
  EXPECT_THROW(make_scheduling_policy(options), std::invalid_argument);
}

}  // namespace
}  // namespace clustersim
