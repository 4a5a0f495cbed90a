// Heterogeneous clusters: per-type speed from a throughput table, jobs that cannot run on a type,
// and the speed-aware type choice. Every JCT below is computed by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "clustersim/allocation_mechanism.h"
#include "clustersim/error.h"
#include "clustersim/simulator.h"
#include "clustersim/throughput_table.h"
#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;
using testing::stepped;

// One 1-GPU node of "k80" (listed first) and one of "v100".
SimOptions k80_and_v100() {
  SimOptions options;
  NodeGroupSpec k80;
  k80.name = "k80";
  k80.nodes = 1;
  k80.gpus_per_node = 1;
  k80.gpu_type = "k80";
  NodeGroupSpec v100 = k80;
  v100.name = "v100";
  v100.gpu_type = "v100";
  options.cluster.groups = {k80, v100};
  options.sample_interval_s = 0;
  options.check_invariants = true;
  return options;
}

// Steps/s: A runs 10 on a V100, 5 on a K80; B 2 on a V100 and cannot run on a K80; C 10 and 9.
std::shared_ptr<const ThroughputTable> table() {
  std::istringstream json(R"json({
    "v100": {"('A', 1)": {"null": 10.0}, "('B', 1)": {"null": 2.0}, "('C', 1)": {"null": 10.0}},
    "k80":  {"('A', 1)": {"null": 5.0},  "('B', 1)": {"null": 0.0}, "('C', 1)": {"null": 9.0}}})json");
  return std::make_shared<const ThroughputTable>(parse_throughput_table(json, "t.json"));
}

RunResult run(SimOptions options, const std::vector<JobSpec>& jobs,
              const TableModelOptions& table_options = {}) {
  TableModelOptions o = table_options;
  if (o.reference_type.empty()) o.reference_type = "v100";
  const auto model = make_table_throughput_model(table(), o);
  options.throughput = model.get();
  return simulate(options, jobs);
}

TEST(TableModel, AJobRunsItsStepsAtItsTypesSpeed) {
  // Most free GPUs, first listed on ties: the K80. 100 steps at 5/s = 20 s.
  RunResult result = run(k80_and_v100(), {stepped("a", 0, "A", 100)});
  EXPECT_DOUBLE_EQ(result.jobs[0].jct, 20.0);
  // Without steps, its duration (10 s) holds on the reference type (V100): twice as long on K80.
  JobSpec plain = job("p", 0, 1, 10.0);
  plain.model = "A";
  result = run(k80_and_v100(), {plain});
  EXPECT_DOUBLE_EQ(result.jobs[0].jct, 20.0);
}

TEST(TableModel, AJobThatCannotRunOnATypeNeverLandsThere) {
  // Two B jobs (40 steps, 2/s on a V100 = 20 s each; 0 on a K80) and an idle K80 all along:
  // the second waits for the V100 instead of starting on the K80.
  for (const char* choice : {"most_free", "fastest", "speedup"}) {
    SCOPED_TRACE(choice);
    SimOptions options = k80_and_v100();
    options.scheduler.type_choice = choice;
    std::vector<int> k80_users;
    options.observer = [&](const AllocationContext& context) {
      for (std::uint32_t holder : context.holders())
        if (context.type_held(holder) == 0) k80_users.push_back(static_cast<int>(holder));
    };
    const RunResult result = run(options, {stepped("b0", 0, "B", 40), stepped("b1", 0, "B", 40)});
    EXPECT_DOUBLE_EQ(result.jobs[0].jct, 20.0);
    EXPECT_DOUBLE_EQ(result.jobs[1].jct, 40.0);
    EXPECT_TRUE(k80_users.empty());
  }
  // Under a preemptive policy too: LAS swaps the two every 5 s lease on the V100 (rounds admit
  // them to their V100 only); the work ends at 40 s, and the K80 is never used.
  SimOptions options = k80_and_v100();
  options.scheduler.policy = "las";
  options.scheduler.lease_s = 5;
  bool on_k80 = false;
  options.observer = [&](const AllocationContext& context) {
    for (std::uint32_t holder : context.holders())
      on_k80 = on_k80 || context.type_held(holder) == 0;
  };
  const RunResult result = run(options, {stepped("b0", 0, "B", 40), stepped("b1", 0, "B", 40)});
  EXPECT_DOUBLE_EQ(std::max(result.jobs[0].jct, result.jobs[1].jct), 40.0);
  EXPECT_GT(result.jobs[0].preemptions + result.jobs[1].preemptions, 0);
  EXPECT_FALSE(on_k80);
}

