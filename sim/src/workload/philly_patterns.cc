// The philly generator's options that shape a workload like a real cluster's: diurnal and
// weekly arrivals (a non-homogeneous Poisson process, by thinning), VC weights and the quotas
// that match them. GPU-count-dependent durations are in generator.cc, beside the tables they
// draw from.
#include "workload/philly_patterns.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "options/declare.h"

namespace clustersim {

// The default profiles, measured from ../shared/traces/alibaba-gpu-v2023/
// openb_pod_list_default.csv (Alibaba's openb trace, alibaba/clusterdata
// cluster-trace-gpu-v2023; 8,152 pods over 149 days): its pods that ask for GPUs (num_gpu > 0),
// created after time 0 (pods created at 0 were already running when the trace began) and within
// its first 21 whole weeks: 5,947 creation times, counted by hour of the day ((t / 3600) mod 24)
// and by day ((t / 86400) mod 7) of the trace's own clock, each count divided by the mean count
// and rounded to 0.01. The trace does not say what time of day or weekday its t = 0 was, so hour
// 0 and day 0 are the trace's, not midnight or a Monday: the shape (a trough of 0.36 to a peak
// of 1.77 within a day, 0.53 to 1.39 within a week) is what the simulation depends on.
// (tests/sim/workload/generator_patterns_test.cc recomputes them from the trace when present.)
// The Philly traces here have no submission times (philly_runtime.csv holds runtimes only), so
// no Philly profile could be measured.
std::vector<double> default_rate_by_hour() {
  return {1.41, 1.34, 1.07, 1.35, 1.29, 1.01, 0.84, 0.88, 0.72, 0.42, 0.62, 0.64,
          0.46, 0.36, 0.38, 0.49, 0.78, 1.27, 1.77, 1.48, 1.09, 1.36, 1.35, 1.61};
}

std::vector<double> default_rate_by_weekday() { return {1.03, 0.85, 0.53, 0.88, 1.39, 1.08, 1.24}; }

namespace {

// "" when `profile` has `size` finite values >= 0 of positive sum, else what is wrong.
std::string profile_problem(const std::vector<double>& profile, std::size_t size,
                            const char* unit) {
  if (profile.size() != size) {
    std::ostringstream message;
    message << "expected " << size << " relative rates (one per " << unit << "), got "
            << profile.size();
    return message.str();
  }
  double sum = 0.0;
  for (double rate : profile) {
    if (!(rate >= 0.0) || !std::isfinite(rate))
      return "expected finite relative rates >= 0 (one per " + std::string(unit) + ")";
    sum += rate;
  }
  if (!(sum > 0.0)) return "the rates are all 0: no job would ever arrive";
  return "";
}

std::string weights_problem(const std::vector<double>& weights) {
  double sum = 0.0;
  for (double weight : weights) {
    if (!(weight >= 0.0) || !std::isfinite(weight))
      return "expected finite weights >= 0 (one per VC in `vcs`)";
    sum += weight;
  }
  if (!weights.empty() && !(sum > 0.0)) return "the weights are all 0: no VC would get a job";
  return "";
}

// The first problem of the options' patterns: (key, message), or ("", "").
std::pair<std::string, std::string> first_problem(const GeneratorOptions& o) {
  if (std::string p = weights_problem(o.vc_weights); !p.empty()) return {"vc_weights", p};
  if (!o.vc_weights.empty() && o.vc_weights.size() != o.vcs.size())
    return {"vc_weights", "expected one weight per VC in `vcs` (" + std::to_string(o.vcs.size()) +
                              "), got " + std::to_string(o.vc_weights.size())};
  if (o.arrival_pattern != "flat" && o.arrival_pattern != "diurnal")
    return {"arrival_pattern", "must be \"flat\" or \"diurnal\""};
  if (std::string p = profile_problem(o.rate_by_hour, 24, "hour of the day"); !p.empty())
    return {"rate_by_hour", p};
  if (std::string p = profile_problem(o.rate_by_weekday, 7, "day of the week"); !p.empty())
    return {"rate_by_weekday", p};
  if (!(o.gpu_duration_correlation >= 0.0 && o.gpu_duration_correlation <= 1.0))
    return {"gpu_duration_correlation", "must be in [0, 1]"};
  if (o.vc_quotas != "none" && o.vc_quotas != "weights")
    return {"vc_quotas", "must be \"none\" or \"weights\""};
  if (o.vc_quotas == "weights" && o.vcs.empty())
    return {"vc_quotas", "= \"weights\" needs the VCs: set `vcs` (and `vc_weights`)"};
  return {};
}

}  // namespace

namespace philly_patterns {

std::pair<std::string, std::string> problem(const GeneratorOptions& options) {
  return first_problem(options);
}

double cycle_seconds(const GeneratorOptions& options) {
  if (options.arrival_pattern != "diurnal") return 0.0;
  const auto all_equal = [](const std::vector<double>& v) {
    return std::adjacent_find(v.begin(), v.end(), std::not_equal_to<>()) == v.end();
  };
  if (!all_equal(options.rate_by_weekday)) return 7.0 * 86400.0;
  return all_equal(options.rate_by_hour) ? 0.0 : 86400.0;
}

void validate(const GeneratorOptions& options) {
  const auto [key, message] = first_problem(options);
  if (!key.empty()) throw std::invalid_argument("generator " + key + ": " + message);
}

DiurnalArrivals::DiurnalArrivals(const GeneratorOptions& options, double mean_rate)
    : rng_(stream_seed(options.seed, 0xd1a27a1ULL)) {
  validate(options);
  const auto mean = [](const std::vector<double>& v) {
    return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  };
  const double hour_mean = mean(options.rate_by_hour);
  const double day_mean = mean(options.rate_by_weekday);
  // The product of two profiles of mean 1 has mean 1 over the week: the mean rate is kept.
  for (int h = 0; h < kHoursPerWeek; ++h) {
    relative_[static_cast<std::size_t>(h)] =
        options.rate_by_hour[static_cast<std::size_t>(h % 24)] / hour_mean *
        (options.rate_by_weekday[static_cast<std::size_t>(h / 24)] / day_mean);
  }
  highest_ = *std::max_element(relative_.begin(), relative_.end());
  candidate_rate_ = mean_rate * highest_;
}

double DiurnalArrivals::relative_rate(double t) const {
  const double hours = std::floor(t / 3600.0);
  const auto hour_of_week = static_cast<std::size_t>(std::fmod(hours, kHoursPerWeek));
  return relative_[std::min<std::size_t>(hour_of_week, kHoursPerWeek - 1)];
}

double DiurnalArrivals::next() {
  // A rate of 0 over whole hours is allowed (the profile's sum is > 0, so a candidate is kept
  // within a week's candidates with probability > 0).
  for (;;) {
    clock_ += -std::log(1.0 - rng_.uniform()) / candidate_rate_;
    if (rng_.uniform() * highest_ < relative_rate(clock_)) return clock_;
  }
}

}  // namespace philly_patterns

std::vector<int> vc_quotas_from_weights(const std::vector<double>& weights, std::size_t vcs,
                                        int gpus) {
  if (vcs == 0) throw std::invalid_argument("VC quotas: no VCs");
  if (!weights.empty() && weights.size() != vcs)
    throw std::invalid_argument("VC quotas: expected one weight per VC");
  if (std::string p = weights_problem(weights); !p.empty())
    throw std::invalid_argument("VC quotas: " + p);
  if (gpus < 0 || static_cast<std::size_t>(gpus) < vcs)
    throw std::invalid_argument("VC quotas: " + std::to_string(vcs) + " VCs need at least " +
                                std::to_string(vcs) + " GPUs (a quota is at least 1), the " +
                                "cluster has " + std::to_string(gpus));
  std::vector<double> share(vcs, 1.0);
  if (!weights.empty()) share = weights;
  const double sum = std::accumulate(share.begin(), share.end(), 0.0);
  // Largest remainder: floor(gpus x share) each, then one more GPU to each of the largest
  // remainders until they add up.
  std::vector<int> quotas(vcs, 0);
  std::vector<double> remainder(vcs, 0.0);
  int given = 0;
  for (std::size_t i = 0; i < vcs; ++i) {
    const double exact = static_cast<double>(gpus) * share[i] / sum;
    const double whole = std::floor(exact);
    quotas[i] = static_cast<int>(whole);
    remainder[i] = exact - whole;
    given += quotas[i];
  }
  std::vector<std::size_t> order(vcs);
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return remainder[a] > remainder[b]; });
  for (std::size_t k = 0; given < gpus; ++k, ++given) ++quotas[order[k % vcs]];
  // A quota of 0 would leave the VC's jobs nowhere to run: one GPU from the largest quota.
  for (int& quota : quotas) {
    if (quota > 0) continue;
    --*std::max_element(quotas.begin(), quotas.end());
    quota = 1;
  }
  return quotas;
}

