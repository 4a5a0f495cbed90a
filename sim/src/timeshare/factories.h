// One solver per policy file (time_share.h); registry.cc maps names to them.
#pragma once

#include "clustersim/time_share.h"

namespace clustersim::timeshare {

// Throughputs as the policy sees them: the problem's (perf), or, heterogeneity-agnostic, each
// job's throughput on its fastest type on every type it can run on (all 1 for max-min).
std::vector<double> agnostic_throughputs(const TimeShareProblem& problem, bool ones);

TimeShare max_min_fairness(const TimeShareProblem& problem, bool perf);
TimeShare max_sum_throughput(const TimeShareProblem& problem);
TimeShare min_total_duration(const TimeShareProblem& problem, bool perf);
TimeShare finish_time_fairness(const TimeShareProblem& problem, bool perf);
TimeShare isolated(const TimeShareProblem& problem);
TimeShare fifo_perf(const TimeShareProblem& problem);
// Isolated throughput of each job (its throughput under `isolated`).
std::vector<double> isolated_throughputs(const TimeShareProblem& problem);

}  // namespace clustersim::timeshare
