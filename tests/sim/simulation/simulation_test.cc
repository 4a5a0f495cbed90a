// The open core (simulation.h, decider.h, mechanism.h): a decider written here drives a
// simulation step by step and reproduces the built-in FIFO job by job; plans that cannot be
// applied are refused with their reason and change nothing; a mechanism written here joins the
// run from this file alone; a policy re-keys waiting jobs when a job finishes; windows stream
// their workload in; reset() replays a run.
#include "clustersim/simulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>

#include "clustersim/allocation_mechanism.h"
#include "clustersim/generator.h"
#include "clustersim/policy.h"
#include "order_decider.h"
#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;

// A Philly-shaped generated workload at full offered load on 16 nodes of 8 GPUs (4 racks).
SimOptions philly_cluster() {
  SimOptions options = testing::small_cluster(16, 8, 4);
  options.check_invariants = false;
  options.sample_interval_s = 600;
  options.scheduler.policy = "fifo";
  return options;
}

std::vector<JobSpec> philly_jobs(std::size_t count, int cluster_gpus, std::uint64_t seed) {
  GeneratorOptions generator;
  generator.shape = "philly";
  generator.jobs = count;
  generator.load = 1.0;
  generator.seed = seed;
  generator.cluster_gpus = cluster_gpus;
  return generate_workload(generator).jobs;
}

// FIFO in a few lines (order_decider.h): the waiting jobs in submit order (then workload order),
// each started where the configured allocation mechanism (placement and resources) puts it; a
// job that does not fit waits and later ones may start (backfill), as the built-in FIFO does.
TEST(Simulation, AStepByStepFifoMatchesTheBuiltInFifoJobByJob) {
  const SimOptions options = philly_cluster();
  const std::vector<JobSpec> jobs = philly_jobs(10000, options.cluster.total_gpus(), 5);
  const RunResult built_in = simulate(options, jobs);
  ASSERT_EQ(built_in.metrics.jobs, 10000u);
  ASSERT_GT(built_in.metrics.queue_mean, 0.0);  // jobs did wait: the order mattered

  Simulation simulation(options, std::span<const JobSpec>(jobs));
  simulation.set_decider(nullptr);  // this test decides
  auto allocation = make_allocation_mechanism(options.scheduler);
  allocation->bind(simulation.context());
  std::size_t decisions = 0;
  while (simulation.step()) {
    ++decisions;
    testing::start_in_order(simulation.view(), *allocation, simulation.context(),
                            testing::fifo_before,
                            [&](const Plan& plan) { simulation.apply(plan); });
  }
  const RunResult& stepped = simulation.result();
  EXPECT_GT(decisions, 10000u);
  testing::expect_same_records(built_in, stepped);
  EXPECT_EQ(stepped.metrics.events, built_in.metrics.events);
  EXPECT_EQ(stepped.metrics.jct_mean, built_in.metrics.jct_mean);
  EXPECT_EQ(stepped.metrics.frag_mean, built_in.metrics.frag_mean);
}

TEST(Simulation, AUserDeciderReplacesTheBuiltInOne) {
  SimOptions options = philly_cluster();
  options.check_invariants = true;
  const std::vector<JobSpec> jobs = philly_jobs(2000, options.cluster.total_gpus(), 9);
  const RunResult built_in = simulate(options, jobs);
  Simulation simulation(options, std::span<const JobSpec>(jobs));
  simulation.set_decider(std::make_unique<testing::OrderDecider>(simulation, testing::fifo_before));
  const RunResult mine = simulation.run();
  testing::expect_same_records(built_in, mine);
  EXPECT_EQ(mine.metrics.events, built_in.metrics.events);
}

