// What a run measures, kept apart from the engine that applies plans: time integrals of what
// jobs hold and of the queue, the time-series samples and fragmentation, finish-time fairness,
// and at the end the run's metrics from the per-job records.
//
// The engine tells it when time advances, when a job enters or leaves the system and when a
// sample is due; it reads the engine's tables through the View and changes nothing but its own
// state. Every sum is accumulated in the order the engine accumulated it before the split, so
// results are bit for bit the same.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "clustersim/metrics.h"
#include "clustersim/simulator.h"
#include "clustersim/view.h"
#include "core/huge_pages.h"
#include "metrics/fragmentation.h"

namespace clustersim::internal {

class Measurement {
 public:
  Measurement(const SimOptions& options, const View& view) : options_(options), view_(view) {}

  // Jobs known from now on (the workload loaded or grown).
  void resize(std::size_t jobs) { resize_on_huge_pages(ftf_integral_, jobs, 0.0); }
  // Utilisation, queue length and fragmentation count from `from` on (the first submit, or the
  // window's first submit).
  void measure_from(Time from) { measure_from_ = from; }
  Time measure_from() const { return measure_from_; }

  // A job loaded (its state as loaded): its shape counts towards the typical jobs.
  void count_shape(const JobState& job) { shapes_.add(job); }
  // Starts the fragmentation sums from the ledger as it is now, against the shapes counted; the
  // ledger must tell the returned observer of every change from now on.
  FreeGpuObserver& track_fragmentation() {
    fragmentation_.reset(view_.cluster(), shapes_);
    return fragmentation_;
  }
  // Integrates over [last, now): `busy` whole GPUs held by jobs (shares and MIG slices are read
  // from the ledger), `waiting` jobs in the queue, and fragmentation (against `head`, the job
  // at the head of the queue; null: no queue, nothing fragmented for it).
  // `offline`: what nodes down hold of CPUs, memory and storage (the ledger counts it allocated;
  // no job uses it).
  void integrate(Time last, Time now, int busy, double waiting, const JobState* head,
                 const Grant& offline);
  // A job enters or leaves the system at `now`; `in_system` jobs were there until now.
  void on_arrival(std::uint32_t job, Time now, std::size_t in_system) {
    jobs_in_system_until(now, in_system);
    ftf_integral_[job] = jobs_in_system_integral_;
  }
  void on_finish(std::uint32_t job, Time now, std::size_t in_system) {
    jobs_in_system_until(now, in_system);
    ftf_integral_[job] = jobs_in_system_integral_ - ftf_integral_[job];
  }
  // A time-series sample at `now`; `head`: the job at the head of the queue (none: no queue);
  // `down_gpus`: GPUs of nodes down (failures, drains), counted neither busy nor idle.
  void take_sample(Time now, std::optional<std::uint32_t> head, int down_gpus);

  // The run's metrics from the records (those of jobs that did not finish are cleared: what they
  // accumulated is not reported) and the integrals: `first_submit` and `window_end` bound the
  // run's span (makespan), and the samples move into `samples`.
  void summarize(std::span<JobRecord> records, Time first_submit, Time window_end, RunMetrics& m);
  std::vector<Sample> take_samples() { return std::move(samples_); }

 private:
  // The number of jobs in the system (`in_system` until now) integrated over time up to now.
  // Called at every arrival and finish, in time order, so the integral equals the one a sort of
  // all arrivals and finishes would give, bit for bit.
  void jobs_in_system_until(Time now, std::size_t in_system) {
    jobs_in_system_integral_ += static_cast<double>(in_system) * (now - jobs_in_system_since_);
    jobs_in_system_since_ = now;
  }
  // A finished job's finish-time fairness rho (its JCT `jct`; the jobs in the system integrated
  // over its stay), and their sum over jobs.
  double finish_time_fairness(const JobState& job, double jct,
                              double jobs_in_system_integral) const;
  // A job is unfairly treated when rho > 1 + this: a JCT equal to the baseline's up to rounding
  // (a job alone, a cluster with room for every job) is rho = 1 give or take a few ulps, and
  // counting those as unfair made one job alone 100% "unfair". Far above rounding (relative
  // errors of ~1e-15 per operation, a few dozen operations) and far below any real slowdown.
  static constexpr double kFairnessTolerance = 1e-9;
  struct FairnessSum {
    double sum = 0.0, most = 0.0;
    std::size_t count = 0, unfair = 0;
    void add(double rho) {
      sum += rho;
      most = std::max(most, rho);
      unfair += rho > 1.0 + kFairnessTolerance ? 1 : 0;
      ++count;
    }
  };

  const SimOptions& options_;
  const View& view_;
  Time measure_from_ = 0.0;
  // Time integrals: waiting jobs (all run; and from measure_from_ on), and from measure_from_
  // on, what jobs held of the cluster.
  double queue_length_integral_ = 0.0;
  double window_queue_integral_ = 0.0;
  double busy_gpu_integral_ = 0.0;
  double cpu_integral_ = 0.0;
  double mem_integral_ = 0.0;
  double storage_integral_ = 0.0;
  // A piecewise-constant value integrated over time, one piece per change of value: events that
  // change nothing (samples, timers) split no piece, so the integral does not move with
  // sample_interval_s, not even in its last bits.
  struct PiecewiseIntegral {
    double value = 0.0, sum = 0.0;
    Time since = 0.0, until = 0.0;
    bool begun = false;
    // `v` holds over [from, now), `from` where the last call's interval ended.
    void hold(Time from, Time now, double v) {
      if (!begun) {
        begun = true;
        value = v;
        since = from;
      } else if (v != value) {
        sum += value * (from - since);
        value = v;
        since = from;
      }
      until = now;
    }
    double total() const { return begun ? sum + value * (until - since) : 0.0; }
  };
  // Fragmented GPUs integrated over time from measure_from_ on: against the queue's head, and
  // against the typical jobs (fragmentation.h).
  PiecewiseIntegral head_fragmented_;
  PiecewiseIntegral typical_fragmented_;
  FragmentationTracker fragmentation_;
  FragmentationTracker::ShapeCount shapes_;  // of the jobs loaded (count_shape)
  std::vector<Sample> samples_;
  // Finish-time fairness: jobs in the system integrated over time up to jobs_in_system_since_,
  // and by job, that integral at its arrival (while it is in the system), then over its stay
  // (once it has finished).
  double jobs_in_system_integral_ = 0.0;
  Time jobs_in_system_since_ = 0.0;
  std::vector<double> ftf_integral_;
};

}  // namespace clustersim::internal
