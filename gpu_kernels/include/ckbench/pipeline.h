// The analytic input-pipeline model of optimistic profiling (host-only, header-only).
//
//   storage -> cache of M bytes -> C CPU workers -> H2D -> GPU step
//
// Job throughput (samples/s) = min(GPU rate, prep rate(C), H2D rate, fetch rate(m)), where with
// a cache holding the fraction h = min(1, M / D) of a dataset of D bytes and B bytes per sample,
// fetch rate = min(cache_bw / (h * B), storage_bw / ((1 - h) * B)): the cache and the storage
// serve their shares in parallel; a zero share (or a bandwidth <= 0, "unbounded") never limits.
// The same formula is in sim/src/core/profile_throughput_model.cc (the simulator side does not
// depend on this folder).
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

inline double cache_hit_fraction(double cache_bytes, double dataset_bytes) {
  if (dataset_bytes <= 0.0) return 1.0;
  return std::clamp(cache_bytes / dataset_bytes, 0.0, 1.0);
}

// Samples/s the cache + storage can deliver. Bandwidths in bytes/s.
inline double fetch_rate(double cache_bytes, double dataset_bytes, double bytes_per_sample,
                         double cache_bw, double storage_bw) {
  if (bytes_per_sample <= 0.0) return kUnbounded;
  const double h = cache_hit_fraction(cache_bytes, dataset_bytes);
  const double from_cache =
      h > 0.0 && cache_bw > 0.0 ? cache_bw / (h * bytes_per_sample) : kUnbounded;
  const double from_storage =
      h < 1.0 && storage_bw > 0.0 ? storage_bw / ((1.0 - h) * bytes_per_sample) : kUnbounded;
  return std::min(from_cache, from_storage);
}

struct StageRates {
  double gpu = kUnbounded;    // GPU step rate with data ready
  double prep = kUnbounded;   // CPU preprocessing at the C cores given
  double h2d = kUnbounded;    // host-to-device copy of preprocessed samples
  double fetch = kUnbounded;  // cache + storage
};

inline double pipeline_throughput(const StageRates& r) {
  return std::min({r.gpu, r.prep, r.h2d, r.fetch});
}

// Which stage binds (ties go to the earlier stage in the list gpu, prep, h2d, fetch).
inline const char* bottleneck(const StageRates& r) {
  const double t = pipeline_throughput(r);
  if (r.gpu == t) return "gpu";
  if (r.prep == t) return "prep";
  if (r.h2d == t) return "h2d";
  return "fetch";
}

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

// The CPU x memory matrix: tput[i][j] = min(full_cache_tput(cpus[i]), fetch(mem[j])), where
// full_cache_tput is the measured (or stage-composed) throughput at a full cache, and memory
// per GPU mem[j] (bytes, times `gpus` for the job's whole cache) caches part of the dataset.
struct MemoryModel {
  double dataset_bytes = 0.0;
  double bytes_per_sample = 0.0;
  double cache_bw = 0.0;    // bytes/s, per GPU; <= 0 = unbounded
  double storage_bw = 0.0;  // bytes/s, per GPU
};

inline std::vector<std::vector<double>> derive_matrix(const std::vector<double>& full_cache_tput,
                                                      const std::vector<double>& mem_bytes_per_gpu,
                                                      const MemoryModel& mm, int gpus = 1) {
  std::vector<std::vector<double>> m(full_cache_tput.size(),
                                     std::vector<double>(mem_bytes_per_gpu.size()));
  for (std::size_t i = 0; i < full_cache_tput.size(); ++i) {
    for (std::size_t j = 0; j < mem_bytes_per_gpu.size(); ++j) {
      const double fetch = fetch_rate(mem_bytes_per_gpu[j] * gpus, mm.dataset_bytes,
                                      mm.bytes_per_sample, mm.cache_bw, mm.storage_bw);
      m[i][j] = std::min(full_cache_tput[i], fetch);
    }
  }
  make_monotone(m);
  return m;
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
