// Migration and defragmentation ([mechanisms] migration): a waiting job that fits once another
// moves, the cost of the move, and the choice of the fewest, cheapest moves.
#include <gtest/gtest.h>

#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;

// Two nodes of 2 GPUs, jobs kept on the fewest nodes (strict locality). A, B on node 0 and C, D
// on node 1 (consolidated); B and D end at 10, leaving one free GPU on each node. E (2 GPUs)
// arrives at 20: it fits only once A or C moves next to the other.
SimOptions two_fragmented_nodes(MechanismOptions::Migration migration) {
  SimOptions options = testing::small_cluster(2, 2);
  options.scheduler.strict_locality = true;
  options.mechanisms.migration = migration;
  options.mechanisms.migration_cost = OverheadCost{OverheadCost::Model::kConstant, 4, 1, {}};
  return options;
}

std::vector<JobSpec> fragmenting_jobs() {
  return {job("a", 0, 1, 100), job("b", 0, 1, 10), job("c", 0, 1, 100), job("d", 0, 1, 10),
          job("e", 20, 2, 50)};
}

TEST(Migration, WithoutItTheWaitingJobWaitsForAFreeNode) {
  const RunResult result =
      simulate(two_fragmented_nodes(MechanismOptions::Migration::kOff), fragmenting_jobs());
  EXPECT_DOUBLE_EQ(result.jobs[4].finish_time, 100 + 50);
  EXPECT_EQ(result.metrics.migrations, 0u);
}

TEST(Migration, OnDemandMovesOneJobAndChargesItsCost) {
  const RunResult result =
      simulate(two_fragmented_nodes(MechanismOptions::Migration::kOnDemand), fragmenting_jobs());
  EXPECT_DOUBLE_EQ(result.jobs[4].finish_time, 20 + 50);  // placed the moment it arrives
  EXPECT_EQ(result.metrics.migrations, 1u);
  // One of A and C moved: it paused 4 s on its new GPU.
  const JobRecord& a = result.jobs[0];
  const JobRecord& c = result.jobs[2];
  EXPECT_EQ(a.migrations + c.migrations, 1);
  EXPECT_DOUBLE_EQ(a.finish_time + c.finish_time, 100 + 104);
  EXPECT_DOUBLE_EQ(a.migration_gpu_seconds + c.migration_gpu_seconds, 4);
  EXPECT_DOUBLE_EQ(result.metrics.overhead_migration_gpu_seconds, 4);
  EXPECT_EQ(a.preemptions + c.preemptions, 0);  // a move is not a preemption
  EXPECT_DOUBLE_EQ(result.metrics.gpu_seconds, 100 + 10 + 100 + 10 + 2 * 50 + 4);
}

// The cheaper move is chosen: A's checkpoint is 20 GB, C's 1 GB, moved at 1 GB/s.
TEST(Migration, ChoosesTheCheapestMove) {
  SimOptions options = two_fragmented_nodes(MechanismOptions::Migration::kOnDemand);
  options.mechanisms.migration_cost = OverheadCost{OverheadCost::Model::kSize, 0, 1, {}};
  options.mechanisms.checkpoint_gb = {{"big", 20}, {"small", 1}};
  auto jobs = fragmenting_jobs();
  jobs[0].model = "big";
  jobs[2].model = "small";
  const RunResult result = simulate(options, jobs);
  EXPECT_EQ(result.jobs[0].migrations, 0);
  EXPECT_EQ(result.jobs[2].migrations, 1);
  EXPECT_DOUBLE_EQ(result.jobs[2].finish_time, 101);
  EXPECT_DOUBLE_EQ(result.jobs[4].finish_time, 70);
}

// Three nodes of 4 GPUs. Three small 1-GPU jobs fill node 0 but one GPU; Y and Z (2 GPUs, 40 GB
// checkpoints) hold half of nodes 1 and 2 once their neighbours (F1, F2) end at 5. W (4 GPUs)
// arrives at 10. Emptying node 0 takes three cheap moves (1 GB each); moving Y or Z takes one
// dear one (40 s at 1 GB/s): the fewest moves win, then the cheapest.
TEST(Migration, ChoosesTheFewestMovesThenTheCheapest) {
  SimOptions options = testing::small_cluster(3, 4);
  options.scheduler.strict_locality = true;
  options.mechanisms.migration = MechanismOptions::Migration::kOnDemand;
  options.mechanisms.migration_cost = OverheadCost{OverheadCost::Model::kSize, 0, 1, {}};
  options.mechanisms.checkpoint_gb = {{"big", 40}, {"small", 1}};
  std::vector<JobSpec> jobs = {job("s1", 0, 1, 100), job("s2", 0, 1, 100), job("s3", 0, 1, 100),
                               job("y", 0, 2, 100),  job("f1", 0, 2, 5),   job("z", 0, 2, 100),
                               job("f2", 0, 2, 5),   job("w", 10, 4, 10)};
  for (int i : {0, 1, 2}) jobs[i].model = "small";
  jobs[3].model = jobs[5].model = "big";
  const RunResult result = simulate(options, jobs);
  EXPECT_EQ(result.metrics.migrations, 1u);
  EXPECT_EQ(result.jobs[3].migrations + result.jobs[5].migrations, 1);
  EXPECT_DOUBLE_EQ(result.metrics.overhead_migration_gpu_seconds, 2 * 40);
  EXPECT_DOUBLE_EQ(result.jobs[3].finish_time + result.jobs[5].finish_time, 100 + 140);
  EXPECT_DOUBLE_EQ(result.jobs[7].finish_time, 20);
}

// Periodic defragmentation compacts without a waiting job: at the first period, the job alone
// on node 1 moves next to the one on node 0, leaving node 1 whole.
TEST(Migration, PeriodicCompactsLoneJobs) {
  SimOptions options = testing::small_cluster(2, 4);
  options.scheduler.placement = "spread";
  options.mechanisms.migration = MechanismOptions::Migration::kPeriodic;
  options.mechanisms.defrag_period_s = 50;
  options.mechanisms.migration_cost = OverheadCost{OverheadCost::Model::kConstant, 2, 1, {}};
  options.sample_interval_s = 25;
  const RunResult result = simulate(options, {job("a", 0, 1, 200), job("b", 0, 1, 200)});
  EXPECT_EQ(result.metrics.migrations, 1u);
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time + result.jobs[1].finish_time, 200 + 202);
  EXPECT_EQ(result.jobs[0].migrations + result.jobs[1].migrations, 1);
}

}  // namespace
}  // namespace clustersim
