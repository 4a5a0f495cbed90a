// Steady-state measurement of an open workload (arrivals that keep coming, as the generators
// make them): which jobs to measure, how long arrivals go on, and a verdict on what was measured.
// Pure computation, outside the engine: a plan before the run (a window of job positions and a
// drain limit, which Simulation already knows how to run), an assessment after it (from the
// run's records, samples and the jobs). sim/README.md ("Steady state") states the rule.
//
//   warm-up   the jobs expected to arrive before the cluster has filled: the time t after which
//             jobs that arrived before would hold less than 2% of the steady-state work had
//             nothing queued (E[(D - t)+] <= 0.02 E[D]), unless set (`warmup_s`);
//   measured  the next jobs, as many as give the measured GPU utilisation a relative standard
//             error of `precision` (an M/G/inf bound: R / sqrt(jobs), R = sqrt(E[g^2] E[D^2]) /
//             (E[g] E[D])), unless `jobs` or a window says how many;
//   drain     arrivals go on until every measured job has finished, for at most the longest
//             duration plus `drain_limit` x the measured jobs' arrival span after the last
//             measured arrival; then they stop (and the window is overloaded).
//
// The verdict, per run (sim/README.md, "Steady state", states it with its false-alarm rates):
//   overloaded  the window did not drain while jobs kept arriving; or the workload's effective
//               load (its nominal load x the measured jobs' work inflation: held GPU-seconds,
//               placement slowdowns and overheads included, over their nominal GPU x duration)
//               is at least 1 beyond 3 standard errors of the inflation: no steady state exists;
//               or the cluster carried clearly less than the measured jobs' effective work; or
//               the queue or the work in the system grows through the measured arrivals while those
//               jobs brought more than the cluster's capacity by over twice their noise, or
//               while the effective load is at or above 1 within its noise;
//   too short   fewer measured jobs than `precision` needs; the effective load is within its
//               noise of 1 (the run cannot tell); the queue or the work in the system grows through
//               the measured arrivals; or the warm-up MSER-5 detects on the sampled busy GPUs and
//               queue length moves the measured means by more than `precision`: run N x more jobs;
//   steady      otherwise.
// A cyclic arrival rate (a diurnal pattern) is judged over whole cycles of the measured arrivals
// (carried against offered work, a trend part per cycle; no MSER-5); over fewer than 5 cycles a
// shortfall or growth makes the run too short, never overloaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "clustersim/job.h"
#include "clustersim/metrics.h"

