// Event-driven preemption (scheduler.lease_s = 0) and priority preemption on arrival: exact
// schedules worked out by hand, and preemptive SRTF against the M/M/1-SRPT closed form.
#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace clustersim {
namespace {

using testing::job;

// One GPU, SRTF re-planned at every arrival and completion. A (100 s) runs from 0; B (5 s)
// arrives at 10 and C (5 s) at 50: each is shorter than what A has left, so each preempts A at
// once. A pays a save when stopped and a restore when restarted, twice.
RunResult srtf_preempted_twice(double save_s, double restore_s) {
  SimOptions options = testing::small_cluster(1, 1);
  options.scheduler.policy = "srtf";
  options.scheduler.lease_s = 0;
  options.scheduler.checkpoint_s = save_s;
  options.scheduler.restore_s = restore_s;
  return simulate(options, {job("a", 0, 1, 100), job("b", 10, 1, 5), job("c", 50, 1, 5)});
}

TEST(EventDrivenPreemption, PreemptedTwiceFinishesTwoSavesAndRestoresLater) {
  const RunResult free = srtf_preempted_twice(0, 0);
  EXPECT_DOUBLE_EQ(free.jobs[0].finish_time, 110);  // 100 s of its own, 5 + 5 of B and C
  EXPECT_DOUBLE_EQ(free.jobs[1].jct, 5);            // B starts the moment it arrives
  EXPECT_DOUBLE_EQ(free.jobs[2].jct, 5);
  EXPECT_EQ(free.jobs[0].preemptions, 2);

  const double save = 3, restore = 2;
  const RunResult costly = srtf_preempted_twice(save, restore);
  EXPECT_DOUBLE_EQ(costly.jobs[0].finish_time - free.jobs[0].finish_time, 2 * (save + restore));
  // B and C wait for A's save to finish: the GPU is A's until then.
  EXPECT_DOUBLE_EQ(costly.jobs[1].jct, 5 + save);
  EXPECT_DOUBLE_EQ(costly.jobs[2].jct, 5 + save);
  EXPECT_EQ(costly.jobs[0].preemptions, 2);
  EXPECT_DOUBLE_EQ(costly.jobs[0].checkpoint_gpu_seconds, 2 * save);
  EXPECT_DOUBLE_EQ(costly.jobs[0].restore_gpu_seconds, 2 * restore);
  EXPECT_DOUBLE_EQ(costly.jobs[0].overhead_gpu_seconds, 2 * (save + restore));
  EXPECT_DOUBLE_EQ(costly.metrics.overhead_checkpoint_gpu_seconds, 2 * save);
  EXPECT_DOUBLE_EQ(costly.metrics.overhead_restore_gpu_seconds, 2 * restore);
  EXPECT_EQ(costly.metrics.preemptions, 2u);
  // Work conservation: held = useful (110 GPU-seconds of progress) + overheads.
  EXPECT_DOUBLE_EQ(costly.metrics.useful_gpu_seconds, 110);
  EXPECT_DOUBLE_EQ(costly.metrics.gpu_seconds, 110 + 2 * (save + restore));
}

TEST(EventDrivenPreemption, PlansAtEveryArrivalAndCompletionNotOnALeaseGrid) {
  // With a 300 s lease, B and C would wait for the round at 300 (A is done by then: 100 s).
  SimOptions options = testing::small_cluster(1, 1);
  options.scheduler.policy = "srtf";
  options.scheduler.lease_s = 300;
  const RunResult leased =
      simulate(options, {job("a", 0, 1, 100), job("b", 10, 1, 5), job("c", 50, 1, 5)});
  EXPECT_DOUBLE_EQ(leased.jobs[1].jct, 100 - 10 + 5);
  EXPECT_EQ(leased.jobs[0].preemptions, 0);
}

// Two GPUs. A (2 GPUs, priority 0, 1000 s) runs from 0; B (1 GPU, priority 5, 10 s) arrives at
// 50. Saves and restores cost nothing here.
RunResult priority_arrival(bool preempt_on_arrival) {
  SimOptions options = testing::small_cluster(1, 2);
  options.scheduler.policy = "fifo";
  options.scheduler.preemption = true;
  options.scheduler.honor_priority = true;
  options.scheduler.lease_s = 300;
  options.mechanisms.preempt_on_arrival = preempt_on_arrival;
  JobSpec low = job("low", 0, 2, 1000), high = job("high", 50, 1, 10);
  high.priority = 5;
  return simulate(options, {low, high});
}

TEST(PriorityPreemption, HigherPriorityArrivalEvictsAtOnce) {
  const RunResult result = priority_arrival(true);
  EXPECT_DOUBLE_EQ(result.jobs[1].jct, 10);  // runs 50..60
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 1010);
  EXPECT_EQ(result.jobs[0].preemptions, 1);
}

