// The body of every reader's fuzz target, and the invariants every reader promises for the
// workloads it returns: a fuzzer traps when one breaks (a reader must reject a bad row, never
// pass it on).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_set>

#include "clustersim/dag.h"
#include "clustersim/error.h"
#include "clustersim/job.h"
#include "clustersim/workload.h"

namespace clustersim::fuzz {

inline void check_workload(const Workload& workload) {
  if (workload.jobs.empty()) __builtin_trap();  // "no jobs" must be an InputError
  std::unordered_set<std::string> ids;
  for (const JobSpec& job : workload.jobs) {
    if (job.id.empty() || !ids.insert(job.id).second) __builtin_trap();
    if (job.num_gpus < 1) __builtin_trap();
    if (!std::isfinite(job.duration) || job.duration <= 0.0) __builtin_trap();
    if (!std::isfinite(job.submit_time) || job.submit_time < 0.0) __builtin_trap();
    if (!std::isfinite(job.cpus) || job.cpus < 0.0) __builtin_trap();
    if (!std::isfinite(job.mem_gb) || job.mem_gb < 0.0) __builtin_trap();
  }
  if (workload.skip_reasons.size() > workload.skipped_rows) __builtin_trap();
  // A DAG workload's structure (contiguous queries, parents before children, sizes): check_dag
  // throws std::invalid_argument when a reader let a broken graph through.
  try {
    check_dag(workload);
  } catch (const std::invalid_argument&) {
    __builtin_trap();
  }
}

// Feeds the input to `read(stream, source_name, options)` strictly and with skip_invalid. Only a
// workload or InputError (with a short message) / std::invalid_argument may come back; any
// other exception escapes (std::terminate) and is a finding.
template <typename Read>
int fuzz_reader(const std::uint8_t* data, std::size_t size, Read&& read) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const bool skip_invalid : {false, true}) {
    std::istringstream in(text);
    ReaderOptions options;
    options.skip_invalid = skip_invalid;
    try {
      check_workload(read(in, "fuzz-input", options));
    } catch (const InputError& error) {
      // Echoed input is cut to an excerpt: a message never grows with the input.
      if (std::string(error.what()).size() > 600) __builtin_trap();
    } catch (const std::invalid_argument&) {
    }
  }
  return 0;
}

}  // namespace clustersim::fuzz
