// The scheduling core: rounds admit per GPU type, plans are checked, windows measure steady state.
#include <gtest/gtest.h>

#include "clustersim/allocation_mechanism.h"
#include "clustersim/config.h"
#include "clustersim/generator.h"
#include "clustersim/policy.h"
#include "clustersim/simulator.h"
#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;

// Two GPU types: one 4-GPU node of "a", one 4-GPU node of "b".
SimOptions two_types() {
  SimOptions options;
  NodeGroupSpec a, b;
  a.name = "a";
  a.nodes = 1;
  a.gpus_per_node = 4;
  a.gpu_type = "a";
  b = a;
  b.name = "b";
  b.gpu_type = "b";
  options.cluster.groups = {a, b};
  options.sample_interval_s = 0;
  options.check_invariants = true;
  options.scheduler.lease_s = 60;
  return options;
}

// A long job alone on type "a", while jobs that need type "b" queue for it: no round may preempt
// the "a" job, since the waiting jobs could not use its GPUs. (The old round admitted against the
// cluster's total GPU count and preempted it at every lease.)
TEST(Rounds, AJobAloneOnItsTypeIsNeverPreemptedForJobsOfAnotherType) {
  for (const char* policy : {"las", "srtf", "tiresias", "drf"}) {
    SCOPED_TRACE(policy);
    SimOptions options = two_types();
    options.scheduler.policy = policy;
    options.scheduler.checkpoint_s = 5;
    options.scheduler.restore_s = 5;
    std::vector<JobSpec> jobs;
    // (Strings copied, not assigned from literals: GCC 12 warns falsely on the latter here.)
    const std::string type_a = "a", type_b = "b";
    JobSpec alone = job("alone", 0, 4, 5000);
    alone.gpu_type = type_a;
    jobs.push_back(alone);
    for (int i = 0; i < 12; ++i) {
      JobSpec other = job(testing::numbered("b", static_cast<std::size_t>(i)), 10 + i, 2, 600);
      other.gpu_type = type_b;
      jobs.push_back(other);
    }
    const RunResult result = simulate(options, jobs);
    EXPECT_EQ(result.jobs[0].preemptions, 0);
    EXPECT_DOUBLE_EQ(result.jobs[0].jct, 5000);
    EXPECT_GT(result.metrics.rounds, 10u);  // rounds were held, and admitted per type
  }
}

// An untyped waiting job that fits the idle GPUs of one type displaces no one on the other.
TEST(Rounds, AnUntypedJobGoesWhereGpusAreIdle) {
  SimOptions options = two_types();
  options.scheduler.policy = "las";
  std::vector<JobSpec> jobs = {job("a-long", 0, 4, 5000), job("new", 100, 2, 100)};
  jobs[0].gpu_type = "a";
  const RunResult result = simulate(options, jobs);
  EXPECT_EQ(result.jobs[0].preemptions, 0);
  EXPECT_DOUBLE_EQ(result.jobs[1].start_time, 100);
  EXPECT_DOUBLE_EQ(result.jobs[1].jct, 100);
}

// With a window, metrics cover only the window's jobs and the run stops when they are done.
TEST(Window, MeasuresOnlyTheWindowAndStopsWhenItDrains) {
  SimOptions options = testing::small_cluster(1, 1);
  // One GPU, FIFO: job i runs [10 i, 10 i + 10) exactly when jobs arrive every 10 s.
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 10; ++i)
    jobs.push_back(
        job(testing::numbered("j", static_cast<std::size_t>(i)), 10.0 * i, 1, i == 5 ? 25 : 10));
  options.window = SimOptions::Window{3, 5};
  const RunResult result = simulate(options, jobs);
  // Jobs 3, 4 run 30..40, 40..50; job 5 runs 50..75 (25 s).
  EXPECT_EQ(result.metrics.jobs, 3u);
  EXPECT_EQ(result.metrics.window_jobs, 3u);
  EXPECT_DOUBLE_EQ(result.metrics.jct_mean, (10.0 + 10.0 + 25.0) / 3);
  EXPECT_DOUBLE_EQ(result.metrics.makespan, 75.0 - 30.0);
  EXPECT_DOUBLE_EQ(result.metrics.gpu_util, 1.0);  // the GPU was busy all the window long
  // The run stopped at 75: job 6 (arrived at 60) never finished.
  EXPECT_LT(result.jobs[6].finish_time, 0.0);
  EXPECT_FALSE(result.window_outlived_arrivals);
  // A window that drains only after the last arrival says so.
  options.window = SimOptions::Window{8, 9};
  EXPECT_TRUE(simulate(options, jobs).window_outlived_arrivals);
  options.window = SimOptions::Window{9, 10};
  EXPECT_THROW(simulate(options, jobs), std::invalid_argument);
}

