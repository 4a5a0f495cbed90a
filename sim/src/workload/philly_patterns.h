// The philly generator's options that shape a workload like a real cluster's (generator.h):
// diurnal and weekly arrivals, VC weights and the quotas that match them.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>

#include "clustersim/generator.h"
#include "clustersim/random.h"

namespace clustersim::philly_patterns {

// Throws std::invalid_argument for profiles or VC weights the generator cannot use.
void validate(const GeneratorOptions& options);
// The first such problem as (key, message) (the config names the key); ("", "") when none.
std::pair<std::string, std::string> problem(const GeneratorOptions& options);
// The period of the options' arrival pattern: a week, a day (every weekday's rate equal), or 0
// (flat, or every hour's and day's rate equal).
double cycle_seconds(const GeneratorOptions& options);

// A non-homogeneous Poisson process of mean rate `mean_rate` (per second, over a week) whose
// rate at hour h of day d is mean_rate x hour[h] x weekday[d] (each profile normalised to mean
// 1), drawn by thinning (Lewis and Shedler, 1979): candidates of a homogeneous process at the
// highest rate, each kept with probability rate(t) / highest rate. Its draws come from a stream
// of their own, so that the jobs' other draws are those of the flat process with the same seed.
class DiurnalArrivals {
 public:
  static constexpr int kHoursPerWeek = 7 * 24;

  DiurnalArrivals(const GeneratorOptions& options, double mean_rate);
  // The next arrival time (seconds; t = 0 is hour 0 of day 0).
  double next();
  // The rate at time t relative to the mean (for tests and the docs' shape).
  double relative_rate(double t) const;

 private:
  Rng rng_;
  std::array<double, kHoursPerWeek> relative_{};  // by hour of the week, mean 1
  double highest_ = 0.0;                          // max of relative_
  double candidate_rate_ = 0.0;                   // mean_rate x highest_
  double clock_ = 0.0;
};

}  // namespace clustersim::philly_patterns
