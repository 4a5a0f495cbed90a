// Maximum total throughput (Gavel's max_sum_throughput_perf): maximise sum_j sum_t
// thr[j][t] X[j][t] / sum_t thr[j][t] (each job's throughput normalised by its row sum).
#include "timeshare/factories.h"
#include "timeshare/lp.h"

namespace clustersim::timeshare {

TimeShare max_sum_throughput(const TimeShareProblem& p) {
  const auto types = static_cast<std::size_t>(p.types);
  TimeShareLp lp(p);
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    double sum = 0.0;
    for (std::size_t t = 0; t < types; ++t) sum += p.throughput[j * types + t];
    for (std::size_t t = 0; t < types; ++t)
      if (sum > 0.0) lp.set_x_objective(j, static_cast<int>(t), p.throughput[j * types + t] / sum);
  }
  TimeShare out;
  lp.maximise(out);
  return out;
}

}  // namespace clustersim::timeshare
