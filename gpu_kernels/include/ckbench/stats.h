// Sample statistics and the noise-based stopping rule shared by every benchmark (host-only,
// header-only: unit-tested without a GPU).
//
// Like nvbench, a benchmark repeats a measurement until its noise is below a threshold: here the
// noise is the relative half-width of the 95% confidence interval of the mean,
// 1.96 * stddev / (mean * sqrt(n)). It stops when, after at least `min_samples` samples and
// `min_time_s` of measured time, noise <= `max_noise`; or when `max_time_s` (measured time) or
// `max_samples` is reached, in which case the result is flagged as not converged.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <vector>

namespace ckbench {

struct Stats {
  std::size_t n = 0;
  double mean = 0.0;
  double stddev = 0.0;  // sample standard deviation (n - 1)
  double min = 0.0;
  double max = 0.0;
  double median = 0.0;
  double total = 0.0;
  // Relative half-width of the 95% confidence interval of the mean (0 when n < 2 or mean 0).
  double noise = 0.0;
  // stddev / mean: the spread of single samples.
  double rel_stddev = 0.0;
};

inline Stats compute_stats(std::vector<double> samples) {
  Stats s;
  s.n = samples.size();
  if (s.n == 0) return s;
  double sum = 0.0;
  for (double x : samples) sum += x;
  s.total = sum;
  s.mean = sum / static_cast<double>(s.n);
  double sq = 0.0;
  for (double x : samples) sq += (x - s.mean) * (x - s.mean);
  s.stddev = s.n > 1 ? std::sqrt(sq / static_cast<double>(s.n - 1)) : 0.0;
  std::sort(samples.begin(), samples.end());
  s.min = samples.front();
  s.max = samples.back();
  s.median = s.n % 2 == 1 ? samples[s.n / 2] : 0.5 * (samples[s.n / 2 - 1] + samples[s.n / 2]);
  if (s.mean != 0.0) {
    s.rel_stddev = s.stddev / std::fabs(s.mean);
    if (s.n > 1) s.noise = 1.96 * s.rel_stddev / std::sqrt(static_cast<double>(s.n));
  }
  return s;
}

struct StopRule {
  double max_noise = 0.005;  // 0.5% relative CI half-width
  std::size_t min_samples = 10;
  std::size_t max_samples = 100000;
  double min_time_s = 0.2;   // of measured time
  double max_time_s = 10.0;  // of measured time; the result is then flagged not converged
};

inline StopRule make_rule(double max_noise, std::size_t min_samples, double min_time_s,
                          double max_time_s) {
  StopRule r;
  r.max_noise = max_noise;
  r.min_samples = min_samples;
  r.min_time_s = min_time_s;
  r.max_time_s = max_time_s;
  return r;
}

enum class StopReason { kConverged, kTimeout, kMaxSamples };

inline const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::kConverged:
      return "converged";
    case StopReason::kTimeout:
      return "timeout";
    case StopReason::kMaxSamples:
      return "max_samples";
  }
  return "?";
}

// Decides whether to stop after the samples so far (false: take another sample).
inline bool should_stop(const StopRule& rule, const Stats& s, StopReason* reason) {
  if (s.n >= rule.min_samples && s.total >= rule.min_time_s && s.noise <= rule.max_noise) {
    *reason = StopReason::kConverged;
    return true;
  }
  if (s.total >= rule.max_time_s && s.n >= 2) {
    *reason = StopReason::kTimeout;
    return true;
  }
  if (s.n >= rule.max_samples) {
    *reason = StopReason::kMaxSamples;
    return true;
  }
  return false;
}

struct Measurement {
  Stats stats;  // of the per-sample times (seconds)
  StopReason reason = StopReason::kConverged;
  bool converged() const { return reason == StopReason::kConverged; }
};

// Welford accumulator: mean, variance and noise in O(1) per sample.
class RunningStats {
 public:
  void add(double x) {
    ++n_;
    total_ += x;
    const double d = x - mean_;
    mean_ += d / static_cast<double>(n_);
    m2_ += d * (x - mean_);
  }
  // n, mean, stddev, total, noise and rel_stddev filled (no min/max/median).
  Stats snapshot() const {
    Stats s;
    s.n = n_;
    s.total = total_;
    s.mean = mean_;
    s.stddev = n_ > 1 ? std::sqrt(m2_ / static_cast<double>(n_ - 1)) : 0.0;
    if (mean_ != 0.0) {
      s.rel_stddev = s.stddev / std::fabs(mean_);
      if (n_ > 1) s.noise = 1.96 * s.rel_stddev / std::sqrt(static_cast<double>(n_));
    }
    return s;
  }

 private:
  std::size_t n_ = 0;
  double total_ = 0.0, mean_ = 0.0, m2_ = 0.0;
};

// Runs `sample()` (returns the seconds one sample took) until the stopping rule says stop.
// `warmup` samples are taken first and discarded.
inline Measurement measure(const std::function<double()>& sample, const StopRule& rule = {},
                           std::size_t warmup = 2) {
  for (std::size_t i = 0; i < warmup; ++i) sample();
  std::vector<double> times;
  RunningStats running;
  Measurement m;
  for (;;) {
    const double t = sample();
    times.push_back(t);
    running.add(t);
    if (should_stop(rule, running.snapshot(), &m.reason)) break;
  }
  m.stats = compute_stats(std::move(times));
  return m;
}

}  // namespace ckbench
