// Duration-estimate policies (qssf, sju, sjg, sjgg): estimates from finished jobs only, computed by
// hand, and the re-ranking of waiting jobs when an estimate changes.
#include <gtest/gtest.h>

#include <vector>

#include "clustersim/policy.h"
#include "clustersim/simulator.h"
#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;

// Jobs 0 and 1 of user "u" (100 s on 1 GPU, 300 s on 2 GPUs) have finished; job 2 of "u" (2
// GPUs) and job 3 of "v" (1 GPU) wait.
struct History {
  std::vector<JobSpec> specs;
  std::vector<JobState> states;
  History() {
    specs = {job("0", 0, 1, 100), job("1", 1, 2, 300), job("2", 2, 2, 50), job("3", 3, 1, 70)};
    // (Strings copied, not assigned from literals: GCC 12 warns falsely on the latter here.)
    const std::string u = "u", v = "v";
    specs[0].user = specs[1].user = specs[2].user = u;
    specs[3].user = v;
    states.resize(specs.size());
    for (std::uint32_t i = 0; i < specs.size(); ++i) {
      JobState& s = states[i];
      s.spec = &specs[i];
      s.index = i;
      s.gpus = s.requested_gpus = specs[i].num_gpus;
      s.submit = specs[i].submit_time;
      s.work = s.remaining = specs[i].duration;
      s.phase = JobPhase::kWaiting;
    }
  }
  // Keys of the waiting jobs 2 and 3 after jobs 0 and 1 finish (in that order), and the jobs the
  // policy asked to re-key at each finish.
  std::vector<PriorityKey> run(SchedulingPolicy& policy, std::vector<std::uint32_t>& rekeyed) {
    PolicyContext ctx;
    ctx.jobs = states;
    std::vector<PriorityKey> keys(2);
    const std::uint32_t waiting[2] = {2, 3};
    policy.compute_keys(waiting, ctx, keys);  // listed as waiting
    for (std::uint32_t done : {0u, 1u}) {
      states[done].phase = JobPhase::kFinished;
      policy.on_finished(done, ctx, rekeyed);
    }
    policy.compute_keys(waiting, ctx, keys);
    return keys;
  }
};

TEST(EstimatePolicies, QssfEstimatesAUsersThirdJobFromItsFirstTwo) {
  SchedulerOptions options;
  options.policy = "qssf";
  for (const auto& [estimator, estimate] :
       std::vector<std::pair<std::string, double>>{{"mean", (100.0 + 300.0) / 2},
                                                   {"last_k", 300.0},  // k = 1: the last one
                                                   {"quantile", 100.0 + 0.25 * 200.0}}) {
    SCOPED_TRACE(estimator);
    options.estimator = estimator;
    options.estimator_k = 1;
    options.estimator_quantile = 0.25;  // between 100 and 300, a quarter of the way
    History history;
    auto policy = make_scheduling_policy(options);
    ASSERT_TRUE(policy->rekeys_on_finish());
    std::vector<std::uint32_t> rekeyed;
    const auto keys = history.run(*policy, rekeyed);
    // Job 2 (user u, 2 GPUs): expected GPU-time = 2 x the estimate of u's duration.
    EXPECT_DOUBLE_EQ(keys[0].primary, 2 * estimate);
    EXPECT_EQ(keys[0].secondary, 2.0);  // then submit time
    // Job 3: user v has no finished job, so the estimate of all finished jobs (also u's two).
    EXPECT_DOUBLE_EQ(keys[1].primary, 1 * estimate);
    // Both waiting jobs were re-keyed at each finish (u's own, and v's through the global one).
    EXPECT_EQ(rekeyed, (std::vector<std::uint32_t>{2, 3, 2, 3}));
  }
}

TEST(EstimatePolicies, SjuAndSjgKeyByTheEstimateAlone) {
  SchedulerOptions options;
  options.policy = "sju";
  History history;
  std::vector<std::uint32_t> rekeyed;
  auto keys = history.run(*make_scheduling_policy(options), rekeyed);
  EXPECT_DOUBLE_EQ(keys[0].primary, 200.0);  // u's mean, not times its GPUs
  // sjg groups by model: all four jobs have the same (empty) model, so one group of two.
  options.policy = "sjg";
  History models;
  const std::string other = "other";
  models.specs[3].model = other;  // job 3's group has no history: the global mean
  keys = models.run(*make_scheduling_policy(options), rekeyed);
  EXPECT_DOUBLE_EQ(keys[0].primary, 200.0);
  EXPECT_DOUBLE_EQ(keys[1].primary, 200.0);
}

// sjgg groups by model and GPU count. All jobs share the (empty) model; job 3 asks for 4 GPUs
// here. Job 2 (2 GPUs) is estimated from job 1 alone (the only finished 2-GPU job): 300 s, not
// times its GPUs (sjg would say 200, the mean of both). No 4-GPU job has finished, so job 3 takes
// the global mean, 200. Job 0's finish changes the global mean, which both waiting groups
// follow (neither has history): 2 and 3 re-keyed; job 1's re-keys its own group's job 2 and job
// 3's, still without history.
TEST(EstimatePolicies, SjggEstimatesFromTheJobsOfItsModelAndGpuCount) {
  SchedulerOptions options;
  options.policy = "sjgg";
  History history;
  history.states[3].gpus = history.states[3].requested_gpus = 4;
  std::vector<std::uint32_t> rekeyed;
  auto policy = make_scheduling_policy(options);
  ASSERT_TRUE(policy->rekeys_on_finish());
  const auto keys = history.run(*policy, rekeyed);
  EXPECT_DOUBLE_EQ(keys[0].primary, 300.0);
  EXPECT_EQ(keys[0].secondary, 2.0);  // then submit time
  EXPECT_DOUBLE_EQ(keys[1].primary, 200.0);
  EXPECT_EQ(rekeyed, (std::vector<std::uint32_t>{2, 3, 2, 3}));
}

// One GPU. v0 (user v, 20 s) runs [0, 20]; a (u, 10 s, submitted at 1) runs [20, 30]; b (v, 50 s,
// at 21) and c (u, 40 s, at 22) wait. Until a finishes, c's user has no history: its estimate is
// the global one (20, v0's), equal to b's (v's 20), and b, submitted first, is ahead. When a
// finishes at 30, u's estimate becomes 10 and c is re-ranked ahead of b: c runs [30, 70], b
// [70, 120]. (Without the re-ranking b would run first: c would finish at 120.)
TEST(EstimatePolicies, AWaitingJobIsReRankedWhenItsEstimateChanges) {
  for (const char* policy : {"qssf", "sju"}) {
    SCOPED_TRACE(policy);
    SimOptions options = testing::small_cluster(1, 1);
    options.sample_interval_s = 0;
    options.check_invariants = true;
    options.scheduler.policy = policy;
    std::vector<JobSpec> jobs = {job("v0", 0, 1, 20), job("a", 1, 1, 10), job("b", 21, 1, 50),
                                 job("c", 22, 1, 40)};
    const std::string u = "u", v = "v";
    jobs[0].user = jobs[2].user = v;
    jobs[1].user = jobs[3].user = u;
    const RunResult result = simulate(options, jobs);
    EXPECT_DOUBLE_EQ(result.jobs[1].jct, 30.0 - 1);
    EXPECT_DOUBLE_EQ(result.jobs[3].jct, 70.0 - 22);
    EXPECT_DOUBLE_EQ(result.jobs[2].jct, 120.0 - 21);
  }
}

}  // namespace
}  // namespace clustersim
