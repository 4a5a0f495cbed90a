#include "simulation/validate_options.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace clustersim::internal {

void validate_options(const SimOptions& options) {
  const auto& s = options.scheduler;
  if (!(s.lease_s >= 0.0) || !std::isfinite(s.lease_s))
    throw std::invalid_argument("scheduler.lease_s must be >= 0");
  if (!(s.checkpoint_s >= 0.0) || !std::isfinite(s.checkpoint_s))
    throw std::invalid_argument("scheduler.checkpoint_s must be >= 0");
  if (!(s.restore_s >= 0.0) || !std::isfinite(s.restore_s))
    throw std::invalid_argument("scheduler.restore_s must be >= 0");
  if (!(s.plan_interval_s >= 0.0) || !std::isfinite(s.plan_interval_s))
    throw std::invalid_argument("scheduler.plan_interval_s must be >= 0");
  if (!(s.realloc_s >= 0.0) || !std::isfinite(s.realloc_s))
    throw std::invalid_argument("scheduler.realloc_s must be >= 0");
  if (!(s.best_demand_tolerance >= 0.0) || !(s.best_demand_tolerance < 1.0))
    throw std::invalid_argument("scheduler.best_demand_tolerance must be in [0, 1)");
  if (!(options.sample_interval_s >= 0.0) || !std::isfinite(options.sample_interval_s))
    throw std::invalid_argument("metrics.sample_interval_s must be >= 0");
  const auto& m = options.mechanisms;
  if (!(m.defrag_threshold >= 0.0) || !(m.defrag_threshold <= 1.0))
    throw std::invalid_argument("mechanisms.defrag_threshold must be in [0, 1]");
  if (!(m.defrag_period_s > 0.0) || !std::isfinite(m.defrag_period_s))
    throw std::invalid_argument("mechanisms.defrag_period_s must be > 0");
  if (m.defrag_max_moves < 1)
    throw std::invalid_argument("mechanisms.defrag_max_moves must be >= 1");
  if (!(m.parallel_fraction >= 0.0) || !(m.parallel_fraction <= 1.0))
    throw std::invalid_argument("mechanisms.parallel_fraction must be in [0, 1]");
  for (const auto& [model, points] : m.scaling) {
    for (std::size_t i = 0; i < points.size(); ++i)
      if (points[i].first < 1 || !(points[i].second > 0.0) ||
          (i > 0 && points[i].first <= points[i - 1].first))
        throw std::invalid_argument("mechanisms.scaling." + model +
                                    ": expected [GPUs, speed-up] pairs, GPUs ascending, "
                                    "speed-ups > 0");
    if (points.empty()) throw std::invalid_argument("mechanisms.scaling." + model + " is empty");
  }
  if (!(m.checkpoint_interval_s >= 0.0) || !std::isfinite(m.checkpoint_interval_s))
    throw std::invalid_argument("mechanisms.checkpoint_interval_s must be >= 0");
  if (!(m.mtbf_h >= 0.0) || !std::isfinite(m.mtbf_h))
    throw std::invalid_argument("mechanisms.mtbf_h must be >= 0");
  const auto nodes = static_cast<std::uint32_t>(options.cluster.total_nodes());
  for (const NodeOutage& outage : m.failure_trace)
    if (outage.node >= nodes || !(outage.down >= 0.0) || !(outage.up > outage.down) ||
        !std::isfinite(outage.up))
      throw std::invalid_argument(
          "mechanisms.failure_trace: an outage needs a node of the "
          "cluster and 0 <= down < up");
}

}  // namespace clustersim::internal
