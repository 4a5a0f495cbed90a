// Rate models: the factors of a job's speed beyond its throughput model.
//
// A job's rate is its throughput model's rate for what it holds (throughput_model.h: profile,
// GPU type, placement locality; an elastic job's speed-up at another GPU count) times the factor
// of every rate model, in the order they joined the simulation. A rate model says which jobs a
// change of holdings affects; after each plan and each job event the engine re-rates just those:
// a running job's progress is folded at its old rate and its completion is rescheduled (the old
// event goes stale by its epoch). The engine holds no rate rule of its own.
//
// GPU-sharing interference ([sharing]) is one (sim/src/throughput/sharing_interference.*); a
// user's own joins a run with Simulation::add_rate_model (simulation.h). Network contention,
// power caps and failure slowdowns are rate models too: "a job's rate depends on what else runs
// where".
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "clustersim/metrics.h"
#include "clustersim/view.h"

namespace clustersim {

class RateModel {
 public:
  virtual ~RateModel() = default;
  // Its name (the built-in one's, or the user's), for messages.
  virtual std::string_view name() const = 0;
  // Once, before any job is loaded: the view it reads (jobs, holdings, the ledger, the clock).
  virtual void attach(const View& view) = 0;
  // Jobs [from, view.jobs().size()) were loaded (the first load, or a streamed workload grew).
  virtual void jobs_loaded(std::size_t from) { (void)from; }
  // The factor of `job`'s rate as it holds now (1: no effect; > 0 and finite). Asked when the
  // job starts or changes what it holds, and for every job the model names as affected.
  virtual double factor(std::uint32_t job) = 0;
  // A grant was taken from the ledger or given back, by any job: the model notes whose factor
  // this may change. (Called only for models that join the run; cheap calls, once per grant.)
  virtual void on_grant_changed(const Grant& grant) { (void)grant; }
  // The jobs whose factor may have changed since the last call, appended to `out` (a job may be
  // named twice; jobs that hold nothing are skipped). The engine re-rates each.
  virtual void take_affected(std::vector<std::uint32_t>& out) { (void)out; }
  // `job` gives back everything it holds (it stops, fails, finishes or moves).
  virtual void on_released(std::uint32_t job) { (void)job; }
  // A time-series sample was taken now (only when samples are kept: SimOptions::record_samples):
  // a model that adds sample columns (RunResult::sample_columns) records its row here.
  virtual void on_sample(Time now) { (void)now; }
  // Once the run is over, before report(): the columns it adds to the result (per job, per
  // sample; RunResult::job_columns, sample_columns). The clock reads the run's last event.
  virtual void conclude(RunResult& result) { (void)result; }
  // Once the run is over: what it measured, into the per-job records and the metrics (before
  // the records of jobs that did not finish are cleared).
  virtual void report(std::span<JobRecord> records, RunMetrics& metrics) const {
    (void)records;
    (void)metrics;
  }
};

}  // namespace clustersim
