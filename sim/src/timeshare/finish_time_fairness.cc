// Finish-time fairness (Gavel's finish_time_fairness[_perf], after Themis): minimise the largest
// rho_j = (elapsed_j + remaining_j / thr_j(X)) / isolated_j, isolated_j = total_steps_j / (its
// throughput under `isolated`). (Gavel solves it with cvxpy's inv_pos and keeps a running
// isolated time across calls; here the isolated time is the whole job's, computed afresh.)
// Agnostic: each job's fastest throughput on every type it can run on.
//
// For a fixed rho the constraints thr_j(X) >= c_j(rho) = remaining_j / (rho isolated_j -
// elapsed_j) are linear. Each step solves, for one rho, the LP
//   max u  subject to  thr_j(X) / m_j - u >= c_j(rho) / m_j  (every job j),  X in Gavel's polytope
// (m_j: the job's fastest throughput; u free), whose bounds are the only thing that changes with
// rho, so one CLP model is re-solved from its last basis. One solve gives both ends of a bracket:
//  - its X runs every job, so the largest rho_j(X) is achievable: an upper bound;
//  - its row duals y (>= 0, sum_j y_j = 1) satisfy y . thr(X') / m <= u* + y . c(rho) / m for every
//    X' in the polytope (LP duality), so any rho' with sum_j y_j c_j(rho') / m_j above that is
//    infeasible: the root of that decreasing function of rho' is a lower bound (a cut).
// The next rho is the best lower bound (if it is feasible it is optimal), or the bracket's midpoint
// when the last step did not halve the bracket. It stops when the bracket is within 1e-6 of its
// top, which is returned with the X that achieves it (as the bisection did: the top of a 1e-6
// bracket). Typically 3-6 LPs, where bisection from [0, isolated] took 21.
#include <algorithm>
#include <cmath>
#include <limits>

#include "timeshare/factories.h"
#include "timeshare/lp.h"

