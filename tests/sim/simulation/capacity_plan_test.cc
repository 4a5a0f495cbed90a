// Capacity changes are plans (plan.h, Plan::CapacityAction): a node's jobs fail and the node goes
// down in one plan; a plan whose capacity change cannot be made is refused whole (the jobs'
// changes beside it are not applied either) with its reason; GPUs held outside jobs come from
// and go back to the ledger. (Host's capacity verbs, one-change plans, are exercised by
// simulation_test.cc's DrainOneNode and by every run with failures or serving.)
#include <gtest/gtest.h>

#include <string>

#include "clustersim/simulation.h"
#include "test_util.h"

namespace clustersim {
namespace capacity_plan_test {  // named: the test files of this binary build as one unit

using testing::job;

TEST(CapacityPlan, ANodesJobsFailAndItGoesDownInOnePlanOrTheWholePlanIsRefused) {
  // Two nodes of 4 GPUs; a (4 GPUs) and b (2 GPUs) start at 0; c arrives at 10.
  Simulation simulation(testing::small_cluster(2, 4),
                        {job("a", 0, 4, 100), job("b", 0, 2, 100), job("c", 10, 1, 10)});
  simulation.set_decider(nullptr);
  ASSERT_TRUE(simulation.step());
  const View& view = simulation.view();
  Plan plan;
  plan.set(0);
  plan.add_grant({0, 4});
  plan.set(1);
  plan.add_grant({1, 2});
  simulation.apply(plan);
  ASSERT_TRUE(simulation.step());
  ASSERT_EQ(view.now(), 10.0);

  const auto refused = [&](const Plan& bad, const std::string& reason) {
    try {
      simulation.apply(bad);
      ADD_FAILURE() << "applied a plan that should be refused (" << reason << ")";
    } catch (const PlanError& error) {
      EXPECT_NE(std::string(error.what()).find(reason), std::string::npos) << error.what();
    }
    // Nothing changed: both jobs still run, both nodes are up, 2 GPUs free.
    EXPECT_EQ(view.holders().size(), 2u);
    EXPECT_FALSE(view.node_offline(0));
    EXPECT_FALSE(view.node_offline(1));
    EXPECT_EQ(view.cluster().free_gpus(), 2);
  };
  // Node 1 goes down while b still runs there: refused, and a's failure beside it not applied.
  plan.clear();
  plan.fail(0);
  plan.node_down(1);
  refused(plan, "node_down: node 1 still hosts jobs");
  // Node 0 goes down with a failed in the same plan, then 1 GPU of it is held: a down node has
  // none free.
  plan.clear();
  plan.fail(0);
  plan.node_down(0);
  plan.hold_gpus(0, 1);
  refused(plan, "hold_gpus: node 0 has not 1 free GPUs");
  plan.clear();
  plan.node_up(1);
  refused(plan, "node_up: node 1 is not down");
  plan.clear();
  plan.hold_gpus(1, 3);  // 2 free
  refused(plan, "hold_gpus: node 1 has not 3 free GPUs");
  plan.clear();
  plan.release_gpus(1, 1);
  refused(plan, "release_gpus: node 1 holds fewer than 1 GPUs outside jobs");
  plan.clear();
  plan.node_down(5);
  refused(plan, "node_down: no node 5");

  // The valid plan: a fails (it waits again), node 0 goes down.
  plan.clear();
  plan.fail(0);
  plan.node_down(0);
  simulation.apply(plan);
  EXPECT_TRUE(view.node_offline(0));
  EXPECT_EQ(view.holders().size(), 1u);
  EXPECT_EQ(view.cluster().free_gpus(), 2);  // node 1's two; node 0's are the outage's

  // Hold node 1's 2 free GPUs outside jobs, give one back; c then starts on it.
  plan.clear();
  plan.hold_gpus(1, 2);
  plan.release_gpus(1, 1);
  simulation.apply(plan);
  EXPECT_EQ(view.cluster().free_gpus(), 1);
  plan.clear();
  plan.set(2);
  plan.add_grant({1, 1});
  simulation.apply(plan);
  // At 20 (c done): node 0 back and the held GPU given back in one plan; a starts again.
  while (simulation.step()) {
    if (view.now() == 20.0) {  // c finished at 20
      plan.clear();
      plan.node_up(0);
      plan.release_gpus(1, 1);
      simulation.apply(plan);
      EXPECT_FALSE(view.node_offline(0));
      plan.clear();
      plan.set(0);
      plan.add_grant({0, 4});
      simulation.apply(plan);
    }
  }
  const RunResult& result = simulation.result();
  EXPECT_EQ(result.jobs[0].failures, 1);
  EXPECT_EQ(result.jobs[0].finish_time, 120.0);  // restarted from scratch at 20 (no save)
  EXPECT_EQ(result.jobs[1].finish_time, 100.0);
  EXPECT_EQ(result.jobs[2].start_time, 10.0);
  EXPECT_EQ(result.jobs[2].finish_time, 20.0);
}

}  // namespace capacity_plan_test
}  // namespace clustersim
