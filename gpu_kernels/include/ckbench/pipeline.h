// Helpers of optimistic profiling (host-only, header-only): the halving CPU search, piecewise-
// linear interpolation, monotone matrices and the model's error against measurements. The
// pipeline's throughput formula itself is in pipeline_formula.h (one place, shared with the
// simulator).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <stdexcept>
#include <vector>

namespace ckbench {

inline constexpr double kUnbounded = std::numeric_limits<double>::infinity();

// Optimistic CPU search: measure at all cores, then halve while the throughput stays within
// `tolerance` (0.10 = 10%) of the all-core throughput. Every measured point is returned (sorted
// by cores, ascending); `knee` is the fewest cores still within tolerance.
struct CpuPoint {
  int cpus = 0;
  double throughput = 0.0;
};
struct CpuSearch {
  std::vector<CpuPoint> points;
  int knee = 0;
};

inline CpuSearch halving_cpu_search(int max_cpus, const std::function<double(int)>& measure_at,
                                    double tolerance = 0.10) {
  if (max_cpus < 1) throw std::invalid_argument("halving_cpu_search: max_cpus < 1");
  CpuSearch out;
  const double full = measure_at(max_cpus);
  out.points.push_back({max_cpus, full});
  out.knee = max_cpus;
  for (int c = max_cpus / 2; c >= 1; c /= 2) {
    const double t = measure_at(c);
    out.points.push_back({c, t});
    if (t < (1.0 - tolerance) * full) break;
    out.knee = c;
  }
  std::sort(out.points.begin(), out.points.end(),
            [](const CpuPoint& a, const CpuPoint& b) { return a.cpus < b.cpus; });
  return out;
}

// Piecewise-linear interpolation through (x, y) points sorted by x, clamped at the ends.
inline double interpolate(const std::vector<double>& xs, const std::vector<double>& ys, double x) {
  if (xs.empty() || xs.size() != ys.size()) throw std::invalid_argument("interpolate: bad input");
  if (x <= xs.front()) return ys.front();
  if (x >= xs.back()) return ys.back();
  const auto it = std::upper_bound(xs.begin(), xs.end(), x);
  const std::size_t i = static_cast<std::size_t>(it - xs.begin()) - 1;
  const double t = (x - xs[i]) / (xs[i + 1] - xs[i]);
  return ys[i] * (1.0 - t) + ys[i + 1] * t;
}

// Running maximum along both axes: more CPU or memory never makes a job slower (measurement
// noise can; the profile schema requires monotonic matrices).
inline void make_monotone(std::vector<std::vector<double>>& m) {
  for (std::size_t i = 0; i < m.size(); ++i) {
    for (std::size_t j = 0; j < m[i].size(); ++j) {
      if (i > 0) m[i][j] = std::max(m[i][j], m[i - 1][j]);
      if (j > 0) m[i][j] = std::max(m[i][j], m[i][j - 1]);
    }
  }
}

// Error of the analytic model against measured points: |predicted - measured| / measured.
struct ModelError {
  std::vector<double> relative;  // per point
  double mean_abs = 0.0;
  double max_abs = 0.0;
};

inline ModelError model_error(const std::vector<double>& predicted,
                              const std::vector<double>& measured) {
  if (predicted.size() != measured.size()) throw std::invalid_argument("model_error: sizes");
  ModelError e;
  for (std::size_t i = 0; i < measured.size(); ++i) {
    const double r = measured[i] > 0.0 ? (predicted[i] - measured[i]) / measured[i] : 0.0;
    e.relative.push_back(r);
    e.mean_abs += std::fabs(r);
    e.max_abs = std::max(e.max_abs, std::fabs(r));
  }
  if (!measured.empty()) e.mean_abs /= static_cast<double>(measured.size());
  return e;
}

}  // namespace ckbench
