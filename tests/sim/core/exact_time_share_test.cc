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

// One 1-GPU node of "k80" and one of "v100". Steps/s: B runs 2 on a V100 and cannot run on a
// K80; A runs 10 and 5.
RunResult run_k80_and_v100(SimOptions options, const std::vector<JobSpec>& jobs) {
  NodeGroupSpec k80;
  k80.name = "k80";
  k80.nodes = 1;
  k80.gpus_per_node = 1;
  k80.gpu_type = "k80";
  NodeGroupSpec v100 = k80;
  v100.name = "v100";
  v100.gpu_type = "v100";
  options.cluster.groups = {k80, v100};
  std::istringstream json(R"json({
    "v100": {"('A', 1)": {"null": 10.0}, "('B', 1)": {"null": 2.0}},
    "k80":  {"('A', 1)": {"null": 5.0},  "('B', 1)": {"null": 0.0}}})json");
  TableModelOptions table_options;
  table_options.reference_type = "v100";
  const auto model = make_table_throughput_model(
      std::make_shared<const ThroughputTable>(parse_throughput_table(json, "t.json")),
      table_options);
  options.throughput = model.get();
  return simulate(options, jobs);
}

JobSpec stepped(const std::string& id, Time submit, const std::string& model, double steps) {
  JobSpec spec = job(id, submit, 1, /*duration: any > 0, steps decide*/ 1.0);
  spec.model = model;
  spec.steps = steps;
  return spec;
}

// Two B jobs (40 steps: 20 s on the V100 each) with the K80 idle all along: whatever the
// policy's allocation says of the K80 (isolated gives each job half of it), neither lands there,
// and the V100 does the 40 s of work without a gap: the last one is done at 40.
TEST(ExactRounds, AJobThatCannotRunOnATypeNeverLandsThere) {
  for (const char* policy : {"max_min_fairness", "max_min_fairness_perf", "isolated", "fifo_perf",
                             "finish_time_fairness_perf"}) {
    SCOPED_TRACE(policy);
    SimOptions options = one_gpu_exact();
    options.scheduler.policy = policy;
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

}  // namespace
}  // namespace clustersim
