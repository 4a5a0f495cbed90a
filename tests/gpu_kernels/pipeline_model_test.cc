// The analytic pipeline model of optimistic profiling.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "ckbench/pipeline.h"

namespace ckbench {
namespace {

TEST(PipelineModel, HitFraction) {
  EXPECT_DOUBLE_EQ(cache_hit_fraction(0, 100), 0.0);
  EXPECT_DOUBLE_EQ(cache_hit_fraction(25, 100), 0.25);
  EXPECT_DOUBLE_EQ(cache_hit_fraction(250, 100), 1.0);
  EXPECT_DOUBLE_EQ(cache_hit_fraction(5, 0), 1.0);
}

TEST(PipelineModel, FetchRate) {
  // 1e6-byte samples, storage 100 MB/s, cache 1000 MB/s.
  EXPECT_DOUBLE_EQ(fetch_rate(0, 1e9, 1e6, 1e9, 1e8), 100.0);     // all from storage
  EXPECT_DOUBLE_EQ(fetch_rate(5e8, 1e9, 1e6, 1e9, 1e8), 200.0);   // half the misses
  EXPECT_DOUBLE_EQ(fetch_rate(1e9, 1e9, 1e6, 1e9, 1e8), 1000.0);  // all cached: cache bound
  EXPECT_EQ(fetch_rate(1e9, 1e9, 1e6, 0, 1e8), kUnbounded);       // unbounded cache
  EXPECT_DOUBLE_EQ(fetch_rate(9e8, 1e9, 1e6, 1e9, 1e8),
                   std::min(1e9 / (0.9 * 1e6), 1e8 / (0.1 * 1e6)));
  EXPECT_EQ(fetch_rate(0, 1e9, 0, 1e9, 1e8), kUnbounded);
}

TEST(PipelineModel, ThroughputIsTheMinimumStage) {
  StageRates r;
  r.gpu = 800;
  r.prep = 300;
  r.h2d = 5000;
  r.fetch = 1000;
  EXPECT_DOUBLE_EQ(pipeline_throughput(r), 300.0);
  EXPECT_STREQ(bottleneck(r), "prep");
  r.prep = 3000;
  EXPECT_DOUBLE_EQ(pipeline_throughput(r), 800.0);
  EXPECT_STREQ(bottleneck(r), "gpu");
  r.fetch = 100;
  EXPECT_STREQ(bottleneck(r), "fetch");
  EXPECT_DOUBLE_EQ(pipeline_throughput(StageRates{}), kUnbounded);
}

TEST(CpuSearch, HalvesWhileWithinTolerance) {
  // A pipeline that is GPU-bound at 1000 samples/s and needs 250 samples/s per core.
  std::vector<int> asked;
  const CpuSearch s = halving_cpu_search(16, [&](int c) {
    asked.push_back(c);
    return std::min(1000.0, 250.0 * c);
  });
  EXPECT_EQ(asked, (std::vector<int>{16, 8, 4, 2}));  // stops at the first point below 90%
  EXPECT_EQ(s.knee, 4);
  ASSERT_EQ(s.points.size(), 4u);
  EXPECT_EQ(s.points.front().cpus, 2);  // sorted ascending
  EXPECT_DOUBLE_EQ(s.points.front().throughput, 500.0);
}

TEST(CpuSearch, ReachesOneCoreWhenNeverCpuBound) {
  std::vector<int> asked;
  const CpuSearch s = halving_cpu_search(12, [&](int c) {
    asked.push_back(c);
    return 100.0 - c * 0.1;  // barely changes
  });
  EXPECT_EQ(asked, (std::vector<int>{12, 6, 3, 1}));
  EXPECT_EQ(s.knee, 1);
  EXPECT_THROW(halving_cpu_search(0, [](int) { return 1.0; }), std::invalid_argument);
}

TEST(CpuSearch, ToleranceIsRelativeToAllCores) {
  // 8 cores: 100; 4: 91 (within 10%); 2: 89 (outside).
  const std::map<int, double> t = {{8, 100}, {4, 91}, {2, 89}, {1, 50}};
  const CpuSearch s = halving_cpu_search(8, [&](int c) { return t.at(c); });
  EXPECT_EQ(s.knee, 4);
  EXPECT_EQ(s.points.size(), 3u);
}

TEST(Interpolate, PiecewiseLinearClamped) {
  const std::vector<double> x = {1, 2, 4}, y = {10, 20, 30};
  EXPECT_DOUBLE_EQ(interpolate(x, y, 0.5), 10.0);
  EXPECT_DOUBLE_EQ(interpolate(x, y, 1.5), 15.0);
  EXPECT_DOUBLE_EQ(interpolate(x, y, 3.0), 25.0);
  EXPECT_DOUBLE_EQ(interpolate(x, y, 9.0), 30.0);
  EXPECT_THROW(interpolate({}, {}, 1.0), std::invalid_argument);
}

TEST(DeriveMatrix, MinOfFullCacheRateAndFetch) {
  // Dataset 10 GB of 1 MB samples; storage 100 MB/s; cache unbounded.
  const MemoryModel mm{10e9, 1e6, 0.0, 100e6};
  const std::vector<double> full = {50, 150, 400};  // by CPU count
  const std::vector<double> mem = {0, 5e9, 9e9, 10e9};
  const auto m = derive_matrix(full, mem, mm);
  // fetch: 100, 200, 1000, inf.
  EXPECT_DOUBLE_EQ(m[0][0], 50.0);
  EXPECT_DOUBLE_EQ(m[1][0], 100.0);
  EXPECT_DOUBLE_EQ(m[1][1], 150.0);
  EXPECT_DOUBLE_EQ(m[2][1], 200.0);
  EXPECT_DOUBLE_EQ(m[2][2], 400.0);
  EXPECT_DOUBLE_EQ(m[2][3], 400.0);
  // Multi-GPU: the job's cache is per-GPU memory x GPUs.
  const auto m2 = derive_matrix(full, {2.5e9}, mm, 2);
  EXPECT_DOUBLE_EQ(m2[2][0], 200.0);
}

TEST(DeriveMatrix, MonotoneEvenWithNoisyInputs) {
  std::vector<std::vector<double>> m = {{5, 4}, {3, 6}};
  make_monotone(m);
  EXPECT_EQ(m, (std::vector<std::vector<double>>{{5, 5}, {5, 6}}));
}

TEST(ModelError, RelativeErrors) {
  const ModelError e = model_error({110, 90, 100}, {100, 100, 100});
  EXPECT_NEAR(e.relative[0], 0.1, 1e-12);
  EXPECT_NEAR(e.relative[1], -0.1, 1e-12);
  EXPECT_NEAR(e.mean_abs, 0.2 / 3.0, 1e-12);
  EXPECT_NEAR(e.max_abs, 0.1, 1e-12);
  EXPECT_THROW(model_error({1}, {1, 2}), std::invalid_argument);
}

}  // namespace
}  // namespace ckbench
