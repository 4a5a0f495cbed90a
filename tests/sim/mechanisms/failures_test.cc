// Node failures (mechanisms.h): rollback to the last checkpoint worked out by hand, replayed
// outages, and the generated failure process (its mean, its per-node streams, determinism).
#include "mechanisms/failures.h"

#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;

NodeOutage outage(std::uint32_t node, double down, double up) {
  NodeOutage o;
  o.node = node;
  o.down = down;
  o.up = up;
  return o;
}

// One GPU. A 1000 s job saves every 100 s of running (5 s a save) and restores in 2 s; its node
// is down from 350 to 400.
//   0..100 run, 100..105 save, 105..205 run, 205..210 save, 210..310 run, 310..315 save
//   (300 s of progress saved), 315..350 run: the 35 s since the last save are lost.
//   400..402 restore, then 700 s of work with a save after every 100 s of running: 6 saves
//   (not at the end), so it finishes at 402 + 700 + 6 * 5 = 1132.
TEST(Failures, RollBackToTheLastCheckpoint) {
  SimOptions options = testing::small_cluster(1, 1);
  options.mechanisms.checkpoint_interval_s = 100;
  options.scheduler.checkpoint_s = 5;
  options.scheduler.restore_s = 2;
  options.mechanisms.failure_trace = {outage(0, 350, 400)};
  const RunResult result = simulate(options, {job("a", 0, 1, 1000)});
  const JobRecord& a = result.jobs[0];
  EXPECT_DOUBLE_EQ(a.finish_time, 1132);
  EXPECT_EQ(a.failures, 1);
  EXPECT_DOUBLE_EQ(a.lost_gpu_seconds, 35);
  EXPECT_DOUBLE_EQ(a.checkpoint_gpu_seconds, 9 * 5);
  EXPECT_DOUBLE_EQ(a.restore_gpu_seconds, 2);
  EXPECT_DOUBLE_EQ(a.gpu_seconds, 350 + (1132 - 400));
  EXPECT_EQ(result.metrics.failures, 1u);
  EXPECT_EQ(result.metrics.node_failures, 1u);
  EXPECT_EQ(result.metrics.checkpoints, 9u);
  EXPECT_DOUBLE_EQ(result.metrics.lost_gpu_seconds, 35);
  EXPECT_DOUBLE_EQ(result.metrics.useful_gpu_seconds, 1000);
  // Work conservation: held = useful + saves + restore + lost.
  EXPECT_DOUBLE_EQ(result.metrics.gpu_seconds, 1000 + 45 + 2 + 35);
  EXPECT_DOUBLE_EQ(result.metrics.goodput, 1000.0 / 1082.0);
}

TEST(Failures, WithoutACheckpointEverythingIsLostAndNothingIsRestored) {
  SimOptions options = testing::small_cluster(1, 1);
  options.scheduler.restore_s = 2;
  options.mechanisms.failure_trace = {outage(0, 350, 400)};
  const RunResult result = simulate(options, {job("a", 0, 1, 1000)});
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 400 + 1000);
  EXPECT_DOUBLE_EQ(result.jobs[0].lost_gpu_seconds, 350);
  EXPECT_DOUBLE_EQ(result.jobs[0].restore_gpu_seconds, 0);
}

// A failure while the job saves: the save under way is lost with the work it would have kept,
// but what the save cost stays spent.
TEST(Failures, ASaveUnderWayIsLost) {
  SimOptions options = testing::small_cluster(1, 1);
  options.mechanisms.checkpoint_interval_s = 100;
  options.scheduler.checkpoint_s = 10;
  options.mechanisms.failure_trace = {outage(0, 104, 200)};  // mid-save (100..110)
  const RunResult result = simulate(options, {job("a", 0, 1, 1000)});
  const JobRecord& a = result.jobs[0];
  EXPECT_DOUBLE_EQ(a.lost_gpu_seconds, 100);
  EXPECT_DOUBLE_EQ(a.checkpoint_gpu_seconds, 4 + 9 * 10);  // 4 s lost mid-save, then 9 saves
  EXPECT_DOUBLE_EQ(a.finish_time, 200 + 1000 + 9 * 10);
}

// Two nodes of 2 GPUs. A (2 GPUs) on node 0 and B (2 GPUs) on node 1; node 1 fails at 100 and
// is repaired at 300. Only B fails; C (2 GPUs, arriving at 150) cannot use the failed node, and
// once it is back B (first in line) takes it again.
TEST(Failures, OnlyJobsOnTheFailedNodeFailAndItsGpusAreOffline) {
  SimOptions options = testing::small_cluster(2, 2);
  options.mechanisms.failure_trace = {outage(1, 100, 300)};
  const RunResult result =
      simulate(options, {job("a", 0, 2, 1000), job("b", 0, 2, 500), job("c", 150, 2, 10)});
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 1000);
  EXPECT_EQ(result.jobs[0].failures, 0);
  EXPECT_EQ(result.jobs[1].failures, 1);
  EXPECT_DOUBLE_EQ(result.jobs[1].lost_gpu_seconds, 2 * 100);
  EXPECT_DOUBLE_EQ(result.jobs[1].finish_time, 300 + 500);  // B, first in line, restarts at 300
  EXPECT_DOUBLE_EQ(result.jobs[2].finish_time, 800 + 10);   // C, behind B, gets node 1 next
}

