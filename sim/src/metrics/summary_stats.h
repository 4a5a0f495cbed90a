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

// jct_mean/_p50/_p95/_p99/_max and queue_mean/_p50/_p99 of `m` from the completed jobs' JCTs and
// queueing delays (both reordered; nothing is set when there are none).
inline void summarize_jcts_and_queues(std::vector<double>& jcts, std::vector<double>& queues,
                                      RunMetrics& m) {
  if (jcts.empty()) return;
  m.jct_mean = std::accumulate(jcts.begin(), jcts.end(), 0.0) / static_cast<double>(jcts.size());
  m.queue_mean =
      std::accumulate(queues.begin(), queues.end(), 0.0) / static_cast<double>(queues.size());
  m.jct_p50 = percentile(jcts, 0.50);
  m.jct_p95 = percentile(jcts, 0.95);
  m.jct_p99 = percentile(jcts, 0.99);
  m.jct_max = *std::max_element(jcts.begin(), jcts.end());
  m.queue_p50 = percentile(queues, 0.50);
  m.queue_p99 = percentile(queues, 0.99);
}

}  // namespace clustersim::internal
