// Each metric's documented definition against its code: the metric recomputed from the per-job
// records and the time series (or by hand), and invariants that must hold for every ordering
// policy (unlimited capacity, one job alone, a node down).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "clustersim/cluster_state.h"
#include "clustersim/policy.h"
#include "clustersim/random.h"
#include "clustersim/simulator.h"
#include "clustersim/throughput_table.h"
#include "metrics/fragmentation.h"
#include "test_util.h"

namespace clustersim {
namespace metric_definitions {

using internal::FragmentationTracker;
using testing::job;
using testing::small_cluster;

// A workload whose every event falls on a whole second (integer submits and durations), so
// that a time series sampled every second is the state over each second: sums of samples are
// then the time integrals exactly.
std::vector<JobSpec> whole_second_jobs(std::size_t count, int max_gap, int max_duration,
                                       const std::vector<int>& gpu_choices, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<JobSpec> jobs;
  Time t = 0;
  for (std::size_t i = 0; i < count; ++i) {
    t += static_cast<double>(rng.below(static_cast<std::uint64_t>(max_gap) + 1));
    const int gpus = gpu_choices[rng.below(gpu_choices.size())];
    const double duration =
        1.0 + static_cast<double>(rng.below(static_cast<std::uint64_t>(max_duration)));
    jobs.push_back(job(testing::numbered("w", i), t, gpus, duration));
  }
  return jobs;
}

// ---- Fragmentation sums against a direct count ------------------------------------------------

std::vector<JobState> job_states(const std::vector<std::pair<int, int>>& gpus_and_count) {
  std::vector<JobState> jobs;
  for (const auto& [gpus, count] : gpus_and_count)
    for (int i = 0; i < count; ++i) {
      JobState state;
      state.requested_gpus = state.gpus = gpus;
      jobs.push_back(state);
    }
  return jobs;
}

TEST(FragmentationTracker, HeadCountEqualsTheLedgersScanAfterEveryChange) {
  SimOptions options = small_cluster(12, 8, 4);
  ClusterState cluster(options.cluster);
  FragmentationTracker tracker;
  const auto jobs = job_states({{1, 5}, {2, 3}, {8, 1}});
  tracker.reset(cluster, jobs);
  cluster.observe_free_gpus(&tracker);
  Rng rng(5);
  std::vector<Grant> held;
  for (int step = 0; step < 2000; ++step) {
    const auto node = static_cast<std::uint32_t>(rng.below(12));
    if (!held.empty() && rng.uniform() < 0.5) {
      const std::size_t k = rng.below(held.size());
      cluster.release(held[k]);
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
    } else if (cluster.node(node).free_gpus > 0) {
      const int gpus =
          1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(cluster.node(node).free_gpus)));
      held.push_back(Grant{node, gpus});
      cluster.allocate(held.back());
    }
    for (int g = 1; g <= 9; ++g)
      ASSERT_EQ(tracker.head_fragmented(-1, g), cluster.fragmented_gpus(-1, g)) << step;
  }
}

// 2 nodes of 4 GPUs. Typical jobs: three of 2 GPUs and one of 4 (3/4 < 95%: both shapes).
TEST(FragmentationTracker, TypicalMeasureByHand) {
  ClusterState cluster(small_cluster(2, 4).cluster);
  FragmentationTracker tracker;
  tracker.reset(cluster, job_states({{2, 3}, {4, 1}}));
  cluster.observe_free_gpus(&tracker);
  ASSERT_EQ(tracker.typical().size(), 2u);
  EXPECT_EQ(tracker.typical_fragmented(), 0.0);  // an empty cluster serves every job
  // Node 0 keeps 1 free GPU: neither shape can use it (weights 3 + 1 of 4).
  cluster.allocate(Grant{0, 3});
  EXPECT_DOUBLE_EQ(tracker.typical_fragmented(), 1.0 * (3 + 1) / 4);
  // Node 1 keeps 3: the 2-GPU jobs can use them, the 4-GPU job cannot (weight 1 of 4).
  cluster.allocate(Grant{1, 1});
  EXPECT_DOUBLE_EQ(tracker.typical_fragmented(), (1.0 * 4 + 3.0 * 1) / 4);
  cluster.release(Grant{0, 3});
  EXPECT_DOUBLE_EQ(tracker.typical_fragmented(), 3.0 * 1 / 4);
}

