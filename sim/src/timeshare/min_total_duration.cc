// Minimum makespan of the active jobs (Gavel's min_total_duration[_perf]): the smallest T such
// that every job runs its remaining steps within T at its throughput under X:
// sum_t thr[j][t] X[j][t] >= remaining_j / T. With s = 1/T this is one LP (maximise s subject
// to sum_t thr[j][t] X[j][t] - remaining_j s >= 0), exact where Gavel bisects on T to within
// 5%. Agnostic: each job's fastest throughput on every type it can run on.
#include "timeshare/factories.h"
#include "timeshare/lp.h"

namespace clustersim::timeshare {

TimeShare min_total_duration(const TimeShareProblem& problem, bool perf) {
  TimeShareProblem p = problem;
  if (!perf) p.throughput = agnostic_throughputs(problem, /*ones=*/false);
  const auto types = static_cast<std::size_t>(p.types);
  TimeShareLp lp(p);
  lp.set_extra(0.0, 1e30, 1.0);  // s = 1 / T
  std::vector<double> row(types);
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    for (std::size_t t = 0; t < types; ++t) row[t] = p.throughput[j * types + t];
    lp.add_job_row(j, row, -p.remaining[j], 0.0, 1e30);
  }
  TimeShare out;
  lp.maximise(out);
  return out;  // objective: 1 / T
}

}  // namespace clustersim::timeshare
