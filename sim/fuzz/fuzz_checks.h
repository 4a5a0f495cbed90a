// Invariants every reader promises for the workloads it returns; a fuzzer traps when one breaks
// (a reader must reject a bad row, never pass it on).
#pragma once

#include <cmath>
#include <unordered_set>

#include "clustersim/job.h"

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
}

}  // namespace clustersim::fuzz