namespace clustersim::timeshare {

TimeShare finish_time_fairness(const TimeShareProblem& problem, bool perf) {
  TimeShareProblem p = problem;
  if (!perf) p.throughput = agnostic_throughputs(problem, /*ones=*/false);
  const std::vector<double> iso = isolated_throughputs(p);
  const std::size_t jobs = p.jobs();
  const auto types = static_cast<std::size_t>(p.types);
  std::vector<double> iso_time(jobs), fastest(jobs, 0.0);
  for (std::size_t j = 0; j < jobs; ++j) {
    iso_time[j] = (p.total_steps.empty() ? p.remaining[j] : p.total_steps[j]) / iso[j];
    for (std::size_t t = 0; t < types; ++t)
      fastest[j] = std::max(fastest[j], p.throughput[j * types + t]);
  }
  // A job that runs nowhere (no throughput, so no isolated time) constrains nothing, as before.
  const auto counts = [&](std::size_t j) { return fastest[j] > 0.0 && std::isfinite(iso_time[j]); };
  const auto rho_of = [&](const std::vector<double>& x) {
    double worst = 0.0;
    for (std::size_t j = 0; j < jobs; ++j) {
      if (!counts(j)) continue;
      double thr = 0.0;
      for (std::size_t t = 0; t < types; ++t) thr += p.throughput[j * types + t] * x[j * types + t];
      const double left = p.remaining[j] > 0.0 ? p.remaining[j] / thr : 0.0;  // (not 0 / 0)
      worst = std::max(worst, (p.elapsed[j] + left) / iso_time[j]);
    }
    return worst;
  };
  // Bracket: the isolated allocation is feasible at its own rho; no job can beat its rho on its
  // fastest type with all of its time.
  const TimeShare shares = isolated(p);
  double high = rho_of(shares.x) * 1.000001;
  double low = 0.0;
  for (std::size_t j = 0; j < jobs; ++j)
    if (counts(j)) low = std::max(low, (p.elapsed[j] + p.remaining[j] / fastest[j]) / iso_time[j]);
  const auto demand = [&](std::size_t j, double rho) {
    return p.remaining[j] / (rho * iso_time[j] - p.elapsed[j]);
  };

  TimeShareLp lp(p);
  lp.set_extra(-std::numeric_limits<double>::max(), 1e30, 1.0);  // u
  std::vector<int> row_of(jobs, -1);
  std::vector<double> coefficients(types);
  for (std::size_t j = 0; j < jobs; ++j) {
    if (!counts(j)) continue;
    for (std::size_t t = 0; t < types; ++t)
      coefficients[t] = p.throughput[j * types + t] / fastest[j];
    row_of[j] = lp.add_job_row(j, coefficients, -1.0, demand(j, high) / fastest[j], 1e30);
  }

  TimeShare best = shares, trial;
  best.optimal = false;
  bool have_best = false;
  double rho = high;
  double last_gap = std::numeric_limits<double>::max();
  std::vector<double> y(jobs, 0.0);
  for (int step = 0; step < 100 && (!have_best || high - low > 1e-6 * high); ++step) {
    for (std::size_t j = 0; j < jobs; ++j)
      if (row_of[j] >= 0) lp.set_row_bounds(row_of[j], demand(j, rho) / fastest[j], 1e30);
    trial.lps = best.lps;
    const bool solved = lp.maximise(trial);
    best.lps = trial.lps;
    if (!solved) break;
    const double u = lp.extra_value();
    if (u < 0.0) low = std::max(low, rho);  // some job cannot get its c_j(rho)
    // Upper bound: what the solution achieves (every job runs when u >= 0).
    const double achieved = rho_of(trial.x);
    if (std::isfinite(achieved) && achieved < high) {
      high = achieved;
      best = trial;
      have_best = true;
    } else if (!have_best && u >= 0.0) {
      best = trial;  // feasible at rho = high (rounding kept `achieved` a hair above it)
      have_best = true;
    }
    // Lower bound: the cut's root, sum_j y_j c_j(rho') / m_j = u + sum_j y_j c_j(rho) / m_j.
    double sum = 0.0, level = u;
    for (std::size_t j = 0; j < jobs; ++j) {
      y[j] = row_of[j] >= 0 ? std::max(0.0, lp.row_dual(row_of[j])) : 0.0;
      sum += y[j];
    }
    if (sum > 0.0) {
      for (std::size_t j = 0; j < jobs; ++j) {
        y[j] /= sum;
        if (y[j] > 0.0) level += y[j] * demand(j, rho) / fastest[j];
      }
      const auto cut = [&](double r) {
        double value = 0.0;
        for (std::size_t j = 0; j < jobs; ++j)
          if (y[j] > 0.0) {
            const double slack = r * iso_time[j] - p.elapsed[j];
            if (slack <= 0.0) return std::numeric_limits<double>::max();
            value += y[j] * p.remaining[j] / (slack * fastest[j]);
          }
        return value;
      };
      if (cut(low) > level) {  // the cut lies above `low`: its root is a better lower bound
        double a = low, b = high;
        if (cut(b) > level) {
          a = b;  // (only by rounding: `high` is achieved)
        } else {
          for (int i = 0; i < 100 && b - a > 1e-9 * b; ++i) {
            const double mid = (a + b) / 2;
            (cut(mid) > level ? a : b) = mid;
          }
        }
        low = std::min(std::max(low, a), high);
      }
    }
    const double gap = high - low;
    rho = gap > last_gap / 2 ? (low + high) / 2 : low;
    last_gap = gap;
  }
  if (!have_best) return shares;
  best.objective = high;
  if (!p.tie_break) return best;
  const double fixed = high * (1.0 + kTieBreakTolerance);
  for (std::size_t j = 0; j < jobs; ++j)
    if (row_of[j] >= 0) lp.set_row_bounds(row_of[j], demand(j, fixed) / fastest[j], 1e30);
  lp.set_extra_lower(0.0);
  TimeShare stage = best;
  double scale = 0.0;
  for (std::size_t j = 0; j < jobs; ++j)
    if (counts(j)) scale += p.remaining[j] / fastest[j];
  scale = scale > 0.0 ? scale / static_cast<double>(jobs) : 1.0;
  std::vector<double> k(jobs, 0.0);  // rates of progress, scaled near 1
  for (std::size_t j = 0; j < jobs; ++j)
    if (p.remaining[j] > 0.0) k[j] = scale / p.remaining[j];
  if (lp.maximise(stage))
    run_tie_break_stages(
        lp, tie_break_objective(p.types, p.throughput, k),
        tie_break_third(p.types, p.throughput, perf ? nullptr : &problem.throughput, k), stage,
        best);
  else
    best.lps = stage.lps;
  return best;
}

}  // namespace clustersim::timeshare