TEST(Simulation, APlanThatCannotBeAppliedIsRefusedWithItsReasonAndChangesNothing) {
  SimOptions options = testing::small_cluster(2, 4);
  Simulation simulation(options, {job("a", 0, 2, 100), job("b", 0, 4, 100), job("c", 5, 1, 10)});
  simulation.set_decider(nullptr);
  ASSERT_TRUE(simulation.step());  // t = 0: a and b wait
  const View& view = simulation.view();
  ASSERT_EQ(view.now(), 0.0);
  ASSERT_EQ(view.waiting().size(), 2u);
  const auto refused = [&](const Plan& plan, const char* reason) {
    try {
      simulation.apply(plan);
      ADD_FAILURE() << "applied a plan that should be refused (" << reason << ")";
    } catch (const PlanError& error) {
      EXPECT_NE(std::string(error.what()).find(reason), std::string::npos) << error.what();
    }
    EXPECT_EQ(view.cluster().free_gpus(), 8);  // nothing changed
    EXPECT_EQ(view.holders().size(), 0u);
  };
  Plan plan;
  plan.set(0);
  plan.add_grant({0, 2});
  plan.set(1);
  plan.add_grant({0, 4});  // node 0 has 4 GPUs: 2 + 4 do not fit
  refused(plan, "job 'b' gets more of node 0 than is free");
  plan.clear();
  plan.set(0);
  plan.add_grant({0, 3});
  refused(plan, "job 'a' gets the wrong number of GPUs");
  plan.clear();
  plan.set(0);
  plan.add_grant({0, 2});
  plan.set(0);
  plan.add_grant({1, 2});
  refused(plan, "job 'a' is named twice");
  plan.clear();
  plan.set(0);  // no grants: a stop
  refused(plan, "job 'a' is stopped but not running");
  plan.clear();
  plan.set(2);  // c has not arrived
  plan.add_grant({1, 1});
  refused(plan, "job 'c' is changed while it neither waits nor runs");
  plan.clear();
  plan.set(0);
  plan.add_grant({7, 2});
  refused(plan, "job 'a' gets an empty grant or one on no node");

  // A plan that fits is applied; the run goes on.
  plan.clear();
  plan.set(0);
  plan.add_grant({0, 2});
  plan.set(1);
  plan.add_grant({1, 4});
  simulation.apply(plan);
  EXPECT_EQ(view.cluster().free_gpus(), 2);
  while (simulation.step()) {
    for (std::uint32_t waiting :
         std::vector<std::uint32_t>(view.waiting().begin(), view.waiting().end())) {
      Plan start;
      start.set(waiting);
      start.add_grant({0, 1});
      simulation.apply(start);
    }
  }
  const RunResult& result = simulation.result();
  EXPECT_EQ(result.jobs[0].finish_time, 100.0);
  EXPECT_EQ(result.jobs[1].finish_time, 100.0);
  EXPECT_EQ(result.jobs[2].start_time, 5.0);
  EXPECT_EQ(result.jobs[2].finish_time, 15.0);
}

// A node named twice in one change is refused both ways the check runs (plan_checks.cc):
// pairwise for a few grants, by marking nodes for a gang of more than 32; a refused check
// leaves no mark that refuses the next plan. A job that is not elastic cannot fail and keep
// grants (shrink on failure).
TEST(Simulation, ANodeNamedTwiceIsRefusedForFewGrantsAndForAGang) {
  SimOptions options = testing::small_cluster(40, 1);
  Simulation simulation(options, {job("pair", 0, 2, 100), job("gang", 0, 40, 100)});
  simulation.set_decider(nullptr);
  ASSERT_TRUE(simulation.step());
  for (auto [index, count] : {std::pair{0u, 2u}, {1u, 40u}}) {
    Plan plan;
    plan.set(index);
    for (std::uint32_t node = 0; node + 1 < count; ++node) plan.add_grant({node, 1});
    plan.add_grant({0, 1});  // node 0 again
    try {
      simulation.apply(plan);
      ADD_FAILURE() << "a node named twice was applied (" << count << " grants)";
    } catch (const PlanError& error) {
      EXPECT_NE(std::string(error.what()).find("gets one node twice"), std::string::npos)
          << error.what();
    }
  }
  Plan gang;
  gang.set(1);
  for (std::uint32_t node = 0; node < 40; ++node) gang.add_grant({node, 1});
  simulation.apply(gang);
  EXPECT_EQ(simulation.view().cluster().free_gpus(), 0);
  Plan shrink;
  shrink.fail(1);
  shrink.add_grant({0, 1});
  EXPECT_THROW(simulation.apply(shrink), PlanError);
  EXPECT_EQ(simulation.view().holders().size(), 1u);
}