// A generated workload's window is run on as many jobs as it takes to keep arrivals going until
// it drains: the metrics equal those of a run on far more jobs.
TEST(Window, GeneratedWorkloadsAreExtendedUntilTheWindowDrains) {
  // 64 GPUs at 2 jobs/hour: about half loaded (the mean job is ~16.8 GPU-hours).
  const std::string text = R"([cluster]
nodes = 8
gpus_per_node = 8
[workload]
generator = "synergy"
jobs_per_hour = 2
window = [20, 39]
jobs = 41
)";
  const RunConfig config = parse_run_config(text, "w.toml", "");
  const ConfigRun run =
      simulate_config(config, std::make_shared<const Workload>(load_workload(config)));
  EXPECT_GT(run.workload->jobs.size(), 41u);  // the first try ran out of arrivals
  EXPECT_FALSE(run.result.window_outlived_arrivals);
  RunConfig longer = parse_run_config(text, "w.toml", "", {"workload.jobs=5000"});
  const RunResult reference = simulate(longer.sim, load_workload(longer).jobs);
  EXPECT_EQ(run.result.metrics.jct_mean, reference.metrics.jct_mean);
  EXPECT_EQ(run.result.metrics.jct_p99, reference.metrics.jct_p99);
  EXPECT_EQ(run.result.metrics.gpu_util, reference.metrics.gpu_util);
}

// A plan that over-allocates a node is refused by the ledger: the engine checks, not the caller.
class OverAllocating final : public AllocationMechanism {
 public:
  bool start(std::uint32_t job, AllocationContext& context, Plan& plan) override {
    plan.set(job);
    Grant grant{0, context.jobs()[job].gpus, 0, 0, 0};
    grant.cpus = context.cluster().node(0).cpus + 1;  // more cores than the node has
    plan.add_grant(grant);
    return true;
  }
};

TEST(Plans, AnOverAllocatingPlanIsRefusedByTheLedger) {
  SimOptions options = testing::small_cluster(1, 4);
  options.cluster.groups[0].cpus_per_node = 8;
  options.make_allocation = [](const SchedulerOptions&) {
    return std::unique_ptr<AllocationMechanism>(new OverAllocating);
  };
  EXPECT_THROW(simulate(options, {job("a", 0, 1, 10)}), std::logic_error);
}

// A user's own mechanism plugs in through SimOptions::make_allocation.
class EveryoneTwoCores final : public AllocationMechanism {
 public:
  bool start(std::uint32_t job, AllocationContext& context, Plan& plan) override {
    PlacementRequest request = context.request_of(job);
    request.cpus_per_gpu = 2;
    std::vector<NodeShare> shares;
    for (int type : context.types_to_try(job)) {
      request.gpu_type = type;
      if (!context.place(request, shares)) continue;
      plan.set(job);
      for (const NodeShare& share : shares)
        plan.add_grant(context.cluster().grant_for(share.node, request, share.gpus));
      return true;
    }
    return false;
  }
};

TEST(Plans, ACustomMechanismDecidesWhatJobsGet) {
  SimOptions options = testing::small_cluster(1, 4);
  options.cluster.groups[0].cpus_per_node = 8;
  options.make_allocation = [](const SchedulerOptions&) {
    return std::unique_ptr<AllocationMechanism>(new EveryoneTwoCores);
  };
  double cpus_seen = -1;
  options.observer = [&](const AllocationContext& context) {
    for (std::uint32_t holder : context.holders()) {
      cpus_seen = 0;
      for (const Grant& grant : context.grants_of(holder)) cpus_seen += grant.cpus;
    }
  };
  const RunResult result = simulate(options, {job("a", 0, 3, 100)});
  EXPECT_DOUBLE_EQ(cpus_seen, 6);
  EXPECT_DOUBLE_EQ(result.metrics.cpu_util, 6.0 / 8.0);
}

}  // namespace
}  // namespace clustersim

namespace clustersim {
namespace {

// With a planning period, decisions wait for its boundaries, as in round-based schedulers
// (Synergy's simulator plans every 300 s): a job arriving at 10 starts at 300; one arriving at
// 350 while the GPU is busy until 800 starts at the first boundary after 800, 900.
TEST(Plans, APlanningPeriodDelaysDecisionsToItsBoundaries) {
  SimOptions options = testing::small_cluster(1, 1);
  options.scheduler.plan_interval_s = 300;
  const RunResult result =
      simulate(options, {testing::job("a", 10, 1, 500), testing::job("b", 350, 1, 100)});
  EXPECT_DOUBLE_EQ(result.jobs[0].start_time, 300);
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 800);
  EXPECT_DOUBLE_EQ(result.jobs[1].start_time, 900);
  EXPECT_DOUBLE_EQ(result.jobs[1].jct, 650);
  options.scheduler.plan_interval_s = 0;  // default: at once
  EXPECT_DOUBLE_EQ(simulate(options, {testing::job("a", 10, 1, 500)}).jobs[0].start_time, 10);
}

}  // namespace
}  // namespace clustersim
