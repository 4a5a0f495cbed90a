// Max-min fairness (Gavel's max_min_fairness[_perf]; LAS across types): maximise z subject to
// every job's normalised, weighted throughput sum_t gpus_j thr[j][t] X[j][t] / (w_j prop_j) >= z,
// prop_j = sum_t thr[j][t] cap_t / G (its throughput with each type shared equally). The
// heterogeneity-agnostic form sets every throughput to 1 (so prop_j = 1).
//
// Identical jobs (same throughputs, GPUs and weight: in Gavel's traces, jobs of one job type and
// scale factor) are solved as one class: the LP is invariant under swapping identical jobs and
// convex, so averaging an optimum over those swaps gives an optimum that treats them alike. A
// 1,000-job problem of Gavel's ~80 (job type, scale factor) classes is an LP of <= 80 rows.
//
// Tie-break (time_share.h): z is kept within 1e-7 of its optimum and the sum of the jobs'
// normalised throughputs (each class's row times its copies) maximised; then that sum is kept
// and the same sum at the real speeds maximised (agnostic; the classes are then also split by
// the jobs' real throughputs, alike agnostically, not really) or sum_j copies_j sum_t X[j][t]
// m_j gpus_j / (w_j prop_j) minimised (perf).
#include <map>
#include <tuple>

#include "timeshare/factories.h"
#include "timeshare/lp.h"

namespace clustersim::timeshare {

TimeShare max_min_fairness(const TimeShareProblem& problem, bool perf) {
  const std::vector<double> thr =
      perf ? problem.throughput : agnostic_throughputs(problem, /*ones=*/true);
  const auto types = static_cast<std::size_t>(problem.types);
  // Classes of identical jobs, in order of their first job.
  TimeShareProblem p;
  p.types = problem.types;
  p.capacity = problem.capacity;
  std::vector<int> copies;
  std::vector<std::size_t> class_of(problem.jobs());
  // Agnostic with the tie-break: classes by the real throughputs too (the third stage sees them).
  const bool real = !perf && problem.tie_break;
  std::vector<double> real_thr;
  std::map<std::tuple<std::vector<double>, int, double, std::vector<double>>, std::size_t> classes;
  for (std::size_t j = 0; j < problem.jobs(); ++j) {
    std::vector<double> row(thr.begin() + static_cast<std::ptrdiff_t>(j * types),
                            thr.begin() + static_cast<std::ptrdiff_t>((j + 1) * types));
    std::vector<double> real_row;
    if (real)
      real_row.assign(problem.throughput.begin() + static_cast<std::ptrdiff_t>(j * types),
                      problem.throughput.begin() + static_cast<std::ptrdiff_t>((j + 1) * types));
    const double w = problem.weight.empty() ? 1.0 : problem.weight[j];
    const auto [it, added] =
        classes.emplace(std::make_tuple(row, problem.gpus[j], w, real_row), p.gpus.size());
    if (added) {
      real_thr.insert(real_thr.end(), real_row.begin(), real_row.end());
      p.throughput.insert(p.throughput.end(), row.begin(), row.end());
      p.gpus.push_back(problem.gpus[j]);
      p.weight.push_back(w);
      copies.push_back(0);
    }
    ++copies[it->second];
    class_of[j] = it->second;
  }
  double total = 0.0;
  for (int cap : p.capacity) total += cap;
  TimeShareLp lp(p, &copies);
  lp.set_extra(0.0, 1e30, 1.0);  // z
  // Each class's normalised throughput per unit of X on each type.
  std::vector<double> coefficients(p.throughput.size(), 0.0);
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    double proportional = 0.0;
    for (std::size_t t = 0; t < types; ++t)
      proportional += p.throughput[j * types + t] * p.capacity[t] / total;
    for (std::size_t t = 0; t < types; ++t)
      if (proportional > 0.0)
        coefficients[j * types + t] =
            p.gpus[j] * p.throughput[j * types + t] / (p.weight[j] * proportional);
  }
  std::vector<double> row(types);
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    for (std::size_t t = 0; t < types; ++t) row[t] = coefficients[j * types + t];
    lp.add_job_row(j, row, -1.0, 0.0, 1e30);  // sum - z >= 0
  }
  TimeShare solved;
  lp.maximise(solved);
  if (solved.optimal && problem.tie_break) {
    // k_j: a class's normalised throughput per step/s, times its copies (the sum over jobs).
    std::vector<double> k(p.jobs(), 0.0);
    for (std::size_t j = 0; j < p.jobs(); ++j)
      for (std::size_t t = 0; t < types; ++t)
        if (p.throughput[j * types + t] > 0.0)
          k[j] = copies[j] * coefficients[j * types + t] / p.throughput[j * types + t];
    // Third stage, agnostic: the real normalised throughputs (each class's own prop_j).
    std::vector<double> kr = k;
    if (real)
      for (std::size_t j = 0; j < p.jobs(); ++j) {
        double proportional = 0.0;
        for (std::size_t t = 0; t < types; ++t)
          proportional += real_thr[j * types + t] * p.capacity[t] / total;
        kr[j] = proportional > 0.0 ? copies[j] * p.gpus[j] / (p.weight[j] * proportional) : 0.0;
      }
    TimeShare stage = solved;
    lp.fix_objective(kTieBreakTolerance);
    run_tie_break_stages(lp, tie_break_objective(p.types, p.throughput, k),
                         tie_break_third(p.types, p.throughput, real ? &real_thr : nullptr, kr),
                         stage, solved);
  }
  TimeShare out = solved;
  out.x.assign(problem.jobs() * types, 0.0);
  if (solved.optimal)
    for (std::size_t j = 0; j < problem.jobs(); ++j)
      for (std::size_t t = 0; t < types; ++t)
        out.x[j * types + t] = solved.x[class_of[j] * types + t];
  return out;
}

}  // namespace clustersim::timeshare