TEST(TableModel, AJobThatCanRunNowhereIsImpossible) {
  SimOptions options = k80_and_v100();
  options.cluster.groups.pop_back();  // K80s only
  EXPECT_THROW(run(options, {stepped("b", 0, "B", 40)}), ImpossibleJobError);
  options.reject_impossible = true;
  const RunResult result = run(options, {stepped("b", 0, "B", 40), stepped("a", 0, "A", 10)});
  EXPECT_TRUE(result.jobs[0].rejected);
  EXPECT_DOUBLE_EQ(result.jobs[1].jct, 2.0);  // 10 steps at 5/s
}

TEST(TableModel, MissingEntriesFollowOnMissing) {
  JobSpec d = stepped("d", 0, "D", 10);  // no entry anywhere
  TableModelOptions options;
  options.on_missing = MissingProfile::kError;
  EXPECT_THROW(run(k80_and_v100(), {d}, options), std::invalid_argument);
  options.on_missing = MissingProfile::kCannotRun;
  SimOptions sim = k80_and_v100();
  sim.reject_impossible = true;
  EXPECT_TRUE(run(sim, {d}, options).jobs[0].rejected);
  options.on_missing = MissingProfile::kNeutral;  // rate 1: its 1 s duration
  EXPECT_DOUBLE_EQ(run(k80_and_v100(), {d}, options).jobs[0].jct, 1.0);
  // The config-level check names the job's line.
  d.source_line = 7;
  options.on_missing = MissingProfile::kError;
  try {
    check_table_coverage(*table(), {d}, {"k80", "v100"}, options, "trace.csv");
    FAIL() << "no error";
  } catch (const InputError& error) {
    EXPECT_EQ(error.line(), 7u);
    EXPECT_EQ(error.field(), "model");
  }
}

TEST(TypeChoice, FastestAndSpeedup) {
  // Job 0 (C: 10/s on a V100, 9/s on a K80) and job 1 (A: 10 and 5), 100 steps each, both at 0.
  const std::vector<JobSpec> jobs = {stepped("c", 0, "C", 100), stepped("a", 0, "A", 100)};
  SimOptions options = k80_and_v100();
  // most_free: job 0 takes the first listed type (K80: 100/9 s), job 1 the V100 (10 s).
  RunResult r = run(options, jobs);
  EXPECT_DOUBLE_EQ(r.jobs[0].jct, 100.0 / 9.0);
  EXPECT_DOUBLE_EQ(r.jobs[1].jct, 10.0);
  // fastest: job 0 takes its fastest, the V100 (10 s); job 1 gets the K80 (100/5 = 20 s).
  options.scheduler.type_choice = "fastest";
  r = run(options, jobs);
  EXPECT_DOUBLE_EQ(r.jobs[0].jct, 10.0);
  EXPECT_DOUBLE_EQ(r.jobs[1].jct, 20.0);
  // speedup: relative to their best type, the two arrived jobs run 0.9 and 0.5 on a K80 (mean
  // 0.7) and 1 on a V100. Job 0 scores 0.9 / 0.7 > 1 on the K80: it loses least there, and the
  // V100 goes to job 1, which gains most from it.
  options.scheduler.type_choice = "speedup";
  r = run(options, jobs);
  EXPECT_DOUBLE_EQ(r.jobs[0].jct, 100.0 / 9.0);
  EXPECT_DOUBLE_EQ(r.jobs[1].jct, 10.0);
}

