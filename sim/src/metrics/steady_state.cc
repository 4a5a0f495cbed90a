// The steady-state rule (steady_state.h): a plan before the run, a verdict after it. Nothing here
// runs inside the engine's event loop.
#include "clustersim/steady_state.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>

namespace clustersim {

namespace {

// The warm-up ends when the jobs that arrived before hold at most this share of the steady
// state's work (in an empty cluster: M/G/inf).
constexpr double kFillResidual = 0.02;
// At least this many measured jobs, whatever the precision asks.
constexpr std::size_t kMinMeasured = 200;

std::string format(double value, int digits = 3) {
  std::ostringstream out;
  out.precision(digits);
  out << value;
  return out.str();
}

std::string days(double seconds) {
  return seconds >= 2 * 86400 ? format(seconds / 86400, 3) + " days"
                              : format(seconds / 3600, 3) + " h";
}

}  // namespace

double shape_mean_duration(const WorkloadShape& shape) {
  double mean = 0.0;
  for (const auto& [seconds, probability] : shape.durations) mean += seconds * probability;
  return mean;
}

namespace {
double longest_duration(const WorkloadShape& shape) {
  double longest = 0.0;
  for (const auto& point : shape.durations) longest = std::max(longest, point.first);
  return longest;
}
}  // namespace

double shape_rse_factor(const WorkloadShape& shape) {
  const double mean = shape_mean_duration(shape);
  if (!(mean > 0.0) || !(shape.mean_gpus > 0.0)) return 0.0;
  double square = 0.0;
  for (const auto& [seconds, probability] : shape.durations)
    square += seconds * seconds * probability;
  return std::sqrt(shape.mean_gpus_sq * square) / (shape.mean_gpus * mean);
}

double shape_fill_time(const WorkloadShape& shape, double fraction) {
  const double mean = shape_mean_duration(shape);
  if (!(mean > 0.0)) return 0.0;
  const auto residual = [&](double t) {
    double sum = 0.0;
    for (const auto& [seconds, probability] : shape.durations)
      sum += std::max(0.0, seconds - t) * probability;
    return sum;
  };
  double low = 0.0, high = longest_duration(shape);
  if (residual(low) <= fraction * mean) return 0.0;
  for (int i = 0; i < 100 && high - low > 1e-6 * (1.0 + high); ++i) {
    const double middle = 0.5 * (low + high);
    (residual(middle) <= fraction * mean ? high : low) = middle;
  }
  return high;
}

SteadyStatePlan plan_steady_state(const WorkloadShape& shape, const SteadyStateOptions& options,
                                  std::optional<std::size_t> jobs,
                                  std::optional<std::pair<std::size_t, std::size_t>> window) {
  if (!(shape.arrival_rate > 0.0) || !std::isfinite(shape.arrival_rate) ||
      shape.durations.empty() || !(shape_mean_duration(shape) > 0.0))
    throw std::invalid_argument("steady state: the workload needs arrivals and durations");
  if (!(options.precision > 0.0))
    throw std::invalid_argument("steady state: precision must be > 0");
  const double rate = shape.arrival_rate;
  SteadyStatePlan plan;
  plan.nominal_load = shape.load;
  plan.work_rate = rate * shape.mean_gpus * shape_mean_duration(shape);
  plan.cycle_s = shape.cycle_s;
  plan.warmup_s =
      options.warmup_s >= 0.0 ? options.warmup_s : shape_fill_time(shape, kFillResidual);
  const auto warmup_jobs = static_cast<std::size_t>(std::ceil(rate * plan.warmup_s));
  const double factor = shape_rse_factor(shape);
  plan.measured_needed = std::max(
      kMinMeasured, static_cast<std::size_t>(std::ceil(std::pow(factor / options.precision, 2))));
  // A cyclic rate: the measured arrivals span a whole cycle at least, not its busy or quiet part.
  if (shape.cycle_s > 0.0)
    plan.measured_needed =
        std::max(plan.measured_needed, static_cast<std::size_t>(std::ceil(rate * shape.cycle_s)));
  if (window) {
    plan.first = window->first;
    plan.last = window->second;
  } else if (jobs) {
    const std::size_t total = std::max<std::size_t>(*jobs, 1);
    plan.first = std::min(warmup_jobs, total / 2);
    plan.last = total - 1;
  } else {
    plan.first = warmup_jobs;
    plan.last = warmup_jobs + plan.measured_needed - 1;
  }
  const std::size_t measured = plan.last - plan.first + 1;
  plan.predicted_rse = factor / std::sqrt(static_cast<double>(measured));
  const double longest = longest_duration(shape);
  plan.drain_s = longest + options.drain_limit * static_cast<double>(measured) / rate;
  const double limit = static_cast<double>(plan.last + 1) + std::ceil(rate * plan.drain_s);
  plan.grow_limit = limit >= 4e9 ? std::size_t{4'000'000'000} : static_cast<std::size_t>(limit);
  // Enough at first for the window's last jobs to finish while arrivals go on (the stream grows
  // past it when the queue needs more).
  plan.generate =
      jobs ? std::max<std::size_t>(*jobs, plan.last + 1)
           : std::min(plan.grow_limit,
                      plan.last + 1 + static_cast<std::size_t>(std::ceil(rate * longest)));

  // How many times more jobs would do: with `jobs` given, the warm-up and the measured jobs
  // both come out of them; with a window, its own jobs (and a warm-up before it).
  const double needed_total = static_cast<double>(warmup_jobs + plan.measured_needed);
  const double short_measured =
      window ? static_cast<double>(plan.measured_needed) / static_cast<double>(measured) : 0.0;
  const double short_warmup =
      !window || plan.first < warmup_jobs ? needed_total / static_cast<double>(plan.last + 1) : 0.0;
  plan.more_jobs = std::max(short_measured, short_warmup);
  if (plan.more_jobs <= 1.0 + 1e-9) {
    plan.more_jobs = 0.0;
  } else if (plan.first < warmup_jobs) {
    plan.short_reason = "the warm-up takes about " + std::to_string(warmup_jobs) +
                        " jobs (the first " + days(plan.warmup_s) + " of arrivals); " +
                        std::to_string(plan.first) + " precede the measured jobs";
  } else {
    plan.short_reason = std::to_string(measured) +
                        " measured jobs give gpu_util a relative standard error of about " +
                        format(plan.predicted_rse, 2) + " (precision " +
                        format(options.precision, 2) + " needs " +
                        std::to_string(plan.measured_needed) + ")";
  }
  return plan;
}

std::optional<std::size_t> mser5(std::span<const double> series) {
  constexpr std::size_t kBatch = 5;
  const std::size_t batches = series.size() / kBatch;
  if (batches < 4) return std::nullopt;
  std::vector<double> means(batches);
  for (std::size_t b = 0; b < batches; ++b) {
    double sum = 0.0;
    for (std::size_t i = 0; i < kBatch; ++i) sum += series[b * kBatch + i];
    means[b] = sum / kBatch;
  }
  // Suffix sums of the batch means and their squares: MSER(d) in O(1) each.
  std::vector<double> sum(batches + 1, 0.0), square(batches + 1, 0.0);
  for (std::size_t b = batches; b-- > 0;) {
    sum[b] = sum[b + 1] + means[b];
    square[b] = square[b + 1] + means[b] * means[b];
  }
  std::size_t best = 0;
  double best_value = std::numeric_limits<double>::infinity();
  for (std::size_t d = 0; d <= batches / 2; ++d) {
    const auto left = static_cast<double>(batches - d);
    const double mean = sum[d] / left;
    const double sse = std::max(0.0, square[d] - left * mean * mean);
    const double value = sse / (left * left);
    if (value < best_value) {
      best_value = value;
      best = d;
    }
  }
  return best * kBatch;
}

double offered_load(std::span<const JobSpec> jobs, int cluster_gpus, double from, double to) {
  if (!(to > from) || cluster_gpus <= 0) return 0.0;
  double work = 0.0;
  for (const JobSpec& job : jobs)
    if (job.submit_time >= from && job.submit_time <= to) work += job.num_gpus * job.duration;
  return work / (static_cast<double>(cluster_gpus) * (to - from));
}

void describe_population(std::optional<std::pair<std::size_t, std::size_t>> window,
                         std::span<const JobSpec> jobs, RunResult& result) {
  RunMetrics& m = result.metrics;
  if (jobs.empty()) return;
  std::size_t first = 0, last = jobs.size() - 1;
  if (window) {
    first = std::min(window->first, last);
    last = std::min(window->second, last);
  }
  double start = std::numeric_limits<double>::infinity();
  for (std::size_t i = first; i <= last; ++i) {
    const bool rejected = i < result.jobs.size() && result.jobs[i].rejected;
    if (!rejected) start = std::min(start, jobs[i].submit_time);
  }
  if (!std::isfinite(start)) start = 0.0;
  m.window_first = first;
  m.window_last = last;
  m.measure_start = start;
  m.measure_end = start + m.makespan;
}

Trend fit_trend(std::span<const double> series, std::span<const double> times, double from,
                double to) {
  return fit_trend(series, times, from, to, 10);
}

Trend fit_trend(std::span<const double> series, std::span<const double> times, double from,
                double to, int parts) {
  Trend trend;
  if (!(to > from) || parts < 1) return trend;
  std::vector<double> sum(static_cast<std::size_t>(parts)), count(sum.size());
  for (std::size_t i = 0; i < series.size() && i < times.size(); ++i) {
    if (times[i] < from || times[i] > to) continue;
    const int part = std::min(parts - 1, static_cast<int>((times[i] - from) / (to - from) * parts));
    sum[part] += series[i];
    count[part] += 1.0;
  }
  std::vector<double> xs, ys;
  for (int p = 0; p < parts; ++p)
    if (count[p] > 0) {
      xs.push_back((p + 0.5) / parts * (to - from));
      ys.push_back(sum[p] / count[p]);
    }
  if (xs.size() < 5) return trend;
  const double n = static_cast<double>(xs.size());
  const double mx = std::accumulate(xs.begin(), xs.end(), 0.0) / n;
  const double my = std::accumulate(ys.begin(), ys.end(), 0.0) / n;
  double sxx = 0.0, sxy = 0.0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    sxx += (xs[i] - mx) * (xs[i] - mx);
    sxy += (xs[i] - mx) * (ys[i] - my);
  }
  const double slope = sxy / sxx;
  double residual = 0.0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double r = ys[i] - (my + slope * (xs[i] - mx));
    residual += r * r;
  }
  trend.slope = slope;
  trend.slope_se = std::sqrt(residual / (n - 2.0) / sxx);
  trend.growth = slope * (to - from);
  trend.mean = my;
  trend.parts = static_cast<int>(xs.size());
  return trend;
}

