// rounds = "exact": Gavel's allocations realised by event-driven leases
// (decider/exact_time_share_decider.h). Every finish time below is computed by hand.
#include <gtest/gtest.h>

#include <sstream>

#include "clustersim/allocation_mechanism.h"
#include "clustersim/simulator.h"
#include "clustersim/throughput_table.h"
#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;
using testing::stepped;

// One GPU; Gavel's max-min (agnostic) under the exact realisation, leases of X x 10 s.
SimOptions one_gpu_exact() {
  SimOptions options = testing::small_cluster(1, 1);
  options.sample_interval_s = 0;
  options.check_invariants = true;
  options.scheduler.policy = "max_min_fairness";
  options.scheduler.rounds = "exact";
  options.scheduler.lease_s = 10;
  options.scheduler.checkpoint_s = options.scheduler.restore_s = 0;
  return options;
}

// a and b (100 s each) arrive at 0 on one GPU: max-min gives each X = 0.5, so leases of 5 s.
// Deficits (owed 0.5/s, minus 1/s while leased): at 0 both 0, a first (arrival order): a [0, 5].
// At 5: a -2.5, b +2.5: a stops, b [5, 10]. At 10: both 0, and on a tie the waiting job goes
// first: a [10, 15], b [15, 20], ... a's 20th lease [190, 195] completes its 100 s; b has 95 s
// done (19 leases) and, alone (X = 1), runs its last 5 s from 195: done at 200. a is stopped at
// 5, 15, ..., 185 (19 times), b at 10, 20, ..., 190 (19 times).
TEST(ExactRounds, EqualSharesAlternateInLeasesOfTheirFraction) {
  const RunResult r = simulate(one_gpu_exact(), {job("a", 0, 1, 100), job("b", 0, 1, 100)});
  EXPECT_NEAR(r.jobs[0].jct, 195.0, 1e-6);
  EXPECT_NEAR(r.jobs[1].jct, 200.0, 1e-6);
  EXPECT_EQ(r.jobs[0].preemptions, 19);
  EXPECT_EQ(r.jobs[1].preemptions, 19);
}

// a (30 s) alone from 0 holds X = 1: a lease [0, 10]. b (10 s) arrives at 4: the allocation is
// solved again at once (0.5 each), which cuts a's lease to 0 + 0.5 x 10 = 5 (Gavel's rounds
// would keep b waiting until the round ends at 10). Deficits at 5: a 4 - 4 (by 4) + 0.5 - 1 =
// -0.5, b +0.5: b [5, 10]. At 10: a -0.5 + 2.5 = 2, b 0.5 + 2.5 - 5 = -2: a [10, 15]. At 15:
// a -0.5, b 0.5: b [15, 20], which completes its 10 s: b's JCT 20 - 4 = 16. a, with 10 s done,
// runs alone (X = 1) from 20 to 40.
TEST(ExactRounds, AnArrivalMidLeaseIsSolvedAtOnce) {
  const RunResult r = simulate(one_gpu_exact(), {job("a", 0, 1, 30), job("b", 4, 1, 10)});
  EXPECT_NEAR(r.jobs[0].jct, 40.0, 1e-6);
  EXPECT_NEAR(r.jobs[1].jct, 16.0, 1e-6);
  EXPECT_EQ(r.jobs[0].preemptions, 2);  // at 5 and 15
  EXPECT_EQ(r.jobs[1].preemptions, 1);  // at 10
}

// The first case with 10 s jobs, checkpoint_s = 1 and restore_s = 2 (a restart after a stop
// restores; a first start does not). Stopped jobs hold the GPU while they save; deficits accrue
// all along. a [0, 5] runs 5 s. At 5 (a -2.5, b 2.5) a stops and saves until 6; b starts at 6
// (a -2, b 3) and runs [6, 11]: 5 s. At 11 both are at 0.5, the waiting a goes first: b stops,
// saves until 12; at 12 both wait at 1, a first (arrival): restore [12, 14], runs [14, 17]: 3 s,
// 2 left. At 17 (a -1.5, b 3.5) a stops, saves until 18; b (a -1, b 4) restores [18, 20], runs
// [20, 23]: 3 s, 2 left. At 23 both 1.5, a first: b saves until 24; at 24 both 2, a restores
// [24, 26] and runs its last 2 s: done at 28. b, alone, restores [28, 30] and is done at 32.
TEST(ExactRounds, StopsAndRestartsPayCheckpointAndRestore) {
  SimOptions options = one_gpu_exact();
  options.scheduler.checkpoint_s = 1;
  options.scheduler.restore_s = 2;
  const RunResult r = simulate(options, {job("a", 0, 1, 10), job("b", 0, 1, 10)});
  EXPECT_NEAR(r.jobs[0].jct, 28.0, 1e-6);
  EXPECT_NEAR(r.jobs[1].jct, 32.0, 1e-6);
  EXPECT_EQ(r.jobs[0].preemptions, 2);  // at 5 and 17
  EXPECT_EQ(r.jobs[1].preemptions, 2);  // at 11 and 23
}