// 1-GPU nodes, two racks of two: 2-GPU jobs fit in one rack only where both of its nodes are
// free. A job's GPU taken in each rack leaves both idle GPUs unusable; two in one rack, none.
TEST(FragmentationTracker, OneGpuNodesFragmentByRack) {
  ClusterState cluster(small_cluster(4, 1, 2).cluster);
  FragmentationTracker tracker;
  tracker.reset(cluster, job_states({{2, 10}}));
  cluster.observe_free_gpus(&tracker);
  cluster.allocate(Grant{0, 1});
  cluster.allocate(Grant{2, 1});
  EXPECT_DOUBLE_EQ(tracker.typical_fragmented(), 2.0);
  cluster.release(Grant{2, 1});
  cluster.allocate(Grant{1, 1});
  EXPECT_DOUBLE_EQ(tracker.typical_fragmented(), 0.0);
  // The head measure cannot see it: a 1-GPU node is never partly free.
  EXPECT_EQ(tracker.head_fragmented(-1, 2), 0);
}

TEST(FragmentationTracker, TypicalShapesCover95PercentMostFrequentFirst) {
  // 90 of 1 GPU, 6 of 2, 4 of 8: 90% < 95%, 96% >= 95%: the 8-GPU jobs are left out.
  const auto typical = FragmentationTracker::typical_jobs(job_states({{1, 90}, {2, 6}, {8, 4}}));
  ASSERT_EQ(typical.size(), 2u);
  EXPECT_EQ(typical[0].gpus, 1);
  EXPECT_EQ(typical[1].gpus, 2);
}

// ---- frag_mean: a time average -----------------------------------------------------------------

// t=0: a and b take 3 GPUs of a node each; c (4 GPUs) waits from 1 to 10 with the 2 idle GPUs
// fragmented for it; it ends at 20. Time average: 2 GPUs x 9 s / 20 s, whatever the sampling.
TEST(MetricDefinitions, FragMeanIsATimeAverageWhateverTheSampleInterval) {
  const std::vector<JobSpec> jobs = {job("a", 0, 3, 10), job("b", 0, 3, 10), job("c", 1, 4, 10)};
  for (double interval : {0.0, 1.0, 5.0, 7.0, 600.0}) {
    SimOptions options = small_cluster(2, 4);
    options.sample_interval_s = interval;
    EXPECT_DOUBLE_EQ(simulate(options, jobs).metrics.frag_mean, 2.0 * 9.0 / 20.0) << interval;
  }
  // A random workload: the same bits at every interval.
  const auto random = testing::random_jobs(400, 20, 300, {1, 2, 4, 8}, 4);
  SimOptions options = small_cluster(4, 8);
  options.sample_interval_s = 600;
  const RunResult coarse = simulate(options, random);
  options.sample_interval_s = 5;
  const RunResult fine = simulate(options, random);
  EXPECT_GT(coarse.metrics.frag_mean, 0.0);
  EXPECT_EQ(coarse.metrics.frag_mean, fine.metrics.frag_mean);
  EXPECT_EQ(coarse.metrics.frag_typical_mean, fine.metrics.frag_typical_mean);
}

// Sampled every second on a whole-second workload, the series' sums over the measured range
// are the integrals the metrics divide by the makespan.
TEST(MetricDefinitions, TimeAveragesEqualTheSeriesIntegrals) {
  const auto jobs = whole_second_jobs(300, 6, 40, {1, 2, 3, 4, 8}, 12);
  for (const std::string placement : {"consolidate", "spread", "random"}) {
    for (const bool windowed : {false, true}) {
      SimOptions options = small_cluster(6, 4, 2);
      options.scheduler.placement = placement;
      options.sample_interval_s = 1;
      if (windowed) options.window = SimOptions::Window{100, 199};
      const RunResult result = simulate(options, jobs);
      const RunMetrics& m = result.metrics;
      Time from = jobs.front().submit_time;
      if (windowed) {
        from = jobs[100].submit_time;
        for (std::size_t i = 100; i <= 199; ++i) from = std::min(from, jobs[i].submit_time);
      }
      double fragmented = 0, typical = 0, busy = 0;
      for (const Sample& sample : result.samples) {
        if (sample.time < from || sample.time >= from + m.makespan) continue;
        fragmented += sample.fragmented_gpus;
        typical += sample.frag_typical_gpus;
        busy += sample.busy_gpus;
      }
      const std::string where = placement + (windowed ? " windowed" : "");
      EXPECT_NEAR(m.frag_mean, fragmented / m.makespan, 1e-9 * (1 + m.frag_mean)) << where;
      EXPECT_NEAR(m.frag_typical_mean, typical / m.makespan, 1e-9 * (1 + typical)) << where;
      // gpu_util with a window: the GPUs every job held over the range (the documented rule).
      if (windowed) {
        EXPECT_NEAR(m.gpu_util, busy / (24 * m.makespan), 1e-12) << where;
      }
    }
  }
}

