// Whole-run properties of the engine that cannot hold by accident.
#include "clustersim/simulator.h"

#include <gtest/gtest.h>

#include <cstring>

#include "clustersim/placement.h"
#include "clustersim/policy.h"
#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;
using testing::random_jobs;
using testing::small_cluster;

TEST(Simulator, UnlimitedCapacityMakesEveryJctEqualItsDuration) {
  const auto jobs = random_jobs(2000, 5.0, 300.0, {1, 2, 4, 8}, 3);
  for (const auto& policy : scheduling_policy_names()) {
    SimOptions options = small_cluster(2000, 8);  // 16,000 GPUs: never full
    options.scheduler.policy = policy;
    const RunResult result = simulate(options, jobs);
    ASSERT_EQ(result.metrics.jobs, jobs.size()) << policy;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      // finish = submit + duration in floating point, so jct = finish - submit to rounding.
      ASSERT_NEAR(result.jobs[i].jct, jobs[i].duration,
                  1e-9 * (jobs[i].submit_time + jobs[i].duration))
          << policy << " job " << i;
      ASSERT_EQ(result.jobs[i].queue_delay, 0.0);
    }
    EXPECT_EQ(result.metrics.preemptions, 0u);
  }
}

// Every policy x placement, with VCs and preemption costs, under heavy load, with the engine's
// resource-accounting invariants checked after every event batch; then GPU-seconds held must
// equal work done plus the charged checkpoint and restore overheads.
struct Combination {
  std::string policy, placement;
  VcQuotaMode quota;
};

class EveryPolicyAndPlacement : public ::testing::TestWithParam<Combination> {};

TEST_P(EveryPolicyAndPlacement, NeverOverAllocatesAndConservesGpuSeconds) {
  const Combination& c = GetParam();
  SimOptions options = small_cluster(8, 4, 2);  // 32 GPUs in 4 racks
  options.cluster.vcs = {{"a", 16}, {"b", 12}, {"c", 8}};
  options.scheduler.policy = c.policy;
  options.scheduler.placement = c.placement;
  options.scheduler.vc_quota = c.quota;
  options.scheduler.lease_s = 60;
  options.scheduler.checkpoint_s = 7;
  options.scheduler.restore_s = 11;
  options.sample_interval_s = 100;
  const auto jobs = random_jobs(600, 20.0, 600.0, {1, 1, 2, 4, 8}, 11, {"a", "b", "c"});
  const RunResult result = simulate(options, jobs);  // throws on any invariant violation
  ASSERT_EQ(result.metrics.jobs, jobs.size());

  double work = 0, expected_overhead = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    work += jobs[i].num_gpus * jobs[i].duration;
    expected_overhead += result.jobs[i].preemptions * jobs[i].num_gpus * (7.0 + 11.0);
    ASSERT_GE(result.jobs[i].jct + 1e-9, jobs[i].duration);
    ASSERT_NEAR(
        result.jobs[i].jct,
        result.jobs[i].queue_delay + jobs[i].duration + result.jobs[i].preemptions * (7.0 + 11.0),
        1e-6);
  }
  EXPECT_NEAR(result.metrics.overhead_gpu_seconds, expected_overhead,
              1e-6 * (1 + expected_overhead));
  EXPECT_NEAR(result.metrics.gpu_seconds, work + expected_overhead, 1e-9 * work);
  EXPECT_LE(result.metrics.gpu_util, 1.0);
  for (const auto& sample : result.samples) {
    ASSERT_EQ(sample.busy_gpus + sample.idle_gpus, 32);
    ASSERT_LE(sample.fragmented_gpus, sample.idle_gpus);
  }
}

std::vector<Combination> all_combinations() {
  std::vector<Combination> combinations;
  for (const auto& policy : scheduling_policy_names())
    for (const auto& placement : placement_policy_names())
      for (VcQuotaMode quota : {VcQuotaMode::kStrict, VcQuotaMode::kLend})
        combinations.push_back({policy, placement, quota});
  return combinations;
}

INSTANTIATE_TEST_SUITE_P(All, EveryPolicyAndPlacement, ::testing::ValuesIn(all_combinations()),
                         [](const auto& info) {
                           return info.param.policy + "_" + info.param.placement + "_" +
                                  (info.param.quota == VcQuotaMode::kStrict ? "strict" : "lend");
                         });

TEST(Simulator, PreemptivePoliciesDoPreemptUnderLoad) {
  for (const std::string policy : {"srtf", "las", "tiresias", "drf"}) {
    SimOptions options = small_cluster(4, 4);
    options.scheduler.policy = policy;
    options.scheduler.lease_s = 60;
    const RunResult result =
        simulate(options, random_jobs(400, 30.0, 900.0, {1, 2, 4}, 5, {"x", "y"}));
    EXPECT_GT(result.metrics.preemptions, 0u) << policy;
  }
}