// A mechanism written in this file: every `period` seconds node `node` is drained for `length`
// seconds (its jobs fail back to their last save and wait; the node is down), then comes back.
class DrainOneNode final : public Mechanism {
 public:
  DrainOneNode(std::uint32_t node, double first, double period, double length)
      : node_(node), first_(first), period_(period), length_(length) {}
  std::string_view name() const override { return "drain_one_node"; }
  void attach(Host& host) override {
    host_ = &host;
    drain_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
    back_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
  }
  void start() override { host_->schedule(first_, drain_, node_); }
  void on_timer(const Timer& timer) override {
    if (timer.kind == drain_) {
      Plan plan;
      for (std::uint32_t job : host_->view().holders_on(node_)) plan.fail(job);
      if (!plan.empty()) host_->apply(plan);
      host_->node_down(node_);
      host_->schedule(timer.time + length_, back_, node_);
      ++drains_;
    } else {
      host_->node_up(node_);
      host_->schedule(timer.time - length_ + period_, drain_, node_);
    }
  }
  bool endless() const override { return true; }  // drains never run out
  int drains() const { return drains_; }

 private:
  std::uint32_t node_;
  double first_, period_, length_;
  Host* host_ = nullptr;
  TimerKind drain_ = 0, back_ = 0;
  int drains_ = 0;
};

TEST(Simulation, AMechanismWrittenInATestJoinsTheRun) {
  // Two one-GPU nodes; a and b start at 0 on nodes 0 and 1. Node 0 is drained at 50 for 20 s:
  // a loses its 50 s (no save), waits while b holds node 1, restarts on node 0 when it is back
  // at 70, and finishes at 170.
  SimOptions options = testing::small_cluster(2, 1);
  std::vector<JobSpec> jobs = {job("a", 0, 1, 100), job("b", 0, 1, 100)};
  double held_by_jobs_during_drain = 0;
  options.observer = [&](const AllocationContext& context) {
    if (context.now() >= 50 && context.now() < 70)
      held_by_jobs_during_drain += static_cast<double>(context.holders_on(0).size());
  };
  Simulation simulation(options, jobs);
  auto drain = std::make_unique<DrainOneNode>(0, 50, 1000, 20);
  const DrainOneNode* mechanism = drain.get();
  simulation.add_mechanism(std::move(drain));
  const RunResult result = simulation.run();
  EXPECT_EQ(mechanism->drains(), 1);
  EXPECT_EQ(held_by_jobs_during_drain, 0.0);
  EXPECT_EQ(result.jobs[0].start_time, 0.0);
  EXPECT_EQ(result.jobs[0].finish_time, 170.0);
  EXPECT_EQ(result.jobs[0].failures, 1);
  EXPECT_EQ(result.jobs[0].lost_gpu_seconds, 50.0);
  EXPECT_EQ(result.jobs[0].queue_delay, 20.0);
  EXPECT_EQ(result.jobs[1].finish_time, 100.0);
  EXPECT_EQ(result.metrics.failures, 1u);
}

// An estimate-based policy: a job's key is the mean duration of its user's finished jobs
// (unknown: last), so when a job finishes, the waiting jobs of its user are re-keyed.
class UserMeanEstimate final : public SchedulingPolicy {
 public:
  bool preemptive() const override { return false; }
  bool rekeys_on_finish() const override { return true; }
  void compute_keys(std::span<const std::uint32_t> jobs, const PolicyContext& ctx,
                    std::span<PriorityKey> keys) override {
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const auto found = finished_.find(ctx.jobs[jobs[i]].spec->user);
      const double estimate = found == finished_.end()
                                  ? 1e300
                                  : found->second.first / static_cast<double>(found->second.second);
      keys[i] = {estimate, ctx.jobs[jobs[i]].submit};
    }
  }
  void on_finished(std::uint32_t job, const PolicyContext& ctx,
                   std::vector<std::uint32_t>& rekey) override {
    const JobSpec& spec = *ctx.jobs[job].spec;
    auto& [sum, count] = finished_[spec.user];
    sum += spec.duration;
    ++count;
    for (std::size_t i = 0; i < ctx.jobs.size(); ++i)
      if (ctx.jobs[i].phase == JobPhase::kWaiting && ctx.jobs[i].spec->user == spec.user)
        rekey.push_back(static_cast<std::uint32_t>(i));
  }

 private:
  std::map<std::string, std::pair<double, int>> finished_;
};