TEST(PriorityPreemption, WithoutItTheArrivalWaitsForTheLeaseBoundary) {
  const RunResult result = priority_arrival(false);
  EXPECT_DOUBLE_EQ(result.jobs[1].jct, 300 - 50 + 10);  // runs 300..310
  EXPECT_DOUBLE_EQ(result.jobs[0].finish_time, 1010);
  EXPECT_EQ(result.jobs[0].preemptions, 1);
}

TEST(PriorityPreemption, EqualPriorityDoesNotEvict) {
  SimOptions options = testing::small_cluster(1, 2);
  options.scheduler.policy = "fifo";
  options.scheduler.preemption = true;
  options.scheduler.honor_priority = true;
  options.mechanisms.preempt_on_arrival = true;
  const RunResult result = simulate(options, {job("a", 0, 2, 1000), job("b", 50, 1, 10)});
  EXPECT_EQ(result.jobs[0].preemptions, 0);
  EXPECT_DOUBLE_EQ(result.jobs[1].jct, 1000 - 50 + 10);
}

// Mean response time of M/M/1 under SRPT (Schrage and Miller, 1966): for a job of size x,
//   E[T(x)] = lambda (m2(x) + x^2 (1 - F(x))) / (2 (1 - rho(x))^2) + integral_0^x dt/(1 - rho(t)),
// with rho(x) = lambda * integral_0^x t dF(t) and m2(x) = integral_0^x t^2 dF(t); E[T] is its
// mean over F. Integrated numerically (Simpson) for exponential sizes.
double srpt_mean_response(double lambda, double mean_size) {
  const double mu = 1.0 / mean_size;
  const auto rho = [&](double x) { return lambda / mu * (1 - std::exp(-mu * x) * (1 + mu * x)); };
  const auto m2 = [&](double x) {
    const double y = mu * x;
    return 2 / (mu * mu) * (1 - std::exp(-y) * (1 + y + y * y / 2));
  };
  const auto density = [&](double x) { return mu * std::exp(-mu * x); };
  const auto waiting = [&](double x) {
    const double r = 1 - rho(x);
    return lambda * (m2(x) + x * x * std::exp(-mu * x)) / (2 * r * r);
  };
  const int steps = 200000;  // even
  const double upper = 60 * mean_size, h = upper / steps;
  double residence = 0;  // integral_0^x dt / (1 - rho(t)), advanced with the outer grid
  double total = 0;
  double previous_inverse = 1.0;  // 1 / (1 - rho(0))
  for (int i = 0; i <= steps; ++i) {
    const double x = i * h;
    if (i > 0) {
      const double inverse = 1 / (1 - rho(x)), middle = 1 / (1 - rho(x - h / 2));
      residence += h / 6 * (previous_inverse + 4 * middle + inverse);
      previous_inverse = inverse;
    }
    const double weight = (i == 0 || i == steps) ? 1 : (i % 2 == 1 ? 4 : 2);
    total += weight * (waiting(x) + residence) * density(x);
  }
  return total * h / 3;
}

TEST(QueueingTheory, EventDrivenSrtfOnOneGpuMatchesMm1Srpt) {
  const double mean_size = 100.0, utilization = 0.8;
  const double lambda = utilization / mean_size;
  SimOptions options = testing::small_cluster(1, 1);
  options.check_invariants = false;
  options.scheduler.policy = "srtf";
  options.scheduler.lease_s = 0;
  Rng rng(1966);
  std::vector<JobSpec> jobs;
  const std::size_t n = 300000;
  jobs.reserve(n);
  Time t = 0;
  for (std::size_t i = 0; i < n; ++i) {
    t += -std::log1p(-rng.uniform()) / lambda;
    jobs.push_back(job(testing::numbered("j", i), t, 1, -mean_size * std::log1p(-rng.uniform())));
  }
  const RunResult result = simulate(options, jobs);
  double response = 0;
  std::size_t counted = 0;
  for (std::size_t i = n / 20; i < n; ++i, ++counted) response += result.jobs[i].jct;
  response /= static_cast<double>(counted);
  const double expected = srpt_mean_response(lambda, mean_size);
  // FCFS would give mean_size / (1 - rho) = 500 s; SRPT is far below.
  EXPECT_LT(expected, 0.6 * mean_size / (1 - utilization));
  EXPECT_NEAR(response / expected, 1.0, 0.04)
      << "simulated " << response << " s, M/M/1-SRPT " << expected << " s";
}

}  // namespace
}  // namespace clustersim
