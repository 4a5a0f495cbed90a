// Every mechanism on at once, on random workloads under several policies, with the engine's
// invariants checked after every event batch (no over-allocation through migrations, resizes
// or failures; the ledger's GPU-seconds equal what jobs held; elastic jobs within their range),
// and work conservation: GPU-seconds held = useful work + every charged overhead + lost work.
#include <gtest/gtest.h>

#include <tuple>

#include "test_util.h"

namespace clustersim {
namespace {

std::vector<JobSpec> mixed_jobs(std::uint64_t seed) {
  auto jobs = testing::random_jobs(300, 40, 2000, {1, 1, 2, 4, 8}, seed, {"x", "y"});
  Rng rng(seed + 1);
  for (JobSpec& spec : jobs) {
    spec.priority = static_cast<int>(rng.below(3));
    if (rng.uniform() < 0.4) {  // elastic: half to twice its request
      spec.min_gpus = std::max(1, spec.num_gpus / 2);
      spec.max_gpus = spec.num_gpus * 2;
    }
    if (rng.uniform() < 0.3) spec.checkpoint_interval_s = 300;
  }
  return jobs;
}

SimOptions all_mechanisms(const std::string& policy, bool strict) {
  SimOptions options = testing::small_cluster(12, 4, 4);
  options.scheduler.policy = policy;
  options.scheduler.lease_s = policy == "fifo" ? 300 : 0;
  options.scheduler.honor_priority = true;
  options.scheduler.strict_locality = strict;
  options.scheduler.checkpoint_s = 15;
  options.scheduler.restore_s = 10;
  options.penalty.cross_node_factor = 0.8;
  options.mechanisms.preempt_on_arrival = true;
  options.mechanisms.migration = MechanismOptions::Migration::kOnDemand;
  options.mechanisms.defrag_threshold = 0.05;
  options.mechanisms.elastic = true;
  options.mechanisms.mtbf_h = 6;
  options.mechanisms.repair_h = 0.25;
  options.mechanisms.failure_model = MechanismOptions::FailureModel::kWeibull;
  options.mechanisms.checkpoint_interval_s = 900;
  options.mechanisms.migration_cost.model = OverheadCost::Model::kEmpirical;
  options.mechanisms.migration_cost.samples = {5, 30, 90};
  options.mechanisms.failure_trace = {NodeOutage{3, 500, 4000, 0}, NodeOutage{3, 3000, 5000, 0}};
  options.sample_interval_s = 300;
  return options;
}

class AllMechanisms
    : public ::testing::TestWithParam<std::tuple<std::string, bool, std::uint64_t>> {};

TEST_P(AllMechanisms, InvariantsHoldAndWorkIsConserved) {
  const auto& [policy, strict, seed] = GetParam();
  const SimOptions options = all_mechanisms(policy, strict);
  const auto jobs = mixed_jobs(seed);
  const RunResult result = simulate(options, jobs);  // throws if an invariant breaks
  const RunMetrics& m = result.metrics;
  EXPECT_EQ(m.jobs, jobs.size());
  const double overheads = m.overhead_checkpoint_gpu_seconds + m.overhead_restore_gpu_seconds +
                           m.overhead_migration_gpu_seconds + m.overhead_resize_gpu_seconds +
                           m.overhead_realloc_gpu_seconds;
  EXPECT_NEAR(overheads, m.overhead_gpu_seconds, 1e-9 * m.gpu_seconds);
  EXPECT_NEAR(m.gpu_seconds, m.useful_gpu_seconds + overheads + m.lost_gpu_seconds,
              1e-9 * m.gpu_seconds);
  double held = 0, lost = 0, by_kind = 0;
  int migrations = 0, resizes = 0, failures = 0;
  for (const JobRecord& job : result.jobs) {
    held += job.gpu_seconds;
    lost += job.lost_gpu_seconds;
    by_kind += job.checkpoint_gpu_seconds + job.restore_gpu_seconds + job.migration_gpu_seconds +
               job.resize_gpu_seconds + job.realloc_gpu_seconds;
    migrations += job.migrations;
    resizes += job.resizes;
    failures += job.failures;
    EXPECT_GE(job.finish_time, job.submit_time);
  }
  EXPECT_NEAR(held, m.gpu_seconds, 1e-9 * held);
  EXPECT_NEAR(lost, m.lost_gpu_seconds, 1e-9 * held);
  EXPECT_NEAR(by_kind, m.overhead_gpu_seconds, 1e-9 * held);
  EXPECT_EQ(static_cast<std::uint64_t>(migrations), m.migrations);
  EXPECT_EQ(static_cast<std::uint64_t>(resizes), m.resizes);
  EXPECT_EQ(static_cast<std::uint64_t>(failures), m.failures);
  EXPECT_GT(m.node_failures, 0u);
  EXPECT_GT(m.failures, 0u);

  // Deterministic: the same options and seed give the same run.
  const RunResult again = simulate(options, jobs);
  EXPECT_EQ(again.metrics.jct_mean, m.jct_mean);
  EXPECT_EQ(again.metrics.gpu_seconds, m.gpu_seconds);
  EXPECT_EQ(again.metrics.migrations, m.migrations);
}

INSTANTIATE_TEST_SUITE_P(PoliciesAndLocality, AllMechanisms,
                         ::testing::Combine(::testing::Values("fifo", "srtf", "las", "tiresias"),
                                            ::testing::Bool(), ::testing::Values(11u, 12u)),
                         [](const auto& info) {
                           std::string name = std::get<0>(info.param);
                           name += std::get<1>(info.param) ? "Strict" : "Any";
                           name += std::to_string(std::get<2>(info.param));
                           return name;
                         });

// Each mechanism, when used, moves the metrics it claims; the totals are positive.
TEST(AllMechanismsUsed, EveryMechanismFiresOnAFragmentingWorkload) {
  const SimOptions options = all_mechanisms("las", true);
  const RunResult result = simulate(options, mixed_jobs(3));
  EXPECT_GT(result.metrics.migrations, 0u);
  EXPECT_GT(result.metrics.resizes, 0u);
  EXPECT_GT(result.metrics.preemptions, 0u);
  EXPECT_GT(result.metrics.checkpoints, 0u);
  EXPECT_GT(result.metrics.overhead_migration_gpu_seconds, 0);
  EXPECT_GT(result.metrics.overhead_resize_gpu_seconds, 0);
  EXPECT_GT(result.metrics.goodput, 0);
  EXPECT_LT(result.metrics.goodput, 1);
}

// Failure classes on top of every mechanism: GPU, node, rack and job-level failures, hot spares,
// lemons, quarantine and the Young-Daly policy, with the ledger checked after every batch (a
// spare's held GPUs, nested outages), work conserved and every interruption a job failure.
TEST(AllMechanismsUsed, FailureClassesKeepTheInvariants) {
  SimOptions options = all_mechanisms("tiresias", false);
  options.mechanisms.checkpoint_interval_s = 0;
  options.mechanisms.checkpoint_policy = MechanismOptions::CheckpointPolicy::kYoungDaly;
  for (auto [cause, rate, repair_h] : {std::tuple{FailureCause::kGpu, 0.02, 0.5},
                                       {FailureCause::kHost, 0.05, 0.25},
                                       {FailureCause::kSwitch, 0.05, 0.1},
                                       {FailureCause::kSoftware, 0.2, 0.0}}) {
    FailureClass c;
    c.cause = cause;
    c.unit = default_failure_unit(cause);
    c.rate_per_h = rate;
    c.repair_h = repair_h;
    c.repair_exponential = cause == FailureCause::kHost;
    c.shape = cause == FailureCause::kGpu ? 0.7 : 1.0;
    options.mechanisms.failure_classes.push_back(c);
  }
  // mtbf_h's and the trace's failures off in this run (they are counted in `failures` too).
  const SimOptions with_node_failures = options;
  options.mechanisms.mtbf_h = 0;
  options.mechanisms.failure_trace.clear();
  options.mechanisms.hot_spares = 2;
  options.mechanisms.restart_detect_s = 30;
  options.mechanisms.restart_reschedule_s = 20;
  options.mechanisms.lemon_share = 0.25;
  options.mechanisms.lemon_factor = 5;
  options.mechanisms.quarantine_failures = 2;
  options.mechanisms.quarantine_window_h = 2;
  options.mechanisms.quarantine_h = 1;
  const auto jobs = mixed_jobs(5);
  const RunResult result = simulate(options, jobs);  // throws if an invariant breaks
  const RunMetrics& m = result.metrics;
  EXPECT_EQ(m.jobs, jobs.size());
  EXPECT_NEAR(m.gpu_seconds, m.useful_gpu_seconds + m.overhead_gpu_seconds + m.lost_gpu_seconds,
              1e-9 * m.gpu_seconds);
  EXPECT_GT(m.interruptions, 0u);
  EXPECT_EQ(m.interruptions, m.interruptions_gpu + m.interruptions_gpu_memory +
                                 m.interruptions_nic + m.interruptions_host +
                                 m.interruptions_switch + m.interruptions_power +
                                 m.interruptions_software + m.interruptions_maintenance);
  EXPECT_EQ(m.failures, m.interruptions);
  EXPECT_GT(m.ettr_mean, 0.0);
  EXPECT_LE(m.ettr_mean, 1.0);
  EXPECT_NEAR(m.gpu_hours_lost_rollback * 3600, m.lost_gpu_seconds, 1e-9 * m.gpu_seconds);

  // With mtbf_h's and the trace's outages too (a spare may go down holding its GPUs, the ledger
  // counts them once), asynchronous saves and elastic jobs shrinking on failure.
  SimOptions all = options;
  all.mechanisms.mtbf_h = with_node_failures.mechanisms.mtbf_h;
  all.mechanisms.failure_trace = with_node_failures.mechanisms.failure_trace;
  all.mechanisms.checkpoint_write = MechanismOptions::CheckpointWrite::kAsync;
  all.mechanisms.checkpoint_snapshot_s = 3;
  all.mechanisms.shrink_on_failure = true;
  const RunResult more = simulate(all, jobs);  // throws if an invariant breaks
  const RunMetrics& n = more.metrics;
  EXPECT_EQ(n.jobs, jobs.size());
  EXPECT_NEAR(n.gpu_seconds, n.useful_gpu_seconds + n.overhead_gpu_seconds + n.lost_gpu_seconds,
              1e-9 * n.gpu_seconds);
  EXPECT_GT(n.failures, n.interruptions);  // mtbf_h's failures beside the classes'
  EXPECT_GT(n.interruptions, 0u);
  EXPECT_GT(n.checkpoints, 0u);
  EXPECT_GT(n.resizes, 0u);
}

}  // namespace
}  // namespace clustersim
