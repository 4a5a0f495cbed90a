// The outcome of one grid point, and its byte encoding. The same bytes travel in MPI messages
// (worker -> rank 0) and are appended to the journal, so a result is encoded exactly once. The
// encoding follows the field tables of clustersim/metrics.h (the metric names and columns come
// from there too) and records how many fields of each table it holds, so a newer build reads an
// older journal (fields it lacks read as 0).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "clustersim/metrics.h"

namespace clustersim::sweep {

struct PointResult {
  std::uint64_t point_id = 0;
  std::int32_t rank = 0;   // MPI rank that ran it (provenance only)
  double elapsed_s = 0.0;  // wall time of the simulation (provenance only, not deterministic)
  std::string error;       // empty = ok; else why the simulation failed
  RunMetrics metrics;
  std::vector<JobRecord> jobs;  // only with --save-jobs
  std::vector<Sample> samples;  // only with --save-timeseries
};

std::string encode_result(const PointResult& result);
// Throws std::runtime_error on malformed bytes.
PointResult decode_result(std::string_view bytes);

}  // namespace clustersim::sweep
