// The outcome of one grid point, and its byte encoding. The same bytes travel in MPI messages
// (worker -> rank 0) and are appended to the journal, so a result is encoded exactly once. The
// encoding follows the field tables of clustersim/metrics.h (the metric names and columns come
// from there too) and records how many fields of each table it holds, so a newer build reads an
// older journal (fields it lacks read as 0).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "clustersim/metrics.h"

namespace clustersim::sweep {

// Where a point's per-job rows and samples were written by the rank that computed them (a
// record of its row spool, row_spool.h), instead of travelling with the result: rank 0 then
// handles only the small metrics, and the final file is built from the spools.
struct RowsRef {
  std::string file;          // spool file name inside the sweep's rows folder ("s2.r5")
  std::uint64_t offset = 0;  // of the record in that file
  std::uint64_t bytes = 0;   // record payload
  std::uint64_t checksum = 0;
  std::uint64_t jobs = 0;  // rows it holds
  std::uint64_t samples = 0;
  bool operator==(const RowsRef&) const = default;
};

struct PointResult {
  std::uint64_t point_id = 0;
  std::int32_t rank = 0;   // MPI rank that ran it (provenance only)
  double elapsed_s = 0.0;  // wall time of the simulation (provenance only, not deterministic)
  // The sweep session (1 = the first run, 2 = the first resume, ...) that computed it: rank 0
  // knows it from the journal, so it is not part of the encoding (provenance only).
  std::int32_t session = 0;
  std::string error;  // empty = ok; else why the simulation failed
  RunMetrics metrics;
  std::vector<JobRecord> jobs;  // only with --save-jobs
  std::vector<Sample> samples;  // only with --save-timeseries
  // The columns the point's components added (RunResult::job_columns, sample_columns), by row
  // of `jobs` and `samples` (a job column's values in the order of `jobs`, not of the
  // workload). Their names stay here when the rows are spooled (the file's schema is the union
  // of every point's names, known before any row is written); their values go with the rows.
  std::vector<RunResult::Column> job_columns;
  std::vector<RunResult::Column> sample_columns;
  // Set instead of `jobs` and `samples` when they were spooled (format 3); absent otherwise.
  std::optional<RowsRef> rows;

  std::size_t job_count() const { return rows ? rows->jobs : jobs.size(); }
  std::size_t sample_count() const { return rows ? rows->samples : samples.size(); }
};

std::string encode_result(const PointResult& result);
// Throws std::runtime_error on malformed bytes.
PointResult decode_result(std::string_view bytes);

}  // namespace clustersim::sweep