// Leases stop jobs between steps, and a job with part of a step left still needs that step:
// a and b (10 steps of 1 s each) on one GPU under min_total_duration_perf: T = 20, X = 0.5
// each, leases of 0.5 x 3.2 = 1.6 s alternating as in the first case (a [0, 1.6], b [1.6, 3.2],
// ..., b [17.6, 19.2]): six leases each, 0.4 steps left each. a's seventh lease ends with its
// completion at 19.6. b, alone, is owed its last 0.4 steps (rounded to 0 steps the LP owed it
// nothing and the run stalled): X = 1, done at 20.
TEST(ExactRounds, AJobWithPartOfAStepLeftIsOwedThatStep) {
  SimOptions options = one_gpu_exact();
  options.scheduler.policy = "min_total_duration_perf";
  options.scheduler.lease_s = 3.2;
  JobSpec a = job("a", 0, 1, 10), b = job("b", 0, 1, 10);
  a.steps = b.steps = 10;
  const RunResult r = simulate(options, {a, b});
  EXPECT_NEAR(r.jobs[0].jct, 19.6, 1e-6);
  EXPECT_NEAR(r.jobs[1].jct, 20.0, 1e-6);
  EXPECT_EQ(r.jobs[0].preemptions, 6);
  EXPECT_EQ(r.jobs[1].preemptions, 6);
}

// One 1-GPU K80 node (first in the cluster's order) and `v100_nodes` 1-GPU V100 nodes, speeds
// from a throughput table in Gavel's format (steps/s per type and scale factor).
RunResult run_on_k80_and_v100(SimOptions options, int v100_nodes, const char* table,
                              const std::vector<JobSpec>& jobs) {
  NodeGroupSpec k80;
  k80.name = "k80";
  k80.nodes = 1;
  k80.gpus_per_node = 1;
  k80.gpu_type = "k80";
  NodeGroupSpec v100 = k80;
  v100.name = "v100";
  v100.nodes = v100_nodes;
  v100.gpu_type = "v100";
  options.cluster.groups = {k80, v100};
  std::istringstream json(table);
  TableModelOptions table_options;
  table_options.reference_type = "v100";
  const auto model = make_table_throughput_model(
      std::make_shared<const ThroughputTable>(parse_throughput_table(json, "t.json")),
      table_options);
  options.throughput = model.get();
  return simulate(options, jobs);
}

// One K80 and one V100. Steps/s: B runs 2 on a V100 and cannot run on a K80; A runs 10 and 5.
RunResult run_k80_and_v100(SimOptions options, const std::vector<JobSpec>& jobs) {
  return run_on_k80_and_v100(options, 1, R"json({
    "v100": {"('A', 1)": {"null": 10.0}, "('B', 1)": {"null": 2.0}},
    "k80":  {"('A', 1)": {"null": 5.0},  "('B', 1)": {"null": 0.0}}})json",
                             jobs);
}

// Two B jobs (40 steps: 20 s on the V100 each) with the K80 idle all along: whatever the
// policy's allocation says of the K80 (isolated gives each job half of it), neither lands there,
// and the V100 does the 40 s of work without a gap: the last one is done at 40.
// The same with the fill on: the K80 left over is no B job's to fill either.
TEST(ExactRounds, AJobThatCannotRunOnATypeNeverLandsThere) {
  for (const char* fill : {"none", "idle"})
    for (const char* policy : {"max_min_fairness", "max_min_fairness_perf", "isolated", "fifo_perf",
                               "finish_time_fairness_perf"}) {
      SCOPED_TRACE(std::string(policy) + ", exact_fill = " + fill);
      SimOptions options = one_gpu_exact();
      options.scheduler.policy = policy;
      options.scheduler.exact_fill = fill;
      bool on_k80 = false;
      options.observer = [&](const AllocationContext& context) {
        for (std::uint32_t holder : context.holders())
          on_k80 = on_k80 || context.type_held(holder) == 0;
      };
      const RunResult r =
          run_k80_and_v100(options, {stepped("b0", 0, "B", 40), stepped("b1", 0, "B", 40)});
      EXPECT_NEAR(std::max(r.jobs[0].jct, r.jobs[1].jct), 40.0, 1e-6);
      EXPECT_FALSE(on_k80);
    }
}

