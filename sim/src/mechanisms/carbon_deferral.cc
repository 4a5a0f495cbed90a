#include "mechanisms/carbon_deferral.h"

#include <algorithm>
#include <limits>

#include "metrics/power_meter.h"

namespace clustersim::internal {

CarbonDeferral::CarbonDeferral(const SimOptions& options)
    : supply_(options.supply), start_s_(options.supply.start_h * 3600.0) {}

void CarbonDeferral::attach(Host& host) {
  host_ = &host;
  // A timer that asks for a decision: the pass at that instant starts the job.
  release_timer_ = host.add_timer_kind(*this, TimerPhase::kAfterArrivals);
}

void CarbonDeferral::on_timer(const Timer& timer) {
  (void)timer;
  --pending_;
}

double CarbonDeferral::mean_intensity(Time from, double duration) const {
  const StepSeries& carbon = supply_.carbon;
  if (!(duration > 0.0)) return series_at(carbon, start_s_, from);
  const Time end = from + duration;
  double sum = 0.0;
  for (Time t = from; t < end;) {
    const Time step_end = std::min(end, next_step(carbon, start_s_, t));
    sum += series_at(carbon, start_s_, t) * (step_end - t);
    t = step_end;
  }
  return sum / duration;
}

double CarbonDeferral::release_time(Time now, double duration, double latest) const {
  const StepSeries& carbon = supply_.carbon;
  if (supply_.defer == SupplyOptions::Defer::kBelow) {
    for (Time t = now; t <= latest; t = next_step(carbon, start_s_, t))
      if (series_at(carbon, start_s_, t) <= supply_.defer_below_g_per_kwh) return t;
    return now;
  }
  Time best = now;
  double best_mean = mean_intensity(now, duration);
  for (Time t = next_step(carbon, start_s_, now); t <= latest; t = next_step(carbon, start_s_, t)) {
    const double mean = mean_intensity(t, duration);
    if (mean < best_mean) {
      best_mean = mean;
      best = t;
    }
  }
  return best;
}

void CarbonDeferral::on_arrival(std::uint32_t job) {
  const auto jobs = host_->view().jobs();
  if (value_row_.size() < jobs.size()) {  // jobs loaded since the last arrival
    const std::vector<std::int32_t> rows = value_rows(supply_, jobs, value_row_.size());
    value_row_.insert(value_row_.end(), rows.begin(), rows.end());
    release_.resize(jobs.size(), 0.0);
  }
  const std::int32_t row = value_row_[job];
  const JobValue value = row < 0 ? JobValue{} : supply_.values[static_cast<std::size_t>(row)];
  if (!value.deferrable) return;
  const Time now = host_->view().now();
  const double duration = jobs[job].spec->duration;
  double latest = now + supply_.defer_max_h * 3600.0;
  if (value.deadline_s > 0.0) latest = std::min(latest, now + value.deadline_s - duration);
  if (!(latest > now)) return;
  const Time release = release_time(now, duration, latest);
  if (!(release > now)) return;
  release_[job] = release;
  ++pending_;
  ++deferred_;
  host_->schedule(release, release_timer_, job);
}

}  // namespace clustersim::internal