TEST(Simulator, StrictQuotaKeepsIdleGpusIdleAndLendingUsesThem) {
  SimOptions options = small_cluster(1, 2);
  options.cluster.vcs = {{"a", 1}, {"b", 1}};
  const std::vector<JobSpec> jobs = {job("a0", 0, 1, 10, "a"), job("a1", 0, 1, 10, "a")};
  EXPECT_DOUBLE_EQ(simulate(options, jobs).jobs[1].start_time, 10);
  options.scheduler.vc_quota = VcQuotaMode::kLend;
  EXPECT_DOUBLE_EQ(simulate(options, jobs).jobs[1].start_time, 0);
}

TEST(Simulator, LentQuotaIsReclaimedAtTheNextLease) {
  SimOptions options = small_cluster(1, 2);
  options.cluster.vcs = {{"a", 1}, {"b", 1}};
  options.scheduler.vc_quota = VcQuotaMode::kLend;
  options.scheduler.policy = "las";
  options.scheduler.lease_s = 10;
  const std::vector<JobSpec> jobs = {job("a0", 0, 1, 100, "a"), job("a1", 0, 1, 100, "a"),
                                     job("b0", 25, 1, 10, "b")};
  const RunResult result = simulate(options, jobs);
  EXPECT_DOUBLE_EQ(result.jobs[2].start_time, 30);
  EXPECT_EQ(result.metrics.preemptions, 1u);
}

TEST(Simulator, PlacementPenaltySlowsJobsThatSpanNodesAndRacks) {
  SimOptions options = small_cluster(4, 2, 2);
  options.penalty = {0.5, 0.25};
  options.scheduler.placement = "consolidate";
  RunResult result = simulate(options, {job("one-node", 0, 2, 100), job("one-rack", 200, 4, 100),
                                        job("two-racks", 600, 8, 100)});
  EXPECT_DOUBLE_EQ(result.jobs[0].jct, 100);
  EXPECT_DOUBLE_EQ(result.jobs[1].jct, 200);
  EXPECT_DOUBLE_EQ(result.jobs[2].jct, 400);
  EXPECT_EQ(result.jobs[2].nodes, 4);
}

TEST(Simulator, ImpossibleJobIsAnErrorOrACountedRejection) {
  SimOptions options = small_cluster(2, 4);
  std::vector<JobSpec> jobs = {job("ok", 0, 4, 10), job("huge", 1, 9, 10)};
  jobs[1].source_line = 17;
  try {
    simulate(options, jobs);
    FAIL() << "expected ImpossibleJobError";
  } catch (const ImpossibleJobError& error) {
    EXPECT_EQ(error.job_index(), 1u);
    EXPECT_EQ(error.field(), "num_gpus");
    EXPECT_NE(std::strstr(error.what(), "huge"), nullptr);
    EXPECT_NE(std::strstr(error.what(), "line 17"), nullptr);
  }
  options.reject_impossible = true;
  const RunResult result = simulate(options, jobs);
  EXPECT_EQ(result.metrics.jobs, 1u);
  EXPECT_EQ(result.metrics.rejected, 1u);
  EXPECT_TRUE(result.jobs[1].rejected);

  options.reject_impossible = false;
  options.cluster.vcs = {{"a", 4}};
  EXPECT_THROW(simulate(options, {job("no-vc", 0, 1, 10, "zz")}), ImpossibleJobError);
  EXPECT_THROW(simulate(options, {job("over-quota", 0, 5, 10, "a")}), ImpossibleJobError);
  JobSpec typed = job("typed", 0, 1, 10, "a");
  typed.gpu_type = "h100";
  EXPECT_THROW(simulate(options, {typed}), ImpossibleJobError);
}

TEST(Simulator, JobsOfOneSizeWaitingForABusyGpuTypeDoNotBlockAnotherType) {
  SimOptions options = small_cluster(1, 2);
  NodeGroupSpec a100 = options.cluster.groups[0];
  a100.gpu_type = "a100";
  options.cluster.groups[0].gpu_type = "v100";
  options.cluster.groups.push_back(a100);
  std::vector<JobSpec> jobs = {job("a1", 0, 2, 100), job("a2", 1, 2, 10), job("v", 2, 2, 10)};
  jobs[0].gpu_type = jobs[1].gpu_type = "a100";
  jobs[2].gpu_type = "v100";
  const RunResult result = simulate(options, jobs);
  EXPECT_DOUBLE_EQ(result.jobs[1].start_time, 100);  // waits for the a100 node
  EXPECT_DOUBLE_EQ(result.jobs[2].start_time, 2);    // the v100 node is free
}