// fifo_perf on the two types: x (A, 125 steps) at 0 takes the V100 (X = 1, its fastest); y (A,
// 100 steps) arrives at 1 and gets the K80 (the V100 is x's): it starts at once, 100 / 5 = 20 s
// (Gavel's rounds would hold it until the round's end). x is done at 12.5; the allocation solved
// then moves y to the V100, which it reaches at once (costs 0): it has run 11.5 s x 5 = 57.5
// steps, and runs its last 42.5 at 10/s: done at 12.5 + 4.25 = 16.75, a JCT of 15.75.
TEST(ExactRounds, FreedGpusAndArrivalsDoNotWaitForARound) {
  SimOptions options = one_gpu_exact();
  options.scheduler.policy = "fifo_perf";
  const RunResult r =
      run_k80_and_v100(options, {stepped("x", 0, "A", 125), stepped("y", 1, "A", 100)});
  EXPECT_NEAR(r.jobs[0].jct, 12.5, 1e-6);
  EXPECT_NEAR(r.jobs[1].jct, 15.75, 1e-6);
}

// exact_fill: GPUs left over by the allocation go to waiting jobs without a share, which give
// them up when a share-holder needs them. fifo_perf's allocation is exact arithmetic: jobs in
// arrival order each take X = 1 on their fastest type with room, and the first that fits
// nowhere stops the walk (no job jumps it).
SimOptions fifo_fill(const char* fill, double checkpoint_s, double restore_s) {
  SimOptions options = one_gpu_exact();
  options.scheduler.policy = "fifo_perf";
  options.scheduler.exact_fill = fill;
  options.scheduler.checkpoint_s = checkpoint_s;
  options.scheduler.restore_s = restore_s;
  return options;
}

// Two 1-GPU nodes of one type; a (1 GPU, 10 s), w (2 GPUs, 10 s) and c (1 GPU, 30 s) arrive at
// 0 in that order. fifo_perf: a X = 1, w fits in no room (1 GPU left) and stops the walk: c has
// no share, and one GPU no job has a share of is left over.
//  - none: that GPU idles until a is done at 10; then w (X = 1) runs [10, 20], c [20, 50].
//  - idle, costs 0: c fills it from 0 (w, ranked first by arrival, does not fit). At 10 the
//    allocation is w X = 1, c none; the filler's GPU counts as room, so w (2 GPUs) is picked
//    and c, not kept, is stopped (a preemption) and frees it at once: w [10, 20]. c has run 10
//    s; at 20 it has X = 1 and runs its last 20 s: done at 40.
//  - idle, checkpoint_s 1, restore_s 2: c fills [0, 10] (a first start: no restore) and, stopped
//    at 10, saves until 11 on its GPU, so w (picked, 1 GPU free) starts at 11 when c's GPU
//    frees: [11, 21] (its first start). c restores [21, 23] and runs 20 s: done at 43.
//    Without the fill no job is ever stopped: 10, 20, 50 as with costs 0.
TEST(ExactFill, ALeftoverGpuGoesToAJobWithoutAShareUntilAShareHolderNeedsIt) {
  const std::vector<JobSpec> jobs = {job("a", 0, 1, 10), job("w", 0, 2, 10), job("c", 0, 1, 30)};
  SimOptions options = fifo_fill("none", 0, 0);
  options.cluster = testing::small_cluster(2, 1).cluster;
  for (const double checkpoint : {0.0, 1.0}) {
    options.scheduler.checkpoint_s = checkpoint;
    options.scheduler.restore_s = 2 * checkpoint;
    const RunResult r = simulate(options, jobs);
    EXPECT_NEAR(r.jobs[0].jct, 10.0, 1e-6);
    EXPECT_NEAR(r.jobs[1].jct, 20.0, 1e-6);
    EXPECT_NEAR(r.jobs[2].jct, 50.0, 1e-6);
    EXPECT_EQ(r.jobs[2].preemptions, 0);
  }
  options.scheduler.exact_fill = "idle";
  options.scheduler.checkpoint_s = options.scheduler.restore_s = 0;
  RunResult r = simulate(options, jobs);
  EXPECT_NEAR(r.jobs[0].jct, 10.0, 1e-6);
  EXPECT_NEAR(r.jobs[1].jct, 20.0, 1e-6);
  EXPECT_NEAR(r.jobs[2].jct, 40.0, 1e-6);
  EXPECT_EQ(r.jobs[1].preemptions, 0);
  EXPECT_EQ(r.jobs[2].preemptions, 1);  // the filler's yield at 10
  options.scheduler.checkpoint_s = 1;
  options.scheduler.restore_s = 2;
  r = simulate(options, jobs);
  EXPECT_NEAR(r.jobs[0].jct, 10.0, 1e-6);
  EXPECT_NEAR(r.jobs[1].jct, 21.0, 1e-6);
  EXPECT_NEAR(r.jobs[2].jct, 43.0, 1e-6);
  EXPECT_EQ(r.jobs[1].preemptions, 0);
  EXPECT_EQ(r.jobs[2].preemptions, 1);
}