bool Trend::grows(double floor) const {
  return parts >= 5 && slope > 0.0 && slope > 3.0 * slope_se && growth > std::max(mean, floor);
}

namespace {

// The measured jobs' work: nominal (GPUs x durations) and held (GPU-seconds, slowdowns and
// overheads included), and the inflation held / nominal with its standard error from the means
// of kBatches consecutive batches (neighbours share the cluster's state, so their inflations are
// correlated: batch means, not jobs, are near independent).
struct MeasuredWork {
  double nominal = 0.0, held = 0.0, inflation = 0.0;
  double inflation_se = std::numeric_limits<double>::infinity();
  bool shares = false;  // a measured job shared a GPU: held GPU-seconds are not capacity used
};

MeasuredWork measured_work(const SteadyStatePlan& plan, std::span<const JobSpec> jobs,
                           const RunResult& result) {
  constexpr std::size_t kBatches = 20;
  MeasuredWork work;
  if (jobs.empty() || result.jobs.empty()) return work;
  const std::size_t last = std::min(plan.last, std::min(jobs.size(), result.jobs.size()) - 1);
  if (plan.first > last) return work;
  const std::size_t count = last - plan.first + 1;
  std::array<double, kBatches> nominal{}, held{};
  for (std::size_t i = plan.first; i <= last; ++i) {
    const JobRecord& record = result.jobs[i];
    if (record.rejected || record.finish_time < 0.0) continue;  // no held work to compare
    const JobSpec& job = jobs[i];
    work.shares |= job.gpu_milli != 1000 || job.mig_profile != 0 || record.colocated_seconds > 0;
    const double asked = job.num_gpus * job.duration;
    const std::size_t batch = (i - plan.first) * kBatches / count;
    nominal[batch] += asked;
    held[batch] += record.gpu_seconds;
    work.nominal += asked;
    work.held += record.gpu_seconds;
  }
  if (!(work.nominal > 0.0)) return work;
  work.inflation = work.held / work.nominal;
  if (count >= 2 * kBatches) {
    double sum = 0.0, square = 0.0;
    for (std::size_t b = 0; b < kBatches; ++b) {
      const double ratio = nominal[b] > 0.0 ? held[b] / nominal[b] : work.inflation;
      sum += ratio;
      square += ratio * ratio;
    }
    const double n = kBatches;
    const double variance = std::max(0.0, (square - sum * sum / n) / (n - 1.0));
    work.inflation_se = std::sqrt(variance / n);
  }
  return work;
}

// The work in the system at each sample time: GPUs x durations of the jobs arrived and not yet
// finished (a job that never finished stays in). Exact from the per-job records, so it has no
// drift: integrating sampled busy GPUs instead accumulates the sampling error as a random walk,
// which a long run's trend test reads as growth.
std::vector<double> work_in_system(std::span<const JobSpec> jobs, const RunResult& result,
                                   std::span<const double> times) {
  std::vector<std::pair<double, double>> arrivals, departures;
  const std::size_t count = std::min(jobs.size(), result.jobs.size());
  arrivals.reserve(count);
  departures.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    if (result.jobs[i].rejected) continue;
    const double work = jobs[i].num_gpus * jobs[i].duration;
    arrivals.emplace_back(jobs[i].submit_time, work);
    if (result.jobs[i].finish_time >= 0.0)
      departures.emplace_back(result.jobs[i].finish_time, work);
  }
  std::sort(arrivals.begin(), arrivals.end());
  std::sort(departures.begin(), departures.end());
  std::vector<double> in_system(times.size());
  double arrived = 0.0, departed = 0.0;
  std::size_t next_arrival = 0, next_departure = 0;
  for (std::size_t k = 0; k < times.size(); ++k) {
    while (next_arrival < arrivals.size() && arrivals[next_arrival].first <= times[k])
      arrived += arrivals[next_arrival++].second;
    while (next_departure < departures.size() && departures[next_departure].first <= times[k])
      departed += departures[next_departure++].second;
    in_system[k] = arrived - departed;
  }
  return in_system;
}

}  // namespace