// Spread and random placement leave different idle GPUs unusable to the typical jobs.
TEST(MetricDefinitions, TypicalFragmentationTellsPlacementsApart) {
  const auto jobs = testing::random_jobs(400, 15, 300, {1, 2, 4}, 21);
  double spread = 0, consolidate = 0;
  for (const std::string placement : {"spread", "consolidate"}) {
    SimOptions options = small_cluster(8, 4, 2);
    options.scheduler.placement = placement;
    const double frag = simulate(options, jobs).metrics.frag_typical_mean;
    (placement == "spread" ? spread : consolidate) = frag;
  }
  EXPECT_GT(spread, consolidate);
}

// ---- Finish-time fairness ----------------------------------------------------------------------

// rho recomputed from the per-job records: N over a job's stay is every job's overlap with it
// (itself included) / its JCT; alone on 1/N of G GPUs a job of g GPUs takes its duration x
// max(1, g N / G).
TEST(MetricDefinitions, FinishTimeFairnessFromThePerJobRecords) {
  const auto jobs = testing::random_jobs(250, 30, 400, {1, 2, 4, 8}, 8);
  for (const std::string policy : {"fifo", "srtf", "las"}) {
    SimOptions options = small_cluster(4, 4);
    options.scheduler.policy = policy;
    const RunResult result = simulate(options, jobs);
    double sum = 0, most = 0;
    std::size_t unfair = 0;
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const JobRecord& r = result.jobs[i];
      double overlap = 0;
      for (const JobRecord& other : result.jobs)
        overlap += std::max(0.0, std::min(r.finish_time, other.finish_time) -
                                     std::max(r.submit_time, other.submit_time));
      const double sharing = std::max(1.0, overlap / r.jct);
      const double alone = jobs[i].duration * std::max(1.0, jobs[i].num_gpus * sharing / 16.0);
      const double rho = r.jct / alone;
      sum += rho;
      most = std::max(most, rho);
      unfair += rho > 1.0 + 1e-9 ? 1 : 0;
    }
    const RunMetrics& m = result.metrics;
    EXPECT_NEAR(m.ftf_mean, sum / jobs.size(), 1e-9 * m.ftf_mean) << policy;
    EXPECT_NEAR(m.ftf_max, most, 1e-9 * most) << policy;
    EXPECT_DOUBLE_EQ(m.ftf_unfair, static_cast<double>(unfair) / jobs.size()) << policy;
  }
}

// One K80 and one V100; job A runs 10 steps/s on the V100 and 5 on the K80, and gets the K80
// (first listed on ties): 100 steps in 20 s. Alone at its best type it takes 10 s (rho 2);
// with Gavel's 1/N of every type, half its time on each, at 0.75 of the V100's speed: 13.3 s.
TEST(MetricDefinitions, GavelsBaselineIsAnEqualShareOfEveryType) {
  SimOptions options;
  NodeGroupSpec k80;
  k80.name = k80.gpu_type = "k80";
  k80.nodes = 1;
  k80.gpus_per_node = 1;
  NodeGroupSpec v100 = k80;
  v100.name = v100.gpu_type = "v100";
  options.cluster.groups = {k80, v100};
  std::istringstream json(R"json({"v100": {"('A', 1)": {"null": 10.0}},
                                  "k80": {"('A', 1)": {"null": 5.0}}})json");
  const auto table = std::make_shared<const ThroughputTable>(parse_throughput_table(json, "t"));
  TableModelOptions table_options;
  table_options.reference_type = "v100";
  const auto model = make_table_throughput_model(table, table_options);
  options.throughput = model.get();
  const std::vector<JobSpec> jobs = {testing::stepped("a", 0, "A", 100)};
  const RunResult best = simulate(options, jobs);
  ASSERT_DOUBLE_EQ(best.jobs[0].jct, 20.0);
  EXPECT_DOUBLE_EQ(best.metrics.ftf_mean, 2.0);
  options.ftf_baseline = FtfBaseline::kGavel;
  const RunResult gavel = simulate(options, jobs);
  EXPECT_DOUBLE_EQ(gavel.metrics.ftf_mean, 20.0 / (10.0 / 0.75));
  EXPECT_EQ(gavel.metrics.ftf_unfair, 1.0);
}

// ---- Invariants for every ordering policy ------------------------------------------------------

TEST(MetricInvariants, UnlimitedCapacityIsFairForEveryPolicy) {
  const auto jobs = testing::random_jobs(400, 5.0, 300.0, {1, 2, 4, 8}, 3);
  for (const auto& policy : scheduling_policy_names()) {
    SimOptions options = small_cluster(400, 8);  // 3,200 GPUs: never full
    options.scheduler.policy = policy;
    const RunMetrics m = simulate(options, jobs).metrics;
    EXPECT_EQ(m.ftf_unfair, 0.0) << policy;
    EXPECT_LE(m.ftf_max, 1.0 + 1e-9) << policy;
    EXPECT_EQ(m.preemptions, 0u) << policy;
  }
}