namespace clustersim {

// What the rule needs to know of a workload's jobs: a Poisson stream at `arrival_rate` (jobs per
// second) of jobs asking for g GPUs for a duration D, drawn independently.
struct WorkloadShape {
  double arrival_rate = 0.0;
  double mean_gpus = 1.0;     // E[g]
  double mean_gpus_sq = 1.0;  // E[g^2]
  // The period of a cyclic arrival rate (a diurnal pattern: `arrival_rate` is its mean), whose
  // whole cycle the measured jobs then span at least; 0 = a constant rate.
  double cycle_s = 0.0;
  // D's distribution as (seconds, probability) points (a fine quantile grid; the probabilities
  // sum to 1).
  std::vector<std::pair<double, double>> durations;
  // The generator's nominal load (its expected GPU demand x duration per second / cluster GPUs)
  // when it states one exactly; 0: taken from the moments above.
  double load = 0.0;
};

// [metrics] steady_state, precision, warmup_s, drain_limit, extend_limit.
struct SteadyStateOptions {
  double precision = 0.03;  // target relative standard error of gpu_util, per run
  double warmup_s = -1.0;   // < 0: from the workload (the time it takes to fill)
  double drain_limit = 0.25;
  // A too-short run is run again with its measured jobs multiplied by the verdict's factor, up to
  // this many times the plan's (simulate_config, extend_measurement); 1: never.
  double extend_limit = 1.0;
};

struct SteadyStatePlan {
  std::size_t first = 0, last = 0;  // the measured jobs' positions (inclusive)
  std::size_t generate = 0;         // jobs to generate at first (the stream grows as needed)
  std::size_t grow_limit = 0;       // arrivals stop after this many jobs (the drain limit)
  double warmup_s = 0.0;            // arrivals before the first measured job (expected)
  double drain_s = 0.0;             // the drain limit after the last measured arrival (expected)
  std::size_t measured_needed = 0;  // measured jobs `precision` needs
  double predicted_rse = 0.0;       // of gpu_util with the measured jobs planned
  double more_jobs = 0.0;           // > 1: the plan is short of jobs by this factor (too short)
  std::string short_reason;         // why, when more_jobs > 1
  double nominal_load = 0.0;        // the shape's `load` (0: unknown, see work_rate)
  double work_rate = 0.0;           // expected nominal GPU-seconds arriving per second
  double cycle_s = 0.0;             // the shape's cycle (0: a constant arrival rate)
};

// Moments and times of a shape.
double shape_mean_duration(const WorkloadShape& shape);
// R: the measured utilisation's relative standard error times sqrt(measured jobs).
double shape_rse_factor(const WorkloadShape& shape);
// The time after which jobs that arrived before hold at most `fraction` of the steady work.
double shape_fill_time(const WorkloadShape& shape, double fraction);

// The plan. `jobs`: the jobs the run generates before its drain (set by the user: the warm-up
// and the measured jobs come out of them); `window`: measured positions set by hand (then only
// the drain and the precision are planned). Throws std::invalid_argument for a shape without
// arrivals or durations.
SteadyStatePlan plan_steady_state(const WorkloadShape& shape, const SteadyStateOptions& options,
                                  std::optional<std::size_t> jobs,
                                  std::optional<std::pair<std::size_t, std::size_t>> window);

// MSER-5 (White 1997; Franklin & White 2008): the truncation point, in observations, of a series
// that minimises the squared standard error of the mean of what remains, over batch means of 5
// and truncations of at most half the series. nullopt for fewer than 20 observations.
std::optional<std::size_t> mser5(std::span<const double> series);

// The verdict fields of result.metrics (offered_load, steady_state, window_too_short,
// window_overloaded, more_jobs, mser_warmup_s, util_rse, nominal_load, effective_load,
// work_inflation, queue_growth, backlog_trend) from the run's records, samples and
// jobs. Samples are needed for MSER-5 (without them the warm-up is not checked).
void assess_steady_state(const SteadyStatePlan& plan, const SteadyStateOptions& options,
                         std::span<const JobSpec> jobs, int cluster_gpus, RunResult& result);

// The measured population of any run (RunMetrics::measure_start, measure_end, window_first,
// window_last): the window's jobs and the time from the first one's submission to the last
// one's finish, or every job and the whole run without a window.
void describe_population(std::optional<std::pair<std::size_t, std::size_t>> window,
                         std::span<const JobSpec> jobs, RunResult& result);

// The verdict in words: "steady", "overloaded: WHY", "too short: run N x more jobs: WHY", or ""
// when the run was not assessed.
std::string steady_state_verdict(const RunResult& result);

// Keeps only the measured rows of a result: its jobs at positions [window_first, window_last]
// and its samples within [measure_start, measure_end], with the same rows of its sample columns.
void keep_measured_rows(RunResult& result);
// Whether job record `record` / sample `sample` is in the measured population.
bool is_measured(const RunMetrics& metrics, const JobRecord& record);
bool is_measured(const RunMetrics& metrics, const Sample& sample);

// The realised offered load of jobs submitted in [from, to]: their GPUs x durations over
// (cluster GPUs x (to - from)); 0 for an empty span.
double offered_load(std::span<const JobSpec> jobs, int cluster_gpus, double from, double to);

// A least-squares line through the means of a series over 10 equal parts of [from, to] (times
// outside are ignored): its slope (per second) and the slope's standard error, the fitted change
// over the span, and the series' mean. `parts` < 5 (too few samples): nothing fitted.
struct Trend {
  double slope = 0.0, slope_se = 0.0, growth = 0.0, mean = 0.0;
  int parts = 0;
  // Growth beyond noise and beyond the level itself: the slope is above 3 standard errors and
  // adds more than the series' mean (and more than `floor`) over the span.
  bool grows(double floor) const;
};
Trend fit_trend(std::span<const double> series, std::span<const double> times, double from,
                double to);
// The same over `parts` equal parts (whole cycles of a cyclic arrival rate: a part per cycle).
Trend fit_trend(std::span<const double> series, std::span<const double> times, double from,
                double to, int parts);

}  // namespace clustersim
