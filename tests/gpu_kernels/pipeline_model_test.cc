// Helpers of optimistic profiling: the halving CPU search, interpolation, monotone matrices and
// the model error (the pipeline formula itself: pipeline_formula_test.cc).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "ckbench/pipeline.h"

namespace ckbench {
namespace {

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

TEST(MakeMonotone, EvenWithNoisyInputs) {
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