void assess_steady_state(const SteadyStatePlan& plan, const SteadyStateOptions& options,
                         std::span<const JobSpec> jobs, int cluster_gpus, RunResult& result) {
  RunMetrics& m = result.metrics;
  m.util_rse = plan.predicted_rse;
  // The measured jobs' own offered load, over their arrival span.
  double first_arrival = std::numeric_limits<double>::infinity(), last_arrival = 0.0, work = 0.0;
  for (std::size_t i = plan.first; i <= plan.last && i < jobs.size(); ++i) {
    if (i < result.jobs.size() && result.jobs[i].rejected) continue;
    first_arrival = std::min(first_arrival, jobs[i].submit_time);
    last_arrival = std::max(last_arrival, jobs[i].submit_time);
    work += jobs[i].num_gpus * jobs[i].duration;
  }
  if (last_arrival > first_arrival && cluster_gpus > 0)
    m.offered_load = work / (static_cast<double>(cluster_gpus) * (last_arrival - first_arrival));
  // The load the cluster really faces: the nominal one x what placement and overheads add.
  const MeasuredWork measured = measured_work(plan, jobs, result);
  m.work_inflation = measured.inflation;
  m.nominal_load = plan.nominal_load > 0.0 ? plan.nominal_load
                   : cluster_gpus > 0      ? plan.work_rate / cluster_gpus
                                           : 0.0;
  m.effective_load = m.nominal_load * measured.inflation;
  // The measured jobs' realised effective load (their held work over their arrival span).
  const double brought =
      measured.inflation > 0.0 ? m.offered_load * measured.inflation : m.offered_load;
  std::string& note = result.steady_state_note;
  note.clear();
  bool overloaded = m.window_overloaded != 0;  // the window outlived the arrivals
  if (overloaded)
    note = "the measured jobs had not all finished " + days(plan.drain_s) +
           " after the last of them arrived (drain_limit): the queue does not empty at this load";
  bool too_short = plan.more_jobs > 1.0;
  double more = plan.more_jobs;
  if (too_short) note = plan.short_reason;
  // An effective load at or above 1 has no steady state, however the window looks. Judged on the
  // inflation's lower bound (3 standard errors); within it of 1 the run cannot tell. Shared GPUs
  // count their held time once per sharer, so that work is no measure of capacity used.
  constexpr double kAtOne = 1.0 - 1e-9;  // the load's own rounding
  if (!overloaded && !measured.shares && m.effective_load >= kAtOne) {
    const double low = m.nominal_load * (measured.inflation - 3.0 * measured.inflation_se);
    const std::string load = "the workload's effective load is " + format(m.effective_load, 4) +
                             " (nominal load " + format(m.nominal_load, 4) +
                             " x the measured jobs' work inflation " +
                             format(measured.inflation, 4) + ": placement slowdowns and overheads)";
    if (low >= kAtOne) {
      overloaded = true;
      note = load + ": at or above capacity, no steady state exists";
    } else {
      if (!too_short)
        note = load +
               ", within 3 standard errors of the inflation of 1: the run cannot tell an "
               "overload from a near-saturated steady state";
      too_short = true;
      more = std::max(more, 2.0);
    }
  }
  // The warm-up and the trend, from the samples up to the last measured arrival (the drain
  // after it is left out: the jobs arriving then are not the measured ones).
  std::vector<double> busy, queue, times;
  for (const Sample& sample : result.samples) {
    if (sample.time > last_arrival) break;
    busy.push_back(sample.busy_gpus);
    queue.push_back(sample.queue_length);
    times.push_back(sample.time);
  }
  const auto mean_from = [&](const std::vector<double>& y, double from, double to) {
    double sum = 0.0;
    std::size_t n = 0;
    for (std::size_t i = 0; i < y.size(); ++i)
      if (times[i] >= from && times[i] <= to) {
        sum += y[i];
        ++n;
      }
    return n ? sum / static_cast<double>(n) : 0.0;
  };
  // A cyclic arrival rate (a diurnal pattern): within a cycle the queue rises and falls with the
  // rate, and a window that is not whole cycles offers more or less than the mean. So the rules
  // below judge the whole cycles of the measured arrivals (from the first), and the warm-up
  // check, which assumes no cycle, does not apply.
  const bool cyclic = plan.cycle_s > 0.0;
  const int cycles = cyclic && last_arrival > first_arrival
                         ? static_cast<int>(std::floor((last_arrival - first_arrival) /
                                                       plan.cycle_s * (1.0 + 1e-12)))
                         : 0;
  const double cycles_end = first_arrival + cycles * plan.cycle_s;
  constexpr int kCyclesToJudge = 5;

  // The cluster carries clearly less than the measured jobs offer (slowdowns included); with a
  // cyclic rate, over the whole cycles: the busy GPUs sampled there against the work of the
  // measured jobs that arrived in them.
  const double tolerance = std::max(0.03, 2.0 * plan.predicted_rse);
  if (!cyclic && !overloaded && m.gpu_util < brought * (1.0 - tolerance)) {
    overloaded = true;
    note = "the cluster carried gpu_util " + format(m.gpu_util) + " of the " + format(brought) +
           " the measured jobs offered (" + format(m.offered_load) + " nominal)";
  }
  // The first whole cycle starts from a queue the warm-up (which assumes no cycle) left, not yet
  // the one this phase of the cycle has in steady state, and near saturation that queue takes
  // several cycles to settle: a shortfall over fewer than kCyclesToJudge whole cycles is a backlog
  // the run cannot tell from an overload (too short); from there on, the cycles after the first
  // are judged (as the trend is).
  if (cyclic && cycles >= 1 && cluster_gpus > 0 && !overloaded) {
    const double from = cycles >= 2 ? first_arrival + plan.cycle_s : first_arrival;
    double cycle_work = 0.0;
    for (std::size_t i = plan.first; i <= plan.last && i < jobs.size(); ++i)
      if (!(i < result.jobs.size() && result.jobs[i].rejected) && jobs[i].submit_time >= from &&
          jobs[i].submit_time < cycles_end)
        cycle_work += jobs[i].num_gpus * jobs[i].duration;
    const int judged = cycles >= 2 ? cycles - 1 : 1;
    const double offered = cycle_work / (judged * plan.cycle_s * cluster_gpus);
    const double offered_held = measured.inflation > 0.0 ? offered * measured.inflation : offered;
    const double carried = mean_from(busy, from, cycles_end) / cluster_gpus;
    if (carried < offered_held * (1.0 - tolerance)) {
      const std::string what =
          "over " +
          std::string(cycles >= 2 ? "the whole cycles after the first" : "the one whole cycle") +
          " of the arrival pattern the measured jobs span (" + std::to_string(judged) +
          "), the cluster's GPUs were busy " + format(carried) + " of the time, below the " +
          format(offered_held) + " those jobs offered (" + format(offered) + " nominal)";
      if (cycles >= kCyclesToJudge) {
        overloaded = true;
        note = what;
      } else {
        if (!too_short) note = what + ": a backlog still settling, or an overload";
        too_short = true;
        more = std::max(more, 2.0);
      }
    }
  }
  // The queue, or the work in the system, grows through the measurement: a long burst, the
  // cluster near saturation, or an overload. An overload when the measured jobs brought more than
  // the cluster's capacity by over twice the noise of that measure (util_rse): work conservation
  // then makes the backlog grow, whatever the nominal load says; or when the effective load is at
  // or above 1 but within its noise of it (the growth is the evidence that was missing).
  // With a cyclic rate: a part per whole cycle, fitted from kCyclesToJudge cycles on (fewer: no
  // trend).
  const std::vector<double> backlog = work_in_system(jobs, result, times);
  const auto trend_of = [&](const std::vector<double>& series) {
    if (!cyclic) return fit_trend(series, times, m.measure_start, last_arrival);
    return cycles >= kCyclesToJudge ? fit_trend(series, times, first_arrival, cycles_end, cycles)
                                    : Trend{};
  };
  const Trend queue_trend = trend_of(queue);
  const Trend backlog_trend = trend_of(backlog);
  m.queue_growth = queue_trend.growth;
  if (cluster_gpus > 0) m.backlog_trend = backlog_trend.slope / cluster_gpus;
  const bool queue_grows = queue_trend.grows(1.0), backlog_grows = backlog_trend.grows(0.0);
  if (!overloaded && (queue_grows || backlog_grows)) {
    const std::string what = queue_grows && backlog_grows
                                 ? "the queue and the work in the system grow"
                             : queue_grows ? "the queue grows"
                                           : "the work in the system grows";
    const bool at_capacity = !measured.shares && m.effective_load >= kAtOne;
    if (brought > 1.0 + 2.0 * plan.predicted_rse || at_capacity) {
      overloaded = true;
      note = what + " through the measured jobs' arrivals, and " +
             (at_capacity ? "the workload's effective load is " + format(m.effective_load, 4)
                          : "they brought " + format(brought) + " of the cluster's capacity") +
             " (slowdowns and overheads included)";
    } else {
      if (!too_short)
        note = what +
               " through the measured jobs' arrivals (a long burst, or the cluster near "
               "saturation)";
      too_short = true;
      more = std::max(more, 2.0);
    }
  }
  const std::optional<std::size_t> busy_cut = cyclic ? std::nullopt : mser5(busy);
  const std::optional<std::size_t> queue_cut = cyclic ? std::nullopt : mser5(queue);
  if (busy_cut && queue_cut) {
    const double warmup_end = std::max(times[*busy_cut], times[*queue_cut]);
    m.mser_warmup_end = warmup_end;
    // The warm-up MSER sees ends after the measurement began, and leaving it out moves the
    // measured utilisation by more than twice the precision asked (once is its noise): the
    // measured jobs still hold some of the warm-up.
    const double measured_busy = mean_from(busy, m.measure_start, last_arrival);
    const double detected_busy = mean_from(busy, warmup_end, last_arrival);
    if (warmup_end > m.measure_start && measured_busy > 0.0 &&
        std::abs(detected_busy - measured_busy) >
            2.0 * std::max(options.precision, plan.predicted_rse) * measured_busy) {
      if (!too_short && !overloaded)
        note =
            "MSER-5 sees the warm-up end at " + days(warmup_end) +
            ", after the measurement began (" + days(m.measure_start) +
            "), and leaving it out moves the measured busy GPUs by more than twice the precision";
      too_short = true;
      more = std::max(more, 2.0);
    }
  }
  m.window_overloaded = overloaded ? 1 : 0;
  m.window_too_short = !overloaded && too_short ? 1 : 0;
  m.more_jobs = m.window_too_short ? std::ceil(more * 10.0) / 10.0 : 0.0;
  m.steady_state = !overloaded && !too_short ? 1 : 0;
  m.window_extension = 1.0;  // simulate_config says how far it extended the plan
}

