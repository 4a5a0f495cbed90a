// Private to the sweep's sources: this session (ranks, threads, start, command line) and the
// provenance the result file records of it.
#pragma once

#include <string>
#include <vector>

#include "clustersim/sweep/result_store.h"
#include "resume_plan.h"

namespace clustersim::sweep::sweep_internal {

struct SessionInfo {
  int ranks = 1;
  std::vector<int> threads_per_rank;
  std::string start_time;
  std::string command_line;
  // Where it ran, kept per session (session_builds) since a resume may run elsewhere.
  std::string hostname;
  std::string slurm_job_id;        // slurm_job_as_shown(): JOB_TASK for an array task
  std::string working_directory;   // absolute
  std::string grid_path_absolute;  // "" for the embedded default grid
};

// hostname, slurm_job_id, working_directory and grid_path_absolute of this process, for a sweep
// of `grid_path` ("" for the default grid).
void describe_where_this_runs(SessionInfo& session, const std::string& grid_path);

// The time now, in UTC (ISO 8601).
std::string now_iso8601();

// The result file's provenance attributes (software, sessions, ranks, threads, shard, warnings).
Provenance make_provenance(const Plan& plan, const SessionInfo& session);

}  // namespace clustersim::sweep::sweep_internal
