// Gavel's policies: lease changes counted apart from preemptions (plan.h, Plan::Lease), and the
// LP policies exact when the cluster can give every job all of its time at once. Every count and
// time below is computed by hand.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "clustersim/simulator.h"
#include "clustersim/throughput_table.h"
#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;
using testing::stepped;

// Gavel's rounds of 100 s on `gpus` 1-GPU nodes of one type, agnostic max-min, costs 0.
SimOptions gavel_rounds_on(int gpus) {
  SimOptions options = testing::small_cluster(gpus, 1);
  options.sample_interval_s = 0;
  options.check_invariants = true;
  options.scheduler.policy = "max_min_fairness";
  options.scheduler.rounds = "gavel";
  options.scheduler.lease_s = 100;
  options.scheduler.checkpoint_s = options.scheduler.restore_s = 0;
  return options;
}

// a and b (250 s, 1 step/s) at 0 on 2 GPUs: X = 1 each. Each round's micro-task is 100 steps:
// both run [0, 100] and [100, 200], stopping at each lease's end, and their last 50 steps [200,
// 250] end with their completion. Each lease ended twice and was continued in the next round:
// 2 lease changes each, no preemption (before lease changes were counted apart: 2 each), and
// the JCT is the duration.
TEST(TimeShareLeases, LeasesContinuedRoundAfterRoundAreNoPreemptions) {
  const RunResult r = simulate(gavel_rounds_on(2), {job("a", 0, 1, 250), job("b", 0, 1, 250)});
  for (const JobRecord& record : r.jobs) {
    EXPECT_NEAR(record.jct, 250.0, 1e-9);
    EXPECT_EQ(record.lease_changes, 2);
    EXPECT_EQ(record.preemptions, 0);
  }
  EXPECT_EQ(r.metrics.lease_changes, 4u);
  EXPECT_EQ(r.metrics.preemptions, 0u);
}

// a and b (200 s) at 0 on 1 GPU: X = 0.5 each. Gavel's ranking (allocation / fraction of the
// type's time received, starting at lease / 2 each): round 1 at 0, a tie, a first: a [0, 100],
// stopped at its lease's end. Round 2 at 100: a has 150 of 200 s of the type's time (0.75), b
// 0.25: b [100, 200], stopped. Round 3 at 200: both 0.5, a first: its last 100 steps, done at
// 300. Round 4 at 300: b alone: [300, 400]. Each job's one lease end was followed by a round
// it did not run in: 1 lease change and 1 preemption each (counted at its next start). a waited
// 100-200, b 0-100 and 200-300.
TEST(TimeShareLeases, ALeaseEndFollowedByAMissedRoundIsAPreemption) {
  const RunResult r = simulate(gavel_rounds_on(1), {job("a", 0, 1, 200), job("b", 0, 1, 200)});
  EXPECT_NEAR(r.jobs[0].jct, 300.0, 1e-9);
  EXPECT_NEAR(r.jobs[1].jct, 400.0, 1e-9);
  EXPECT_NEAR(r.jobs[0].queue_delay, 100.0, 1e-9);
  EXPECT_NEAR(r.jobs[1].queue_delay, 200.0, 1e-9);
  for (const JobRecord& record : r.jobs) {
    EXPECT_EQ(record.lease_changes, 1);
    EXPECT_EQ(record.preemptions, 1);
  }
  EXPECT_EQ(r.metrics.lease_changes, 2u);
  EXPECT_EQ(r.metrics.preemptions, 2u);
}

// Under the exact realisation a stop is a lease change, and a preemption: the job waits.
// (ExactRounds.EqualSharesAlternateInLeasesOfTheirFraction: 19 stops each.)
TEST(TimeShareLeases, ExactRealisationStopsAreLeaseChangesAndPreemptions) {
  SimOptions options = gavel_rounds_on(1);
  options.scheduler.rounds = "exact";
  options.scheduler.lease_s = 10;
  const RunResult r = simulate(options, {job("a", 0, 1, 100), job("b", 0, 1, 100)});
  for (const JobRecord& record : r.jobs) {
    EXPECT_EQ(record.lease_changes, 19);
    EXPECT_EQ(record.preemptions, 19);
  }
}

// `k80s` 1-GPU K80 nodes and `v100s` 1-GPU V100 nodes; steps/s per type from a table: A runs
// 10 on a V100 and 5 on a K80, B 4 and 1 (so a B gains most from a V100), C 2 and 3 (faster on
// the K80).
RunResult run_mixed(SimOptions options, int k80s, int v100s, const std::vector<JobSpec>& jobs) {
  NodeGroupSpec k80;
  k80.name = "k80";
  k80.nodes = k80s;
  k80.gpus_per_node = 1;
  k80.gpu_type = "k80";
  NodeGroupSpec v100 = k80;
  v100.name = "v100";
  v100.nodes = v100s;
  v100.gpu_type = "v100";
  options.cluster.groups = {k80, v100};
  std::istringstream json(R"json({
    "v100": {"('A', 1)": {"null": 10.0}, "('B', 1)": {"null": 4.0}, "('C', 1)": {"null": 2.0}},
    "k80":  {"('A', 1)": {"null": 5.0},  "('B', 1)": {"null": 1.0}, "('C', 1)": {"null": 3.0}}})json");
  TableModelOptions table_options;
  table_options.reference_type = "v100";
  const auto model = make_table_throughput_model(
      std::make_shared<const ThroughputTable>(parse_throughput_table(json, "t.json")),
      table_options);
  options.throughput = model.get();
  return simulate(options, jobs);
}

// Eight jobs arriving at 0, 5, ..., 35 on 8 K80s and 8 V100s: room for every job on its fastest
// type at once. Every LP policy, with either tie-break, under the exact realisation must then
// run each job on its fastest type from its arrival to its end without a stop: A and B on a
// V100 (120 steps: 12 s and 30 s), C on a K80 (120 steps: 40 s); no preemption, no lease change.
TEST(TimeShareLeases, UnlimitedCapacityRunsEveryJobAtItsFastestWithoutAStop) {
  const std::vector<std::pair<const char*, double>> kinds = {{"A", 12.0}, {"B", 30.0}, {"C", 40.0}};
  std::vector<JobSpec> jobs;
  std::vector<double> fastest;
  for (int i = 0; i < 8; ++i) {
    const auto& [model, seconds] = kinds[static_cast<std::size_t>(i) % kinds.size()];
    // (The id built by append: GCC 12 warns, wrongly, on "literal" + std::string here.)
    std::string id = "j";
    id += std::to_string(i);
    jobs.push_back(stepped(id, 5.0 * i, model, 120));
    fastest.push_back(seconds);
  }
  for (const char* tie_break : {"none", "throughput"})
    for (const char* policy :
         {"max_min_fairness_perf", "finish_time_fairness_perf", "min_total_duration_perf"}) {
      SCOPED_TRACE(std::string(policy) + ", tie_break = " + tie_break);
      SimOptions options = gavel_rounds_on(1);
      options.scheduler.policy = policy;
      options.scheduler.rounds = "exact";
      options.scheduler.lease_s = 360;
      options.scheduler.tie_break = tie_break;
      const RunResult r = run_mixed(options, 8, 8, jobs);
      for (std::size_t i = 0; i < jobs.size(); ++i) EXPECT_NEAR(r.jobs[i].jct, fastest[i], 1e-6);
      EXPECT_EQ(r.metrics.preemptions, 0u);
      EXPECT_EQ(r.metrics.lease_changes, 0u);
    }
}

}  // namespace
}  // namespace clustersim
