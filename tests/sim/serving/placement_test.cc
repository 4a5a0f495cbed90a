// Task placement on hand-computed states: the execution model's arithmetic, then each policy's
// choice.
#include <gtest/gtest.h>

#include <stdexcept>

#include "clustersim/task_placement.h"
#include "serving_test_util.h"

namespace clustersim {
namespace {

using testing::ServingState;

TEST(ServingMath, TransferAndLoadTimes) {
  // 25 MB = 200 Mb over 10 Gb/s = 0.02 s, plus 50 us.
  EXPECT_DOUBLE_EQ(transfer_time_s(25.0, 10.0, 50.0, false), 0.02 + 50e-6);
  EXPECT_EQ(transfer_time_s(25.0, 10.0, 50.0, true), 0.0);  // same node: free
  EXPECT_DOUBLE_EQ(transfer_time_s(0.0, 10.0, 50.0, false), 50e-6);
  // 5.72 GB over 10.17 GB/s.
  EXPECT_DOUBLE_EQ(load_time_s(5.72, 10.17), 5.72 / 10.17);
  EXPECT_DOUBLE_EQ(load_time_s(2.0, 10.0), 0.2);
  EXPECT_EQ(load_time_s(0.0, 10.0), 0.0);
  EXPECT_THROW(transfer_time_s(1.0, 0.0, 0.0, false), std::invalid_argument);
  EXPECT_THROW(load_time_s(-1.0, 10.0), std::invalid_argument);
}

// Two nodes of 10 Gb/s and 50 us; g0 and g2 on node 0, g1 on node 1; model B resident on all.
struct ChainFixture {
  ServingState s;
  int b = 0;
  ParentOutput parent{0, 25.0};  // A ran on g0 and outputs 25 MB
  ReadyTask task;
  ChainFixture() {
    s.now = 10.0;
    s.add_nodes(2, 10.0, 50.0);
    s.add_gpu(0, 24.0, 10.0);
    s.add_gpu(1, 24.0, 10.0);
    s.add_gpu(0, 24.0, 10.0);
    b = s.add_model(2.0);
    for (int g = 0; g < 3; ++g) s.make_resident(g, b);
    task.model = b;
    task.compute_s = 0.5;
    task.parents = {&parent, 1};
  }
};

TEST(ServingMath, ChainCollocatedVersusSplitDiffersByTheTransferTime) {
  ChainFixture f;
  const ServingView view = f.s.view();
  const FinishEstimate here = estimate_finish(view, f.task, 0);
  const FinishEstimate there = estimate_finish(view, f.task, 1);
  const FinishEstimate same_node = estimate_finish(view, f.task, 2);
  EXPECT_DOUBLE_EQ(here.finish, 10.5);
  EXPECT_EQ(here.transfer_s, 0.0);
  EXPECT_DOUBLE_EQ(there.transfer_s, 0.02005);
  EXPECT_DOUBLE_EQ(there.finish, 10.52005);
  // The difference is the transfer time, up to the rounding of absolute times near 10 s.
  EXPECT_NEAR(there.finish - here.finish, transfer_time_s(25.0, 10.0, 50.0, false), 1e-14);
  EXPECT_DOUBLE_EQ(same_node.finish, 10.5);  // another GPU of the parent's node: no transfer
}

TEST(ServingMath, LoadOverlapsTheTransferAndFollowsTheQueue) {
  ChainFixture f;
  f.s.resident[1].clear();  // B must be loaded on g1: 2 GB at 10 GB/s = 0.2 s
  FinishEstimate e = estimate_finish(f.s.view(), f.task, 1);
  EXPECT_DOUBLE_EQ(e.load_s, 0.2);
  EXPECT_DOUBLE_EQ(e.finish, 10.0 + 0.2 + 0.5);  // the 0.02005 s transfer hides under the load
  f.s.gpus[1].free_at = 11.0;                    // busy for 1 s: the load starts at the head
  e = estimate_finish(f.s.view(), f.task, 1);
  EXPECT_DOUBLE_EQ(e.queue_wait_s, 1.0);
  EXPECT_DOUBLE_EQ(e.finish, 11.0 + 0.2 + 0.5);
}

TEST(ServingMath, FanInWaitsForItsSlowestParent) {
  ServingState s;
  s.now = 3.0;
  s.add_nodes(3, 10.0, 50.0);
  for (int n = 0; n < 3; ++n) s.add_gpu(n, 24.0, 10.0);
  const int m = s.add_model(0.0);  // a join without a model
  const ParentOutput parents[] = {{1, 5.0}, {2, 50.0}};
  ReadyTask join;
  join.model = m;
  join.compute_s = 0.25;
  join.parents = parents;
  const FinishEstimate e = estimate_finish(s.view(), join, 0);
  // 5 MB: 0.004 s + 50 us; 50 MB: 0.04 s + 50 us. The join starts after the slower one.
  EXPECT_DOUBLE_EQ(e.transfer_s, 0.04005);
  EXPECT_DOUBLE_EQ(e.finish, 3.0 + 0.04005 + 0.25);
  EXPECT_EQ(e.load_s, 0.0);
}

TEST(ServingMath, UpwardRanksAddTransfersAtTheMeanNic) {
  ServingState s;
  s.add_nodes(2, 10.0, 0.0);
  const int models[] = {0, 0};
  const double compute[] = {1.0, 2.0};
  const double output[] = {10.0, 1.0};
  const std::uint32_t parent_begin[] = {0, 0, 1};
  const std::uint32_t parents[] = {0};
  const QueryPlanInput chain{models, compute, output, parent_begin, parents};
  const std::vector<double> rank = upward_ranks(s.view(), chain);
  EXPECT_DOUBLE_EQ(rank[1], 2.0);
  EXPECT_DOUBLE_EQ(rank[0], 1.0 + 0.008 + 2.0);  // 10 MB over 10 Gb/s = 0.008 s
}

TEST(TaskPlacement, RoundRobinCyclesThroughGpus) {
  ChainFixture f;
  const auto policy = make_task_placement("round_robin");
  const ServingView view = f.s.view();
  EXPECT_EQ(policy->place(view, f.task), 0);
  EXPECT_EQ(policy->place(view, f.task), 1);
  EXPECT_EQ(policy->place(view, f.task), 2);
  EXPECT_EQ(policy->place(view, f.task), 0);
}

TEST(TaskPlacement, LeastLoadedTakesTheEarliestFreeThenFewestQueued) {
  ServingState s;
  s.now = 10.0;
  s.add_nodes(1, 10.0, 0.0);
  s.add_gpu(0, 24.0, 10.0, 12.0, 1);
  s.add_gpu(0, 24.0, 10.0, 11.0, 2);
  s.add_gpu(0, 24.0, 10.0, 11.0, 1);
  s.add_gpu(0, 24.0, 10.0, 13.0, 0);
  ReadyTask task;
  task.model = s.add_model(1.0);
  task.compute_s = 1.0;
  EXPECT_EQ(make_task_placement("least_loaded")->place(s.view(), task), 2);
  s.gpus[0].free_at = 5.0;  // idle since before now: head = now
  EXPECT_EQ(make_task_placement("least_loaded")->place(s.view(), task), 0);
}

TEST(TaskPlacement, ModelAffinityFollowsTheModelNotTheData) {
  ChainFixture f;  // the parent's output is on g0 (node 0)
  f.s.resident[0].clear();
  f.s.resident[2].clear();  // B only on g1 (node 1), which is also the busiest
  f.s.gpus[1].free_at = 20.0;
  const auto policy = make_task_placement("model_affinity");
  EXPECT_EQ(policy->place(f.s.view(), f.task), 1);
  f.s.resident[1].clear();  // resident nowhere: the least loaded GPU
  EXPECT_EQ(policy->place(f.s.view(), f.task), 0);
}

TEST(TaskPlacement, HeftTakesTheEarliestFinish) {
  ChainFixture f;
  const auto policy = make_task_placement("heft");
  f.s.gpus[0].free_at = 10.01;  // 10.51 on g0 beats 10.52005 on g1
  f.s.gpus[2].free_at = 10.02;  // and 10.52 on g2 (node 0: no transfer)
  EXPECT_EQ(policy->place(f.s.view(), f.task), 0);
  f.s.gpus[0].free_at = 10.03;  // 10.53 on g0, 10.52 on g2, 10.52005 on g1
  EXPECT_EQ(policy->place(f.s.view(), f.task), 2);
  f.s.gpus[2].free_at = 10.04;  // 10.54 on g2: the split placement on g1 wins
  EXPECT_EQ(policy->place(f.s.view(), f.task), 1);
}

TEST(TaskPlacement, CompassKeepsItsPlanUnlessTheGpuIsOverloaded) {
  ChainFixture f;
  const auto policy = make_task_placement("compass");
  f.task.planned_gpu = 1;
  f.s.gpus[1].free_at = 10.75;  // wait 0.75 = 1.5 x 0.5 s of compute: tolerable
  EXPECT_EQ(policy->place(f.s.view(), f.task), 1);
  f.s.gpus[1].free_at = 10.76;  // overloaded: the earliest start, now the parent's GPU g0
  EXPECT_EQ(policy->place(f.s.view(), f.task), 0);
  // A join is rescheduled like any task; with the study's rule it keeps its plan whatever the
  // wait.
  const ParentOutput two[] = {{0, 1.0}, {2, 1.0}};
  ReadyTask join = f.task;
  join.parents = two;
  EXPECT_NE(policy->place(f.s.view(), join), 1);
  CompassOptions study;
  study.keep_join_plans = true;
  EXPECT_EQ(make_task_placement("compass", study)->place(f.s.view(), join), 1);
  // Without a plan: the earliest now + wait + transfer + fetch (g0: 10 + 0 + 0 + 0).
  f.task.planned_gpu = -1;
  EXPECT_EQ(policy->place(f.s.view(), f.task), 0);
  // The fetch counts: B absent from node 0, g1 idle again. g0: 0.2 s load; g1: 0.02005 s.
  f.s.resident[0].clear();
  f.s.resident[2].clear();
  f.s.gpus[1].free_at = 0.0;
  EXPECT_EQ(policy->place(f.s.view(), f.task), 1);
}

// Compass's plan for a two-task chain opt -> nli (5.72 GB, 2.14 GB at 10 GB/s: 0.572 s and
// 0.214 s to load). g1 (node 1) holds both models; g0 (node 0) holds a 4 GB model.
struct PlanFixture {
  ServingState s;
  int opt = 0, nli = 0, other = 0;
  int models[2] = {0, 0};
  double compute[2] = {0.561, 0.027};
  double output[2] = {0.002, 0.001};
  std::uint32_t parent_begin[3] = {0, 0, 1};
  std::uint32_t parents[1] = {0};
  int planned[2] = {-1, -1};
  PlanFixture() {
    s.now = 100.0;
    s.add_nodes(2, 100.0, 2.0);
    s.add_gpu(0, 24.0, 10.0);
    s.add_gpu(1, 24.0, 10.0);
    opt = s.add_model(5.72);
    nli = s.add_model(2.14);
    other = s.add_model(4.0);
    s.make_resident(0, other);
    s.make_resident(1, opt);
    s.make_resident(1, nli);
    models[0] = opt;
    models[1] = nli;
  }
  QueryPlanInput query() const { return {models, compute, output, parent_begin, parents}; }
  void plan() { make_task_placement("compass")->plan_query(s.view(), query(), planned); }
};

TEST(TaskPlacement, CompassPlansWhereModelsAreAndCollocatesTheChain) {
  PlanFixture f;
  f.plan();
  EXPECT_EQ(f.planned[0], 1);  // both models resident on g1, idle: no fetch anywhere
  EXPECT_EQ(f.planned[1], 1);

  // g1 busy for 2 s: opt starts at 100.572 on g0 (after its load) rather than at 102 on g1,
  // and nli follows it on g0 (at 100.572 + 0.561 = 101.133, plus its 0.214 s load) rather
  // than waiting for g1 (102).
  f.s.gpus[1].free_at = 102.0;
  f.plan();
  EXPECT_EQ(f.planned[0], 0);
  EXPECT_EQ(f.planned[1], 0);

  // g1 busy for 1 s: opt still starts first on g0 (100.572 < 101).
  f.s.gpus[1].free_at = 101.0;
  f.plan();
  EXPECT_EQ(f.planned[0], 0);
  // On an 8 GB g0, opt does not fit beside the 4 GB model: the study doubles the fetch
  // (100 + 1.144 > 101), so opt goes to g1, and nli joins it there (101.561, no load).
  f.s.gpus[0].mem_gb = 8.0;
  f.plan();
  EXPECT_EQ(f.planned[0], 1);
  EXPECT_EQ(f.planned[1], 1);
}

TEST(TaskPlacement, CompassPlansAfterEarlierPlans) {
  // Two queries arrive at the same instant, before any of their tasks is placed (free_at does
  // not see the first plan): the second plans after the first's work on g1. The first query
  // holds g1 until 100.588 (opt then nli); the second's opt would start there only then, but
  // at 100.572 on g0 after a load, so it goes to g0. A fresh policy (no earlier plan) would put
  // it on g1 again.
  PlanFixture f;
  const auto policy = make_task_placement("compass");
  policy->plan_query(f.s.view(), f.query(), f.planned);
  EXPECT_EQ(f.planned[0], 1);
  policy->plan_query(f.s.view(), f.query(), f.planned);
  EXPECT_EQ(f.planned[0], 0);
  f.plan();
  EXPECT_EQ(f.planned[0], 1);
}

TEST(TaskPlacement, CompassPlanCountsItsOwnLoads) {
  PlanFixture f;
  // Both tasks run nli on an idle g0 that lacks it; g1 busy. The second task must not pay the
  // load again: g0 for both.
  f.models[0] = f.nli;
  f.s.gpus[1].free_at = 100.3;
  f.plan();
  EXPECT_EQ(f.planned[0], 0);  // 100.214 on g0 < 100.3 on g1
  // After its parent (100.775) on g0 with no second load, 2 us before it could start on g1.
  EXPECT_EQ(f.planned[1], 0);
}

TEST(TaskPlacement, RegistryKnowsEveryPolicyByName) {
  for (const std::string& name : task_placement_names())
    EXPECT_EQ(make_task_placement(name)->name(), name);
  EXPECT_THROW(make_task_placement("random"), std::invalid_argument);
  // The default plan_query plans nothing.
  PlanFixture f;
  int planned[2] = {7, 7};
  make_task_placement("heft")->plan_query(f.s.view(), f.query(), planned);
  EXPECT_EQ(planned[0], -1);
  EXPECT_EQ(planned[1], -1);
}

}  // namespace
}  // namespace clustersim