// One K80 and two V100s. Model A, steps/s: 1 GPU 10 on a V100, 5 on a K80; 2 GPUs 20 and 10.
RunResult run_k80_and_two_v100(SimOptions options, const std::vector<JobSpec>& jobs) {
  return run_on_k80_and_v100(options, 2, R"json({
    "v100": {"('A', 1)": {"null": 10.0}, "('A', 2)": {"null": 20.0}},
    "k80":  {"('A', 1)": {"null": 5.0},  "('A', 2)": {"null": 10.0}}})json",
                             jobs);
}

// a (100 steps), w (2 GPUs, 200 steps) and c (150 steps), all model A, arrive at 0 in that
// order. fifo_perf at 0: a X = 1 on a V100 (its fastest); w fits in no type (1 GPU of each
// left) and stops the walk; c has no share.
//  - none: a runs [0, 10]; the other V100 and the K80 idle. At 10 (a done): w X = 1 on the
//    V100s, c X = 1 on the K80: w [10, 20], c 5/s from 10. At 20 (w done) c's share moves to a
//    V100: stopped after 50 steps, 100 left at 10/s: done at 30. With checkpoint_s 1,
//    restore_s 2: c saves [20, 21], restores [21, 23], runs [23, 33].
//  - idle, costs 0: c fills from 0, on the V100 rather than the K80 (the faster type first;
//    w, ranked before it by arrival, fits nowhere). At 10, c has 50 steps left; w and c (on
//    the K80) get shares, the filler's V100 counts as room: w is picked for both V100s, c for
//    the K80: c yields (stopped) and moves there at once: 50 steps at 5/s, done at 20, as w.
//  - idle, checkpoint_s 1, restore_s 2: c, stopped at 10, saves [10, 11]; at 11 w (deficit 1,
//    ahead of c's 1 by arrival) starts [11, 21]; c restores [11, 13] on the K80 and runs 8 s
//    (40 steps) until 21, when w is done and c's share moves to a V100: c saves [21, 22],
//    restores [22, 24] and runs its last 10 steps in 1 s: done at 25.
// c's stops are lease changes: each time it moves to another type and starts there at the
// instant it gives its GPU up (or its save ends), never waiting, so none is a preemption (plan.h,
// Plan::Lease; before lease changes were counted apart, each was).
TEST(ExactFill, AFillerTakesItsFasterTypeAndYieldsToShareHoldersAcrossTypes) {
  JobSpec w = stepped("w", 0, "A", 200);
  w.num_gpus = 2;
  const std::vector<JobSpec> jobs = {stepped("a", 0, "A", 100), w, stepped("c", 0, "A", 150)};
  struct Case {
    const char* fill;
    double checkpoint_s, restore_s, w_jct, c_jct;
    int c_lease_changes;
  };
  for (const Case& k : {Case{"none", 0, 0, 20, 30, 1}, Case{"none", 1, 2, 20, 33, 1},
                        Case{"idle", 0, 0, 20, 20, 1}, Case{"idle", 1, 2, 21, 25, 2}}) {
    SCOPED_TRACE(std::string(k.fill) + ", checkpoint_s " + std::to_string(k.checkpoint_s));
    const RunResult r = run_k80_and_two_v100(fifo_fill(k.fill, k.checkpoint_s, k.restore_s), jobs);
    EXPECT_NEAR(r.jobs[0].jct, 10.0, 1e-6);
    EXPECT_NEAR(r.jobs[1].jct, k.w_jct, 1e-6);
    EXPECT_NEAR(r.jobs[2].jct, k.c_jct, 1e-6);
    EXPECT_EQ(r.jobs[1].preemptions, 0);
    EXPECT_EQ(r.jobs[2].lease_changes, k.c_lease_changes);
    EXPECT_EQ(r.jobs[2].preemptions, 0);
  }
}

}  // namespace
}  // namespace clustersim