namespace options {

// The keys of the philly generator's cluster-like patterns (declare_generator_keys calls it).
void declare_philly_pattern_keys(KeyRegistry& keys) {
  const auto key = [&](std::string name, auto ref) {
    return field<GeneratorOptions>(keys, "workload." + std::move(name), ref)
        .when("workload.generator", {"philly"})
        .component("generators")
        .training_only();
  };
  const auto profile_check = [](std::size_t size, const char* unit) {
    return [size, unit](const OptionValue& value) {
      return profile_problem(std::get<std::vector<double>>(value), size, unit);
    };
  };
  key(
      "vc_weights", [](auto& g) -> auto& { return g.vc_weights; })
      .expected("a list of numbers >= 0, one per VC in `vcs`")
      .check([](const OptionValue& value) {
        return weights_problem(std::get<std::vector<double>>(value));
      })
      .default_note("`[]` (uniform)")
      .doc(
          "philly: a job's VC is drawn with these relative weights, one per VC in `vcs` (e.g. "
          "Philly's VC sizes, `../shared/traces/philly/philly_vc.csv`); empty = uniform.");
  key(
      "vc_quotas", [](auto& g) -> auto& { return g.vc_quotas; })
      .choices({"none", "weights"})
      .doc(
          "`weights`: the cluster's VCs are `vcs`, with GPU quotas in proportion to "
          "`vc_weights` (uniform without), summing to the cluster's GPUs (largest remainders; "
          "each at least 1); then `[cluster] vcs` is not set. `none`: as `[cluster] "
          "vcs` says.");
  key(
      "arrival_pattern", [](auto& g) -> auto& { return g.arrival_pattern; })
      .choices({"flat", "diurnal"})
      .doc(
          "philly: `flat` = Poisson arrivals at a constant rate; `diurnal` = a non-homogeneous "
          "Poisson process (by thinning) whose rate at hour h of day d is the mean rate x "
          "`rate_by_hour[h]` x `rate_by_weekday[d]` (each normalised to mean 1, so `load` is "
          "the weekly mean). Job sizes and durations are those of `flat` with the same seed; "
          "the steady-state plan measures at least a whole cycle.");
  key(
      "rate_by_hour", [](auto& g) -> auto& { return g.rate_by_hour; })
      .when("workload.arrival_pattern", {"diurnal"})
      .expected("24 relative rates >= 0, hour 0 first")
      .check(profile_check(24, "hour of the day"))
      .default_note("measured (openb trace)")
      .doc(
          "Relative arrival rate by hour of the day (24 values). Default: measured from the GPU "
          "pods' creation times in Alibaba's openb trace "
          "([`sim/README.md`](sim/README.md#workloads)).");
  key(
      "rate_by_weekday", [](auto& g) -> auto& { return g.rate_by_weekday; })
      .when("workload.arrival_pattern", {"diurnal"})
      .expected("7 relative rates >= 0, day 0 first")
      .check(profile_check(7, "day of the week"))
      .default_note("measured (openb trace)")
      .doc(
          "Relative arrival rate by day of the week (7 values; all equal: a daily cycle only). "
          "Default: measured as `rate_by_hour`.");
  key(
      "gpu_duration_correlation", [](auto& g) -> auto& { return g.gpu_duration_correlation; })
      .range(0.0, 1.0)
      .doc(
          "philly: how strongly a job's duration follows its GPU count (0 = independent): with "
          "this probability its duration quantile is the one that drew its GPU count, so larger "
          "jobs run longer, as in Philly (Jeon et al., ATC'19). Both distributions stay as they "
          "are (the draws' Spearman correlation is this value; the GPU counts' ties make the "
          "jobs' own lower), and `load` counts it.");
}

}  // namespace options

}  // namespace clustersim
