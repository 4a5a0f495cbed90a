// Max-min fairness (Gavel's max_min_fairness[_perf]; LAS across types): maximise z subject to
// every job's normalised, weighted throughput sum_t gpus_j thr[j][t] X[j][t] / (w_j prop_j) >= z,
// prop_j = sum_t thr[j][t] cap_t / G (its throughput with each type shared equally). The
// heterogeneity-agnostic form sets every throughput to 1 (so prop_j = 1).
//
// Identical jobs (same throughputs, GPUs and weight: in Gavel's traces, jobs of one job type and
// scale factor) are solved as one class: the LP is invariant under swapping identical jobs and
// convex, so averaging an optimum over those swaps gives an optimum that treats them alike. A
// 1,000-job problem of Gavel's ~80 (job type, scale factor) classes is an LP of <= 80 rows.
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
  std::map<std::tuple<std::vector<double>, int, double>, std::size_t> classes;
  for (std::size_t j = 0; j < problem.jobs(); ++j) {
    std::vector<double> row(thr.begin() + static_cast<std::ptrdiff_t>(j * types),
                            thr.begin() + static_cast<std::ptrdiff_t>((j + 1) * types));
    const double w = problem.weight.empty() ? 1.0 : problem.weight[j];
    const auto [it, added] =
        classes.emplace(std::make_tuple(row, problem.gpus[j], w), p.gpus.size());
    if (added) {
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
  std::vector<double> row(types);
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    double proportional = 0.0;
    for (std::size_t t = 0; t < types; ++t)
      proportional += p.throughput[j * types + t] * p.capacity[t] / total;
    const double w = p.weight[j];
    for (std::size_t t = 0; t < types; ++t)
      row[t] =
          proportional > 0.0 ? p.gpus[j] * p.throughput[j * types + t] / (w * proportional) : 0.0;
    lp.add_job_row(j, row, -1.0, 0.0, 1e30);  // sum - z >= 0
  }
  TimeShare solved;
  lp.maximise(solved);
  TimeShare out = solved;
  out.x.assign(problem.jobs() * types, 0.0);
  if (solved.optimal)
    for (std::size_t j = 0; j < problem.jobs(); ++j)
      for (std::size_t t = 0; t < types; ++t)
        out.x[j * types + t] = solved.x[class_of[j] * types + t];
  return out;
}

}  // namespace clustersim::timeshare
