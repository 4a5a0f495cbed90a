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
};

// The time now, in UTC (ISO 8601).
std::string now_iso8601();

// The result file's provenance attributes (software, sessions, ranks, threads, shard, warnings).
Provenance make_provenance(const Plan& plan, const SessionInfo& session);

}  // namespace clustersim::sweep::sweep_internal
