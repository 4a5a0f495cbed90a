// Isolated shares (Gavel's isolated): each of the n jobs gets cap_t / n of each type, divided by
// its GPU count, scaled down when that adds up to more than all of its time.
#include <algorithm>

#include "timeshare/factories.h"

namespace clustersim::timeshare {

TimeShare isolated(const TimeShareProblem& p) {
  const auto types = static_cast<std::size_t>(p.types);
  const double n = static_cast<double>(p.jobs());
  TimeShare out;
  out.optimal = true;
  out.x.assign(p.jobs() * types, 0.0);
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    double sum = 0.0;
    for (std::size_t t = 0; t < types; ++t) {
      out.x[j * types + t] = p.capacity[t] / n / p.gpus[j];
      sum += out.x[j * types + t];
    }
    for (std::size_t t = 0; t < types; ++t) out.x[j * types + t] /= std::max(1.0, sum);
  }
  return out;
}

std::vector<double> isolated_throughputs(const TimeShareProblem& p) {
  const TimeShare shares = isolated(p);
  const auto types = static_cast<std::size_t>(p.types);
  std::vector<double> thr(p.jobs(), 0.0);
  for (std::size_t j = 0; j < p.jobs(); ++j)
    for (std::size_t t = 0; t < types; ++t)
      thr[j] += p.throughput[j * types + t] * shares.x[j * types + t];
  return thr;
}

}  // namespace clustersim::timeshare