TEST(Simulator, AJobNeverMixesGpuTypes) {
  SimOptions options = small_cluster(1, 4);  // 4 generic GPUs
  NodeGroupSpec a100 = options.cluster.groups[0];
  a100.gpu_type = "a100";
  a100.nodes = 2;  // 8 a100 GPUs
  options.cluster.groups.push_back(a100);
  std::vector<JobSpec> jobs = {job("hold", 0, 6, 10), job("five", 1, 5, 10)};
  jobs[0].gpu_type = "a100";
  // 6 GPUs are free (4 generic, 2 a100) but no one type has 5: "five" waits for "hold".
  const RunResult result = simulate(options, jobs);
  EXPECT_DOUBLE_EQ(result.jobs[1].start_time, 10);
  EXPECT_THROW(simulate(options, {job("nine", 0, 9, 10)}), ImpossibleJobError);
}

TEST(Simulator, CpuAndMemoryRequestsConstrainPlacement) {
  SimOptions options = small_cluster(1, 8);
  options.cluster.groups[0].cpus_per_node = 16;
  std::vector<JobSpec> jobs = {job("cpu-heavy", 0, 1, 10), job("second", 0, 1, 10)};
  jobs[0].cpus = 12;  // leaves 4 CPUs: too few for a proportional 2-CPU-per-GPU job? no, enough
  jobs[1].cpus = 6;   // needs 6 CPUs: must wait for the first job
  const RunResult result = simulate(options, jobs);
  EXPECT_DOUBLE_EQ(result.jobs[1].start_time, 10);
  jobs[0].cpus = 17;
  EXPECT_THROW(simulate(options, jobs), ImpossibleJobError);
}

TEST(Simulator, SameSeedSameBitsDifferentSeedDifferentRandomPlacement) {
  SimOptions options = small_cluster(16, 4, 4);
  options.scheduler.placement = "random";
  options.penalty = {0.8, 0.6};
  const auto jobs = random_jobs(500, 10.0, 600.0, {1, 2, 4, 6}, 9);
  options.seed = 1;
  const RunMetrics a = simulate(options, jobs).metrics;
  const RunMetrics b = simulate(options, jobs).metrics;
  EXPECT_EQ(std::memcmp(&a.jct_mean, &b.jct_mean, sizeof(double)), 0);
  EXPECT_EQ(a.jct_p99, b.jct_p99);
  EXPECT_EQ(a.events, b.events);
  options.seed = 2;
  EXPECT_NE(simulate(options, jobs).metrics.jct_mean, a.jct_mean);
}

TEST(Simulator, SamplesTrackQueueAndFragmentation) {
  SimOptions options = small_cluster(2, 4);
  options.sample_interval_s = 5;
  // t=0: a takes 3 GPUs of node 0, b takes 3 of node 1: 1 idle GPU on each node. c (4 GPUs)
  // waits: both idle GPUs are fragmented for it.
  const RunResult result =
      simulate(options, {job("a", 0, 3, 10), job("b", 0, 3, 10), job("c", 1, 4, 10)});
  ASSERT_GE(result.samples.size(), 3u);
  EXPECT_EQ(result.samples[1].time, 5);
  EXPECT_EQ(result.samples[1].queue_length, 1);
  EXPECT_EQ(result.samples[1].busy_gpus, 6);
  EXPECT_EQ(result.samples[1].fragmented_gpus, 2);
  EXPECT_NEAR(result.metrics.queue_len_mean, 9.0 / 20.0, 1e-12);  // c waits 1..10 of a 20 s span
}

// A front end that writes no time series asks for none: a run's memory must not grow with the
// number of samples, and what is computed from them (frag_mean) must not change.
TEST(Simulator, SamplesAreKeptOnlyWhenRecorded) {
  SimOptions options = testing::small_cluster(4, 4);
  options.sample_interval_s = 5;
  const auto jobs = testing::random_jobs(300, 20, 300, {1, 2, 4, 8}, 9);
  options.record_samples = true;
  const RunResult kept = simulate(options, jobs);
  options.record_samples = false;
  const RunResult dropped = simulate(options, jobs);
  EXPECT_GT(kept.samples.size(), 100u);
  EXPECT_TRUE(dropped.samples.empty());
  EXPECT_EQ(dropped.samples.capacity(), 0u);
  EXPECT_EQ(kept.metrics.frag_mean, dropped.metrics.frag_mean);
  EXPECT_EQ(kept.metrics.jct_mean, dropped.metrics.jct_mean);
}

TEST(Simulator, RejectsBadOptions) {
  SimOptions options = small_cluster(1, 1);
  options.scheduler.lease_s = -1;  // (0 is valid: event-driven rounds)
  EXPECT_THROW(simulate(options, {job("a", 0, 1, 1)}), std::invalid_argument);
  options = small_cluster(1, 1);
  options.scheduler.policy = "nope";
  EXPECT_THROW(simulate(options, {job("a", 0, 1, 1)}), std::invalid_argument);
  options = small_cluster(1, 1);
  EXPECT_THROW(simulate(options, {job("a", 0, 1, 0)}), std::invalid_argument);
}

}  // namespace
}  // namespace clustersim
