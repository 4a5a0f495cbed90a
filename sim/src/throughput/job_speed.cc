#include "throughput/job_speed.h"

#include "clustersim/profile.h"

namespace clustersim::internal {

double JobSpeed::scaling_factor(const JobSpec& job, int gpus) const {
  const auto& m = mechanisms_;
  const auto speedup = [&](int g) {
    if (!m.scaling.empty()) {
      const auto found = m.scaling.find(normalize_model_name(job.model));
      if (found != m.scaling.end()) {
        const auto& points = found->second;
        if (g <= points.front().first) return points.front().second;
        if (g >= points.back().first) return points.back().second;
        std::size_t i = 1;
        while (points[i].first < g) ++i;
        const auto& [g0, s0] = points[i - 1];
        const auto& [g1, s1] = points[i];
        return s0 + (s1 - s0) * (g - g0) / static_cast<double>(g1 - g0);
      }
    }
    return 1.0 / ((1.0 - m.parallel_fraction) + m.parallel_fraction / g);  // Amdahl
  };
  return speedup(gpus) / speedup(job.num_gpus);
}

}  // namespace clustersim::internal