// A replayed outage that begins before the workload's first arrival (at 500): it used to
// schedule its timer in the past and throw ("a timer must fire at or after now"). The node is
// down from the first arrival until 800, so A (one GPU, on a one-GPU cluster) starts at 800;
// an outage over before the first arrival changes nothing.
TEST(Failures, AnOutageBeforeTheFirstArrivalHoldsTheNodeUntilItEnds) {
  SimOptions options = testing::small_cluster(1, 1);
  options.mechanisms.failure_trace = {outage(0, 100, 800)};
  RunResult result = simulate(options, {job("a", 500, 1, 100)});
  EXPECT_DOUBLE_EQ(result.jobs[0].start_time, 800);
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 900);
  EXPECT_EQ(result.metrics.node_failures, 1u);
  options.mechanisms.failure_trace = {outage(0, 0, 200)};
  result = simulate(options, {job("a", 500, 1, 100)});
  EXPECT_DOUBLE_EQ(result.jobs[0].start_time, 500);
  EXPECT_EQ(result.metrics.node_failures, 0u);
}

TEST(FailureProcess, MeanUptimeIsTheMtbfForBothModels) {
  for (auto model :
       {MechanismOptions::FailureModel::kExponential, MechanismOptions::FailureModel::kWeibull}) {
    MechanismOptions mechanisms;
    mechanisms.mtbf_h = 10;
    mechanisms.failure_model = model;
    internal::FailureProcess process(mechanisms, 4, 7);
    double sum = 0;
    const int draws = 200000;
    for (int i = 0; i < draws; ++i) sum += process.next_uptime(static_cast<std::uint32_t>(i % 4));
    EXPECT_NEAR(sum / draws / 36000.0, 1.0, 0.02) << static_cast<int>(model);
    EXPECT_DOUBLE_EQ(process.repair_s(), 3600);
  }
}

TEST(FailureProcess, ANodesFailuresDoNotDependOnHowManyNodesThereAre) {
  MechanismOptions mechanisms;
  mechanisms.mtbf_h = 5;
  internal::FailureProcess few(mechanisms, 2, 99), many(mechanisms, 64, 99);
  for (int i = 0; i < 20; ++i) {
    EXPECT_EQ(few.next_uptime(1), many.next_uptime(1));
    many.next_uptime(17);  // another node's draws leave node 1's alone
  }
}

TEST(FailureProcess, RejectsANonPositiveMtbf) {
  MechanismOptions mechanisms;
  mechanisms.mtbf_h = -1;
  EXPECT_THROW(internal::FailureProcess(mechanisms, 1, 1), std::invalid_argument);
}

// Generated failures in a run: reproducible from the seed, about as many as the MTBF implies,
// and the work they cost is accounted for exactly.
TEST(Failures, GeneratedFailuresAreDeterministicAndAccounted) {
  SimOptions options = testing::small_cluster(16, 4);
  options.mechanisms.mtbf_h = 2;
  options.mechanisms.repair_h = 0.5;
  options.mechanisms.checkpoint_interval_s = 600;
  options.scheduler.checkpoint_s = 20;
  options.scheduler.restore_s = 10;
  const auto jobs = testing::random_jobs(400, 60, 3000, {1, 2, 4}, 5);
  const RunResult first = simulate(options, jobs), second = simulate(options, jobs);
  EXPECT_EQ(first.metrics.jct_mean, second.metrics.jct_mean);
  EXPECT_EQ(first.metrics.failures, second.metrics.failures);
  EXPECT_EQ(first.metrics.lost_gpu_seconds, second.metrics.lost_gpu_seconds);
  // Each node is up 2 h then down 0.5 h on average.
  const double expected = 16 * first.metrics.makespan / (2.5 * 3600);
  EXPECT_NEAR(static_cast<double>(first.metrics.node_failures) / expected, 1.0, 0.25);
  EXPECT_GT(first.metrics.failures, 0u);
  EXPECT_GT(first.metrics.lost_gpu_seconds, 0);
  const RunMetrics& m = first.metrics;
  const double overheads = m.overhead_checkpoint_gpu_seconds + m.overhead_restore_gpu_seconds +
                           m.overhead_migration_gpu_seconds + m.overhead_resize_gpu_seconds +
                           m.overhead_realloc_gpu_seconds;
  EXPECT_NEAR(m.gpu_seconds, m.useful_gpu_seconds + overheads + m.lost_gpu_seconds,
              1e-9 * m.gpu_seconds);
  double work = 0;
  for (const JobSpec& spec : jobs) work += spec.num_gpus * spec.duration;
  EXPECT_NEAR(m.useful_gpu_seconds, work, 1e-9 * work);
}

}  // namespace
}  // namespace clustersim
