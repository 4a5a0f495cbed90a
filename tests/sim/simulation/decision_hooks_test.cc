// Decision mechanisms under a decider that is not the built-in one (decision_hooks.h): with
// scheduler.preemption on, a decider written here, or plans applied between step() calls, run
// with preemption rounds in scheduler.policy's order. An SRTF written here then reproduces the
// built-in SRTF with preemption job by job; a hand-computed two-job case shows the round acting;
// a policy's own wish to preempt (srtf without the key) stays the built-in decider's.
#include <gtest/gtest.h>

#include <memory>

#include "clustersim/generator.h"
#include "clustersim/simulation.h"
#include "order_decider.h"
#include "test_util.h"

namespace clustersim {
namespace hooks_test {  // named: the test files of this binary build as one unit

using testing::job;

// SRTF in a few lines (order_decider.h): the waiting jobs by work left, then submit time, then
// workload order (the built-in srtf's key), each started where the configured allocation
// mechanism puts it; a job that does not fit waits and later ones may start (backfill).
bool srtf_before(const View& view, std::uint32_t a, std::uint32_t b) {
  const auto jobs = view.jobs();
  const double ra = jobs[a].remaining_at(view.now()), rb = jobs[b].remaining_at(view.now());
  if (ra != rb) return ra < rb;
  return testing::fifo_before(view, a, b);
}

// As a Decider object, and as a program applying plans between step() calls.
RunResult decided_srtf(const SimOptions& options, std::span<const JobSpec> jobs) {
  Simulation simulation(options, jobs);
  simulation.set_decider(std::make_unique<testing::OrderDecider>(simulation, srtf_before));
  return simulation.run();
}

RunResult stepped_srtf(const SimOptions& options, std::span<const JobSpec> jobs) {
  Simulation simulation(options, jobs);
  return testing::run_stepped(simulation, srtf_before);
}

SimOptions one_gpu_srtf(bool preemption_key) {
  SimOptions options = testing::small_cluster(1, 1);
  options.check_invariants = true;
  options.scheduler.policy = "srtf";
  options.scheduler.lease_s = 10.0;
  if (preemption_key) options.scheduler.preemption = true;
  return options;
}

// One GPU; a (100 s) at 0, b (10 s) at 5. At the lease boundary t = 10 the round admits b (10 s
// left) over a (90 s left) and stops a; the decider then starts b (it runs 10-20), and a again
// at 20 (90 s left: it ends at 110).
TEST(DecisionHooks, APreemptionRoundStopsAJobUnderAUserDecider) {
  const std::vector<JobSpec> jobs = {job("a", 0, 1, 100), job("b", 5, 1, 10)};
  for (const bool stepped : {false, true}) {
    SCOPED_TRACE(stepped ? "plans between step() calls" : "a Decider object");
    const RunResult r =
        stepped ? stepped_srtf(one_gpu_srtf(true), jobs) : decided_srtf(one_gpu_srtf(true), jobs);
    ASSERT_EQ(r.jobs.size(), 2u);
    EXPECT_EQ(r.jobs[0].start_time, 0.0);
    EXPECT_EQ(r.jobs[0].finish_time, 110.0);
    EXPECT_EQ(r.jobs[0].preemptions, 1);
    EXPECT_EQ(r.jobs[1].start_time, 10.0);
    EXPECT_EQ(r.jobs[1].finish_time, 20.0);
    EXPECT_EQ(r.jobs[1].preemptions, 0);
    // The preemption mechanism reported its rounds: the boundaries 0 (a waits at one), 10 and
    // 20 (a waits again); only the one at 10 had a job to stop.
    EXPECT_EQ(r.metrics.rounds, 3u);
    EXPECT_EQ(r.metrics.preemptions, 1u);
  }
}

// Without scheduler.preemption the same decider is never interrupted: srtf's own wish to
// preempt belongs to the built-in decider (a user's decider ran before with no rounds at all).
TEST(DecisionHooks, APolicysOwnPreemptionStaysTheBuiltInDecidersOwn) {
  const std::vector<JobSpec> jobs = {job("a", 0, 1, 100), job("b", 5, 1, 10)};
  for (const bool stepped : {false, true}) {
    const RunResult r =
        stepped ? stepped_srtf(one_gpu_srtf(false), jobs) : decided_srtf(one_gpu_srtf(false), jobs);
    EXPECT_EQ(r.jobs[0].finish_time, 100.0);
    EXPECT_EQ(r.jobs[1].start_time, 100.0);
    EXPECT_EQ(r.jobs[0].preemptions, 0);
    EXPECT_EQ(r.metrics.rounds, 0u);
  }
  // The built-in decider preempts by the policy's default.
  const RunResult built_in = simulate(one_gpu_srtf(false), jobs);
  EXPECT_EQ(built_in.jobs[1].finish_time, 20.0);
}

// A Philly-shaped run at full load with preemption rounds every 10 minutes: the SRTF written
// above, as a decider and as a stepping program, gives the built-in SRTF's schedule job by job.
TEST(DecisionHooks, AUserSrtfWithPreemptionMatchesTheBuiltInSrtfJobByJob) {
  SimOptions options = testing::small_cluster(16, 8, 4);
  options.check_invariants = false;
  options.scheduler.policy = "srtf";
  options.scheduler.preemption = true;
  options.scheduler.lease_s = 600.0;
  GeneratorOptions generator;
  generator.shape = "philly";
  generator.jobs = 3000;
  generator.load = 1.0;
  generator.seed = 7;
  generator.cluster_gpus = options.cluster.total_gpus();
  const std::vector<JobSpec> jobs = generate_workload(generator).jobs;

  const RunResult built_in = simulate(options, jobs);
  ASSERT_EQ(built_in.metrics.jobs, jobs.size());
  ASSERT_GT(built_in.metrics.preemptions, 100u);  // rounds did stop jobs: they mattered
  const RunResult decided = decided_srtf(options, jobs);
  testing::expect_same_records(built_in, decided);
  EXPECT_EQ(decided.metrics.preemptions, built_in.metrics.preemptions);
  EXPECT_EQ(decided.metrics.rounds, built_in.metrics.rounds);
  EXPECT_EQ(decided.metrics.jct_mean, built_in.metrics.jct_mean);
  const RunResult stepped = stepped_srtf(options, jobs);
  testing::expect_same_records(built_in, stepped);
  EXPECT_EQ(stepped.metrics.events, built_in.metrics.events);

  // With invariants checked (the hooks' queue against the waiting jobs, every event).
  options.check_invariants = true;
  std::vector<JobSpec> fewer(jobs.begin(), jobs.begin() + 600);
  testing::expect_same_records(simulate(options, fewer), decided_srtf(options, fewer));
}

}  // namespace hooks_test
}  // namespace clustersim