// Two GPUs on one node. a (1 GPU, 10 s) runs [0, 10]; b (2 GPUs, 10 s) waits for it and runs
// [10, 20]. Jobs in the system: 2 over [0, 10], 1 over [10, 20].
// a: N = 20 / 10 = 2; alone on 1/2 of the cluster (1 GPU) it takes 10 s: rho = 10 / 10 = 1.
// b: N = (20 + 10) / 20 = 1.5; 1/1.5 of the cluster is 4/3 GPUs < its 2: alone it takes
// 10 x 2 x 1.5 / 2 = 15 s, rho = 20 / 15 = 4/3 (> 1).
TEST(FairnessMetrics, FinishTimeFairnessByHand) {
  SimOptions options = testing::small_cluster(1, 2);
  options.sample_interval_s = 0;
  const RunResult result = simulate(options, {job("a", 0, 1, 10), job("b", 0, 2, 10)});
  EXPECT_DOUBLE_EQ(result.jobs[1].jct, 20.0);
  EXPECT_DOUBLE_EQ(result.metrics.ftf_mean, (1.0 + 4.0 / 3.0) / 2);
  EXPECT_DOUBLE_EQ(result.metrics.ftf_max, 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(result.metrics.ftf_unfair, 0.5);
  EXPECT_TRUE(result.type_gpu_seconds.empty());  // one GPU type: no per-type columns
}

TEST(FairnessMetrics, GpuSecondsPerType) {
  // b0 runs 20 s on the V100; a (100 steps) 20 s on the K80 (5/s), started at once beside it.
  const RunResult result =
      run(k80_and_v100(), {stepped("b0", 0, "B", 40), stepped("a", 0, "A", 100)});
  ASSERT_EQ(result.gpu_types, (std::vector<std::string>{"k80", "v100"}));
  EXPECT_EQ(result.type_gpu_seconds, (std::vector<double>{0.0, 20.0, 20.0, 0.0}));
}

// Gavel's rounds (fifo_perf; lease 10.5 s). x (A: 10 steps/s on the V100, 5 on the K80; 125
// steps) arrives at 0, y (C: 10 and 9; 200 steps) at 1.
// Round 1 at 0: x takes the V100 for min(floor(10 x 10.5), 125) = 105 steps: 10.5 s. y waits for
// the round's end although the K80 is idle.
// Round 2 at 10.5 (a reset: the first one was at time 0): x keeps the V100 (first in arrival
// order), 20 steps = 2 s (done at 12.5); y gets the K80: floor(9 x 10.5) = 94 steps = 94/9 s.
// Round 3 at 10.5 + 94/9: x finished, but the allocation is recomputed only 1,920 s after the
// last reset, so y stays on the K80: 94 steps, then round 4: its last 12. y finishes at 10.5 +
// 200/9. With allocation_reset_s = 0, round 3 moves y to the V100: 105 steps (10.5 s), then 1.
TEST(GavelRounds, MicroTaskLengthsByHand) {
  SimOptions options = k80_and_v100();
  options.scheduler.policy = "fifo_perf";
  options.scheduler.lease_s = 10.5;
  options.scheduler.checkpoint_s = options.scheduler.restore_s = 0;
  const std::vector<JobSpec> jobs = {stepped("x", 0, "A", 125), stepped("y", 1, "C", 200)};
  RunResult r = run(options, jobs);
  EXPECT_NEAR(r.jobs[0].jct, 12.5, 1e-9);
  EXPECT_NEAR(r.jobs[1].jct, 10.5 + 200.0 / 9.0 - 1, 1e-9);
  options.scheduler.allocation_reset_s = 0;
  r = run(options, jobs);
  EXPECT_NEAR(r.jobs[1].jct, 10.5 + 94.0 / 9.0 + 10.5 + 0.1 - 1, 1e-9);
}

}  // namespace
}  // namespace clustersim

namespace clustersim {
namespace {

// [mechanisms] upgrade_type: x (A: 10 steps/s on the V100, 5 on the K80; 100 steps) and y (A)
// arrive at 0; FIFO with type_choice = "fastest" puts x on the V100 (10 s) and y on the K80.
// When x finishes at 10, y has run 50 steps. Moving costs a save plus a restore (1 + 1 s).
TEST(TypeUpgrade, AJobMovesToAFasterTypeWhenItFreesIfThatPays) {
  SimOptions options = k80_and_v100();
  options.scheduler.type_choice = "fastest";
  options.scheduler.checkpoint_s = 1;
  options.scheduler.restore_s = 1;
  options.mechanisms.upgrade_type = true;
  // y has 200 steps: 150 left at 10 take 30 s on the K80, or 2 + 150 / 10 = 17 s after moving:
  // it moves, pauses [10, 12] and runs its last 150 steps [12, 27].
  RunResult r = run(options, {stepped("x", 0, "A", 100), stepped("y", 0, "A", 200)});
  EXPECT_DOUBLE_EQ(r.jobs[0].jct, 10.0);
  EXPECT_DOUBLE_EQ(r.jobs[1].jct, 27.0);
  EXPECT_EQ(r.jobs[1].migrations, 1);
  // y has 55 steps: its last 5 take 1 s on the K80, 2 + 0.5 s after a move: it stays, done at
  // 11.
  r = run(options, {stepped("x", 0, "A", 100), stepped("y", 0, "A", 55)});
  EXPECT_DOUBLE_EQ(r.jobs[1].jct, 11.0);
  EXPECT_EQ(r.jobs[1].migrations, 0);
  // Off (the default), y stays on the K80: 200 / 5 = 40 s.
  options.mechanisms.upgrade_type = false;
  r = run(options, {stepped("x", 0, "A", 100), stepped("y", 0, "A", 200)});
  EXPECT_DOUBLE_EQ(r.jobs[1].jct, 40.0);
}

}  // namespace
}  // namespace clustersim