std::string steady_state_verdict(const RunResult& result) {
  const RunMetrics& m = result.metrics;
  const std::string why = result.steady_state_note.empty() ? "" : ": " + result.steady_state_note;
  if (m.steady_state) return "steady";
  if (m.window_overloaded) return "overloaded" + why;
  if (m.window_too_short) return "too short: run " + format(m.more_jobs) + "x more jobs" + why;
  return "";
}

bool is_measured(const RunMetrics& metrics, const JobRecord& record) {
  return record.index >= metrics.window_first && record.index <= metrics.window_last;
}

bool is_measured(const RunMetrics& metrics, const Sample& sample) {
  return sample.time >= metrics.measure_start && sample.time <= metrics.measure_end;
}

void keep_measured_rows(RunResult& result) {
  const RunMetrics& m = result.metrics;
  std::erase_if(result.jobs, [&](const JobRecord& r) { return !is_measured(m, r); });
  // Sample columns are by row (job columns by JobRecord::index): they lose the same rows.
  for (RunResult::Column& column : result.sample_columns) {
    if (column.values.size() != result.samples.size()) continue;
    std::size_t kept = 0;
    for (std::size_t row = 0; row < result.samples.size(); ++row)
      if (is_measured(m, result.samples[row])) column.values[kept++] = column.values[row];
    column.values.resize(kept);
  }
  std::erase_if(result.samples, [&](const Sample& s) { return !is_measured(m, s); });
}

}  // namespace clustersim