TEST(MetricInvariants, OneJobAloneHasRhoOneForEveryPolicy) {
  for (const auto& policy : scheduling_policy_names()) {
    for (const int gpus : {1, 8}) {
      SimOptions options = small_cluster(1, 8);
      options.scheduler.policy = policy;
      // An awkward duration and submit time: JCT = finish - submit is not exact.
      const RunResult result = simulate(options, {job("only", 1234.567, gpus, 1000.1)});
      EXPECT_NEAR(result.metrics.ftf_mean, 1.0, 1e-9) << policy;
      EXPECT_EQ(result.metrics.ftf_unfair, 0.0) << policy << " " << gpus;
    }
  }
}

// 2 nodes of 8 GPUs, node 1 down from 300 s to 700 s, a queue all along: the down node's GPUs
// are counted down, never busy, and busy + idle + down is the cluster.
TEST(MetricInvariants, ADownNodesGpusAreNeverBusyForEveryPolicy) {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 120; ++i) jobs.push_back(job(testing::numbered("d", i), i, 1 + i % 4, 90));
  for (const auto& policy : scheduling_policy_names()) {
    SimOptions options = small_cluster(2, 8);
    options.scheduler.policy = policy;
    options.sample_interval_s = 10;
    options.mechanisms.failure_trace = {NodeOutage{1, 300.0, 700.0}};
    const RunResult result = simulate(options, jobs);
    bool saw_outage = false;
    for (const Sample& s : result.samples) {
      ASSERT_EQ(s.busy_gpus + s.idle_gpus + s.down_gpus, 16) << policy << " t=" << s.time;
      const bool down = s.time >= 300 && s.time < 700;
      ASSERT_EQ(s.down_gpus, down ? 8 : 0) << policy << " t=" << s.time;
      if (down) {
        ASSERT_LE(s.busy_gpus, 8) << policy << " t=" << s.time;
      }
      saw_outage = saw_outage || down;
    }
    EXPECT_TRUE(saw_outage) << policy;
    EXPECT_LE(result.metrics.gpu_util, 1.0) << policy;
  }
}

// Node 1 is down from 300 s to 700 s. A job runs 0..100, another 301..700 on node 0 (the only
// node up), each on 8 GPUs and their 64 cores. The outage holds node 1's cores in the ledger,
// but no job uses them: 8 x 499 GPU-s and 64 x 499 core-s of 16 x 700 and 128 x 700.
// (The first job is there because an outage may not begin before the first arrival.)
TEST(MetricDefinitions, ADownNodesResourcesAreNotUtilised) {
  SimOptions options = small_cluster(2, 8);
  options.cluster.groups[0].cpus_per_node = 64;
  options.cluster.groups[0].mem_gb_per_node = 512;
  options.mechanisms.failure_trace = {NodeOutage{1, 300.0, 700.0}};
  const RunMetrics m =
      simulate(options, {job("first", 0, 8, 100), job("second", 301, 8, 399)}).metrics;
  EXPECT_DOUBLE_EQ(m.makespan, 700.0);
  EXPECT_DOUBLE_EQ(m.gpu_util, 8.0 * 499 / (16 * 700));
  EXPECT_DOUBLE_EQ(m.cpu_util, 64.0 * 499 / (128 * 700));
  EXPECT_DOUBLE_EQ(m.mem_util, 512.0 * 499 / (1024 * 700));
}

// ---- Warnings ----------------------------------------------------------------------------------

// Durations capped at 1,000 s for 5% of the jobs on a cluster with room for all: the p99 JCT is
// the cap, and the warning says so; below 1% at the cap (1 job of 100), no warning.
TEST(MetricDefinitions, ADurationCapThatBindsTheP99IsWarned) {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 100; ++i)
    jobs.push_back(job(testing::numbered("c", i), i, 1, i % 20 == 0 ? 1000.0 : 10.0 + i));
  SimOptions options = small_cluster(100, 8);
  RunResult result = simulate(options, jobs);
  ASSERT_EQ(result.metrics.jct_p99, 1000.0);
  EXPECT_DOUBLE_EQ(result.metrics.jct_p99_cap_share, 5.0 / 100.0);  // the run's own metric
  const auto warnings = metric_warnings(jobs, result);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("jct_p99 = 1000 s"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("5%"), std::string::npos) << warnings[0];
  // Rows cut after the run (a front end keeps the measured ones): the metric still says it.
  RunResult cut = result;
  cut.jobs.resize(10);
  EXPECT_EQ(metric_warnings(jobs, cut), warnings);
  for (int i = 1; i < 100; ++i) jobs[static_cast<std::size_t>(i)].duration = 10.0 + i;
  result = simulate(options, jobs);
  EXPECT_EQ(result.metrics.jct_p99_cap_share, 0.0);
  EXPECT_TRUE(metric_warnings(jobs, result).empty());
}

}  // namespace metric_definitions
}  // namespace clustersim
