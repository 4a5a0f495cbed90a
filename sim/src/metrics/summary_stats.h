// Summary statistics of run metrics, one definition for every engine (training and serving).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <vector>

#include "clustersim/metrics.h"

namespace clustersim::internal {

// Linear interpolation between closest ranks (numpy's default). Selects the two ranks with
// nth_element (linear time; no full sort); `values` is reordered.
inline double percentile(std::vector<double>& values, double q) {
  if (values.empty()) return 0.0;
  const double position = q * static_cast<double>(values.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const std::size_t upper = std::min(lower + 1, values.size() - 1);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(lower),
                   values.end());
  const double low = values[lower];
  const double high =
      upper == lower
          ? low
          : *std::min_element(values.begin() + static_cast<std::ptrdiff_t>(upper), values.end());
  return low + (high - low) * (position - static_cast<double>(lower));
}

// Percentiles of `values` at the ascending quantiles `qs` (as percentile() gives each) into
// `out`, and returns the largest value. Each selection works on the part above the previous
// one's rank only (nth_element leaves everything above a rank after it), so p50, p95, p99 and
// the maximum cost about two passes over the values instead of four. `values` is reordered.
template <std::size_t N>
inline double ascending_percentiles(std::vector<double>& values, const double (&qs)[N],
                                    double (&out)[N]) {
  const auto at = [&](std::size_t i) { return values.begin() + static_cast<std::ptrdiff_t>(i); };
  std::size_t from = 0;  // values[from..] are the ranks from `from` on, in any order
  for (std::size_t k = 0; k < N; ++k) {
    const double position = qs[k] * static_cast<double>(values.size() - 1);
    const auto lower = static_cast<std::size_t>(std::floor(position));
    const std::size_t upper = std::min(lower + 1, values.size() - 1);
    if (lower >= from) {
      std::nth_element(at(from), at(lower), values.end());
      from = lower;
    }
    const double low = values[lower];
    const double high = upper == lower ? low : *std::min_element(at(upper), values.end());
    out[k] = low + (high - low) * (position - static_cast<double>(lower));
  }
  return *std::max_element(at(from), values.end());
}

// jct_mean/_p50/_p95/_p99/_max and queue_mean/_p50/_p99 of `m` from the completed jobs' JCTs and
// queueing delays (both reordered; nothing is set when there are none).
inline void summarize_jcts_and_queues(std::vector<double>& jcts, std::vector<double>& queues,
                                      RunMetrics& m) {
  if (jcts.empty()) return;
  m.jct_mean = std::accumulate(jcts.begin(), jcts.end(), 0.0) / static_cast<double>(jcts.size());
  m.queue_mean =
      std::accumulate(queues.begin(), queues.end(), 0.0) / static_cast<double>(queues.size());
  double jct[3];
  m.jct_max = ascending_percentiles(jcts, {0.50, 0.95, 0.99}, jct);
  m.jct_p50 = jct[0];
  m.jct_p95 = jct[1];
  m.jct_p99 = jct[2];
  double queue[2];
  ascending_percentiles(queues, {0.50, 0.99}, queue);
  m.queue_p50 = queue[0];
  m.queue_p99 = queue[1];
}

}  // namespace clustersim::internal
