// Warnings about what a run's metrics measure (metrics.h, metric_warnings).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "clustersim/metrics.h"

namespace clustersim {

std::vector<std::string> metric_warnings(std::span<const JobSpec> jobs, const RunResult& result) {
  std::vector<std::string> warnings;
  const RunMetrics& m = result.metrics;
  if (m.jobs == 0 || result.jobs.size() != jobs.size() || jobs.empty()) return warnings;
  // The measured jobs: the window's (every job without one) that finished. A run no front end
  // described (window_first = window_last = 0) measured every job.
  const bool described = m.window_first != 0 || m.window_last != 0;
  const std::size_t first = static_cast<std::size_t>(m.window_first);
  const std::size_t last =
      described ? std::min<std::size_t>(static_cast<std::size_t>(m.window_last), jobs.size() - 1)
                : jobs.size() - 1;
  double longest = 0.0;
  std::size_t measured = 0, at_longest = 0;
  for (std::size_t i = first; i <= last; ++i) {
    if (result.jobs[i].finish_time < 0.0) continue;
    ++measured;
    if (jobs[i].duration > longest) {
      longest = jobs[i].duration;
      at_longest = 0;
    }
    at_longest += jobs[i].duration == longest ? 1 : 0;
  }
  // A cap is a point mass at the top: 1% of the jobs or more at exactly the longest duration
  // (so the p99 of the durations is the cap), and the p99 JCT equal to it (to rounding: those
  // jobs did not wait).
  const bool capped = measured > 0 && at_longest * 100 >= measured && at_longest >= 2;
  if (capped && std::fabs(m.jct_p99 - longest) <= 1e-9 * longest) {
    char text[320];
    std::snprintf(text, sizeof text,
                  "jct_p99 = %.6g s is the measured jobs' longest duration, which %.3g%% of them "
                  "have (a duration cap, e.g. the generator's max_duration_s): the p99 measures "
                  "the cap, not the policy; compare jct_p95 or queue_p99",
                  longest, 100.0 * static_cast<double>(at_longest) / static_cast<double>(measured));
    warnings.emplace_back(text);
  }
  return warnings;
}

}  // namespace clustersim
