// Writers of a run's results (I/O edge): JSON metrics, per-job CSV, time-series CSV, summary.
#pragma once

#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "clustersim/job.h"
#include "clustersim/metrics.h"

namespace clustersim {

// One JSON object (single line) with the run metrics; keys are a contract.
std::string metrics_json(const RunMetrics& metrics);
// The same, then `extra` as further keys in their order (a fleet's `<cluster>.<metric>`).
std::string metrics_json(const RunMetrics& metrics,
                         const std::vector<std::pair<std::string, double>>& extra);
// Header `job_id,submit_time,start_time,finish_time,jct,queue_delay,num_gpus,preemptions,...`.
void write_jobs_csv(std::ostream& out, const std::vector<JobSpec>& specs, const RunResult& result);
void write_timeseries_csv(std::ostream& out, const RunResult& result);
// The same with a last column `measured` (1: in the measured population, steady_state.h): for
// rows of the whole run, warm-up and drain included.
void write_jobs_csv_marked(std::ostream& out, const std::vector<JobSpec>& specs,
                           const RunResult& result);
void write_timeseries_csv_marked(std::ostream& out, const RunResult& result);
// Human-readable summary table.
void write_summary(std::ostream& out, const RunMetrics& metrics);

// Writes to `path` via a temporary file renamed into place, so a failed run never leaves a
// half-written result file. `write` receives the stream.
template <typename WriteFn>
void write_file_atomically(const std::string& path, WriteFn&& write);

}  // namespace clustersim

#include "clustersim/atomic_file.h"
