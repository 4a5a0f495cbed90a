// The outcome of one grid point, and its byte encoding. The same bytes travel in MPI messages
// (worker -> rank 0) and are appended to the journal, so a result is encoded exactly once.
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

// The run metrics as result columns, in schema order. Counters are integers, the rest doubles.
struct MetricColumn {
  const char* name;
  bool is_integer;
  double (*as_double)(const RunMetrics&);
  std::int64_t (*as_integer)(const RunMetrics&);
};
const std::vector<MetricColumn>& metric_columns();

}  // namespace clustersim::sweep
