// Statistics and the noise-based stopping rule of the benchmarks.
#include "ckbench/stats.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ckbench {
namespace {

TEST(Stats, Basics) {
  const Stats s = compute_stats({2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0});
  EXPECT_EQ(s.n, 8u);
  EXPECT_DOUBLE_EQ(s.mean, 5.0);
  EXPECT_NEAR(s.stddev, std::sqrt(32.0 / 7.0), 1e-12);
  EXPECT_DOUBLE_EQ(s.min, 2.0);
  EXPECT_DOUBLE_EQ(s.max, 9.0);
  EXPECT_DOUBLE_EQ(s.median, 4.5);
  EXPECT_DOUBLE_EQ(s.total, 40.0);
  EXPECT_NEAR(s.noise, 1.96 * s.stddev / 5.0 / std::sqrt(8.0), 1e-12);
}

TEST(Stats, EmptyAndSingle) {
  EXPECT_EQ(compute_stats({}).n, 0u);
  const Stats one = compute_stats({3.0});
  EXPECT_DOUBLE_EQ(one.mean, 3.0);
  EXPECT_DOUBLE_EQ(one.stddev, 0.0);
  EXPECT_DOUBLE_EQ(one.noise, 0.0);
}

TEST(Stats, RunningMatchesBatch) {
  RunningStats r;
  std::vector<double> xs;
  for (int i = 0; i < 50; ++i) {
    const double x = 1.0 + 0.01 * ((i * 37) % 11);
    xs.push_back(x);
    r.add(x);
  }
  const Stats a = r.snapshot(), b = compute_stats(xs);
  EXPECT_NEAR(a.mean, b.mean, 1e-12);
  EXPECT_NEAR(a.stddev, b.stddev, 1e-12);
  EXPECT_NEAR(a.noise, b.noise, 1e-12);
  EXPECT_NEAR(a.total, b.total, 1e-12);
}

TEST(StopRule, ConvergesOnQuietSamples) {
  // Constant samples: noise 0, stops as soon as min_samples and min_time are met.
  const StopRule rule = make_rule(0.005, 10, 0.05, 10.0);
  int calls = 0;
  const Measurement m = measure(
      [&]() {
        ++calls;
        return 0.01;
      },
      rule, 2);
  EXPECT_TRUE(m.converged());
  EXPECT_EQ(m.stats.n, 10u);  // 10 samples = 0.1 s >= 0.05 s
  EXPECT_EQ(calls, 12);       // plus 2 warm-up calls
}

TEST(StopRule, MinTimeKeepsSampling) {
  const StopRule rule = make_rule(0.005, 2, 1.0, 10.0);
  const Measurement m = measure([]() { return 0.125; }, rule, 0);  // exact in binary
  EXPECT_TRUE(m.converged());
  EXPECT_EQ(m.stats.n, 8u);
}

TEST(StopRule, NoisySamplesRunUntilTheNoiseDrops) {
  // Alternating 0.9/1.1: rel. stddev ~0.1, so noise = 1.96*0.1/sqrt(n) <= 1% needs n >= ~385.
  const StopRule rule = make_rule(0.01, 10, 0.0, 1e9);
  int i = 0;
  const Measurement m = measure([&]() { return (i++ % 2) ? 0.9 : 1.1; }, rule, 0);
  EXPECT_TRUE(m.converged());
  EXPECT_LE(m.stats.noise, 0.01);
  EXPECT_GT(m.stats.n, 350u);
  EXPECT_LT(m.stats.n, 420u);
}

TEST(StopRule, TimeoutIsFlagged) {
  const StopRule rule = make_rule(1e-9, 2, 0.0, 1.0);
  int i = 0;
  const Measurement m = measure([&]() { return (i++ % 2) ? 0.05 : 0.15; }, rule, 0);
  EXPECT_FALSE(m.converged());
  EXPECT_EQ(m.reason, StopReason::kTimeout);
  EXPECT_GE(m.stats.total, 1.0);
  EXPECT_STREQ(to_string(m.reason), "timeout");
}

TEST(StopRule, MaxSamplesIsFlagged) {
  StopRule rule = make_rule(1e-9, 2, 0.0, 1e9);
  rule.max_samples = 25;
  int i = 0;
  const Measurement m = measure([&]() { return (i++ % 2) ? 0.5 : 1.5; }, rule, 0);
  EXPECT_EQ(m.reason, StopReason::kMaxSamples);
  EXPECT_EQ(m.stats.n, 25u);
}

}  // namespace
}  // namespace ckbench
