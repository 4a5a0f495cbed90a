// Finish-time fairness (Gavel's finish_time_fairness[_perf], after Themis): minimise the largest
// rho_j = (elapsed_j + remaining_j / thr_j(X)) / isolated_j, isolated_j = total_steps_j / (its
// throughput under `isolated`). For a fixed rho the constraints thr_j(X) >= remaining_j /
// (rho isolated_j - elapsed_j) are linear: bisection on rho over feasibility LPs, to a relative
// tolerance of 1e-6. (Gavel solves it with cvxpy's inv_pos and keeps a running isolated time
// across calls; here the isolated time is the whole job's, computed afresh.) Agnostic: each
// job's fastest throughput on every type it can run on.
#include <algorithm>
#include <cmath>

#include "timeshare/factories.h"
#include "timeshare/lp.h"

namespace clustersim::timeshare {

namespace {
bool feasible_at(const TimeShareProblem& p, const std::vector<double>& iso_time, double rho,
                 TimeShare& out) {
  const auto types = static_cast<std::size_t>(p.types);
  TimeShareLp lp(p);
  std::vector<double> row(types);
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    const double slack = rho * iso_time[j] - p.elapsed[j];
    if (slack <= 0.0) return false;
    for (std::size_t t = 0; t < types; ++t) row[t] = p.throughput[j * types + t];
    lp.add_job_row(j, row, 0.0, p.remaining[j] / slack, 1e30);
  }
  return lp.feasible(out);
}
}  // namespace

TimeShare finish_time_fairness(const TimeShareProblem& problem, bool perf) {
  TimeShareProblem p = problem;
  if (!perf) p.throughput = agnostic_throughputs(problem, /*ones=*/false);
  const std::vector<double> iso = isolated_throughputs(p);
  std::vector<double> iso_time(p.jobs());
  for (std::size_t j = 0; j < p.jobs(); ++j)
    iso_time[j] = (p.total_steps.empty() ? p.remaining[j] : p.total_steps[j]) / iso[j];
  // Bracket: the isolated allocation is feasible at its own rho.
  const TimeShare shares = isolated(p);
  double high = 0.0;
  const auto types = static_cast<std::size_t>(p.types);
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    double thr = 0.0;
    for (std::size_t t = 0; t < types; ++t)
      thr += p.throughput[j * types + t] * shares.x[j * types + t];
    high = std::max(high, (p.elapsed[j] + p.remaining[j] / thr) / iso_time[j]);
  }
  high *= 1.000001;
  double low = 0.0;
  TimeShare best, trial;
  if (!feasible_at(p, iso_time, high, best)) return shares;
  while (high - low > 1e-6 * high) {
    const double mid = (low + high) / 2;
    trial.lps = best.lps;
    if (feasible_at(p, iso_time, mid, trial)) {
      best = trial;
      high = mid;
    } else {
      best.lps = trial.lps;
      low = mid;
    }
  }
  best.objective = high;
  return best;
}

}  // namespace clustersim::timeshare
