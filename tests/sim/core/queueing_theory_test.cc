// FIFO with single-GPU jobs, Poisson arrivals and exponential durations is an M/M/c queue: its
// mean waiting time is known exactly (Erlang C). The simulator must reproduce it.
#include <gtest/gtest.h>

#include <cmath>

#include "test_util.h"

namespace clustersim {
namespace {

double erlang_c_mean_wait(int servers, double arrival_rate, double service_rate) {
  const double a = arrival_rate / service_rate;  // offered load in Erlangs
  const double rho = a / servers;
  double sum = 0, term = 1;  // term = a^k / k!
  for (int k = 0; k < servers; ++k) {
    sum += term;
    term *= a / (k + 1);
  }
  const double tail = term / (1 - rho);  // a^c / c! / (1 - rho)
  const double probability_wait = tail / (sum + tail);
  return probability_wait / (servers * service_rate - arrival_rate);
}

TEST(QueueingTheory, FifoSingleGpuQueueMatchesErlangC) {
  const int gpus = 8;
  const double mean_service = 100.0, utilization = 0.85;
  const double arrival_rate = utilization * gpus / mean_service;
  SimOptions options = testing::small_cluster(1, gpus);
  options.check_invariants = false;
  Rng rng(2024);
  std::vector<JobSpec> jobs;
  Time t = 0;
  const std::size_t n = 400000;
  jobs.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    t += -std::log1p(-rng.uniform()) / arrival_rate;
    jobs.push_back(
        testing::job(testing::numbered("j", i), t, 1, -mean_service * std::log1p(-rng.uniform())));
  }
  const RunResult result = simulate(options, jobs);
  // Skip the warm-up (first 5%) when averaging.
  double wait = 0;
  std::size_t counted = 0;
  for (std::size_t i = n / 20; i < n; ++i, ++counted) wait += result.jobs[i].queue_delay;
  wait /= static_cast<double>(counted);
  const double expected = erlang_c_mean_wait(gpus, arrival_rate, 1.0 / mean_service);
  EXPECT_NEAR(wait / expected, 1.0, 0.04)
      << "simulated " << wait << " s, Erlang C " << expected << " s";
}

}  // namespace
}  // namespace clustersim
