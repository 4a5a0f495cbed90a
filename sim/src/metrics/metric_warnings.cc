// Warnings about what a run's metrics measure (metrics.h, metric_warnings).
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "clustersim/metrics.h"

namespace clustersim {

namespace {

// The share of the measured jobs at the longest duration when that duration is the p99 JCT and a
// cap (a point mass at the top: 1% of the jobs or more, 2 or more, at exactly the longest
// duration, so the p99 of the durations is the cap, and the p99 JCT equal to it to rounding:
// those jobs did not wait); 0 otherwise, or when the rows do not line up with the jobs.
double duration_cap_share(std::span<const JobSpec> jobs, const RunResult& result) {
  const RunMetrics& m = result.metrics;
  if (m.jobs == 0 || result.jobs.size() != jobs.size() || jobs.empty()) return 0.0;
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
  const bool capped = measured > 0 && at_longest * 100 >= measured && at_longest >= 2;
  if (!capped || std::fabs(m.jct_p99 - longest) > 1e-9 * longest) return 0.0;
  return static_cast<double>(at_longest) / static_cast<double>(measured);
}

}  // namespace

void describe_duration_cap(std::span<const JobSpec> jobs, RunResult& result) {
  result.metrics.jct_p99_cap_share = duration_cap_share(jobs, result);
}

std::vector<std::string> metric_warnings(std::span<const JobSpec> jobs, const RunResult& result) {
  std::vector<std::string> warnings;
  const RunMetrics& m = result.metrics;
  // What the run found as it completed (its rows may since have been cut to the measured ones),
  // or, for a result no run completed, from the rows.
  const double share =
      m.jct_p99_cap_share > 0.0 ? m.jct_p99_cap_share : duration_cap_share(jobs, result);
  if (share > 0.0) {
    char text[320];
    std::snprintf(text, sizeof text,
                  "jct_p99 = %.6g s is the measured jobs' longest duration, which %.3g%% of them "
                  "have (a duration cap, e.g. the generator's max_duration_s): the p99 measures "
                  "the cap, not the policy; compare jct_p95 or queue_p99",
                  m.jct_p99, 100.0 * share);
    warnings.emplace_back(text);
  }
  // Auto-extension ran the run again with more jobs: what was done, and whether it sufficed.
  if (m.window_extension > 1.0) {
    char text[320];
    std::snprintf(
        text, sizeof text,
        "too short as planned: run again with %.3gx the planned measured jobs "
        "([metrics] extend_limit)%s",
        m.window_extension,
        m.window_too_short ? ", still too short at the limit: the result is that run's" : "");
    warnings.emplace_back(text);
  }
  return warnings;
}

}  // namespace clustersim
