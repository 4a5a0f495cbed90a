// Minimum makespan of the active jobs (Gavel's min_total_duration[_perf]): the smallest T such
// that every job runs its remaining steps within T at its throughput under X:
// sum_t thr[j][t] X[j][t] >= remaining_j / T. With s = 1/T this is one LP (maximise s subject
// to sum_t thr[j][t] X[j][t] - remaining_j s >= 0), exact where Gavel bisects on T to within
// 5%. Agnostic: each job's fastest throughput on every type it can run on.
//
// Scaled for CLP: each job's row is divided by its fastest throughput m_j, and the column is
// s' = s S with S the mean of remaining_j / m_j, so that every coefficient and s' are near 1.
// (Unscaled, with remaining steps ~1e5 and s ~1e-5, CLP stopped "optimal" up to 1% short of the
// optimum, with job rows violated by ~1e-5.)
//
// Tie-break (time_share.h): T is kept within 1e-7 of its optimum and the sum of the jobs' rates
// of progress, sum_t thr[j][t] X[j][t] / remaining_j, maximised; then that sum is kept and the
// same sum at the real speeds maximised (agnostic) or sum_j sum_t X[j][t] m_j / remaining_j
// minimised (perf).
#include <algorithm>

#include "timeshare/factories.h"
#include "timeshare/lp.h"

namespace clustersim::timeshare {

TimeShare min_total_duration(const TimeShareProblem& problem, bool perf) {
  TimeShareProblem p = problem;
  if (!perf) p.throughput = agnostic_throughputs(problem, /*ones=*/false);
  const auto types = static_cast<std::size_t>(p.types);
  std::vector<double> fastest(p.jobs(), 0.0);
  double scale = 0.0;
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    for (std::size_t t = 0; t < types; ++t)
      fastest[j] = std::max(fastest[j], p.throughput[j * types + t]);
    if (!(fastest[j] > 0.0)) fastest[j] = 1.0;  // runs nowhere: its row forces s = 0, as before
    scale += p.remaining[j] / fastest[j];
  }
  scale = scale > 0.0 ? scale / static_cast<double>(p.jobs()) : 1.0;
  TimeShareLp lp(p);
  lp.set_extra(0.0, 1e30, 1.0);  // s' = S / T
  std::vector<double> row(types);
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    for (std::size_t t = 0; t < types; ++t) row[t] = p.throughput[j * types + t] / fastest[j];
    lp.add_job_row(j, row, -p.remaining[j] / (fastest[j] * scale), 0.0, 1e30);
  }
  TimeShare out;
  lp.maximise(out);
  out.objective /= scale;
  if (!out.optimal || !p.tie_break) return out;  // objective: 1 / T
  std::vector<double> k(p.jobs(), 0.0);          // rates of progress, scaled near 1
  for (std::size_t j = 0; j < p.jobs(); ++j)
    if (p.remaining[j] > 0.0) k[j] = scale / p.remaining[j];
  TimeShare stage = out;
  lp.fix_objective(kTieBreakTolerance);
  run_tie_break_stages(
      lp, tie_break_objective(p.types, p.throughput, k),
      tie_break_third(p.types, p.throughput, perf ? nullptr : &problem.throughput, k), stage, out);
  return out;
}

}  // namespace clustersim::timeshare