TEST(Simulation, APolicyReKeysWaitingJobsWhenAJobFinishes) {
  // One GPU. A's first job runs 0-10; meanwhile b0 (user B) and a1 (user A) wait, both unknown
  // (b0 first by submit time). When A's job finishes, A's estimate is 10 s: a1 is re-keyed
  // ahead of b0 and starts at 10; b0 at 15. Without re-keying b0 would start at 10.
  SimOptions options = testing::small_cluster(1, 1);
  std::vector<JobSpec> jobs = {job("a0", 0, 1, 10), job("b0", 1, 1, 100), job("a1", 2, 1, 5)};
  jobs[0].user = jobs[2].user = "A";
  jobs[1].user = "B";
  options.make_policy = [](const SchedulerOptions&) {
    return std::make_unique<UserMeanEstimate>();
  };
  const RunResult result = simulate(options, jobs);
  EXPECT_EQ(result.jobs[2].start_time, 10.0);
  EXPECT_EQ(result.jobs[1].start_time, 15.0);
  EXPECT_EQ(result.jobs[1].finish_time, 115.0);
}

TEST(Simulation, AWindowStreamsItsWorkloadInAsARunOnTheGrownWorkloadWould) {
  // An overloaded window: the first 600 jobs do not drain jobs 100-399, so the workload grows.
  SimOptions options = testing::small_cluster(8, 8, 4);
  options.check_invariants = false;
  options.scheduler.policy = "las";
  options.window = SimOptions::Window{100, 399};
  GeneratorOptions generator;
  generator.shape = "philly";
  generator.jobs = 600;
  generator.load = 1.3;
  generator.seed = 3;
  generator.cluster_gpus = options.cluster.total_gpus();
  auto first = std::make_shared<const Workload>(generate_workload(generator));
  Simulation streamed(
      options, first,
      [generator](std::size_t jobs) mutable {
        generator.jobs = jobs;
        return std::make_shared<const Workload>(generate_workload(generator));
      },
      3200);
  const RunResult result = streamed.run();
  const auto grown = streamed.workload();
  ASSERT_GT(grown->jobs.size(), 600u);  // it did grow
  EXPECT_EQ(result.jobs.size(), grown->jobs.size());
  // The same run on the grown workload from the start: identical.
  const RunResult whole = simulate(options, grown->jobs);
  testing::expect_same_records(whole, result);
  EXPECT_EQ(whole.metrics.events, result.metrics.events);
  EXPECT_EQ(whole.metrics.window_overloaded, result.metrics.window_overloaded);
}

TEST(Simulation, ResetReplaysTheRunAndANewSeedChangesItsRandomness) {
  SimOptions options = philly_cluster();
  options.scheduler.placement = "random";
  const std::vector<JobSpec> jobs = philly_jobs(1500, options.cluster.total_gpus(), 2);
  Simulation simulation(options, std::span<const JobSpec>(jobs));
  const RunResult first = simulation.run();
  simulation.reset();
  const RunResult again = simulation.run();
  testing::expect_same_records(first, again);
  simulation.reset(12345);
  const RunResult other = simulation.run();
  std::size_t differ = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    differ += other.jobs[i].nodes != first.jobs[i].nodes;
  EXPECT_GT(differ, 0u);
}

TEST(Simulation, StepReturnsAtEachDecisionPointWithTheBuiltInDecider) {
  SimOptions options = testing::small_cluster(1, 2);
  Simulation simulation(options, {job("a", 0, 2, 10), job("b", 1, 1, 5), job("c", 1, 1, 5)});
  std::vector<Time> points;
  while (simulation.step()) {
    points.push_back(simulation.view().now());
    if (simulation.view().now() == 10.0) {
      EXPECT_EQ(simulation.view().holders().size(), 2u);  // b and c started at a's finish
      EXPECT_TRUE(simulation.view().waiting().empty());
    }
  }
  EXPECT_EQ(points, (std::vector<Time>{0, 1, 10, 15}));
  EXPECT_THROW(simulation.apply(Plan{}), std::logic_error);  // it has a decider
}

}  // namespace
}  // namespace clustersim
