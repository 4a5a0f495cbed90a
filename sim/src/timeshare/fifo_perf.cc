// Heterogeneity-aware FIFO (Gavel's FIFO in "perf" mode, recomputed from scratch at each
// allocation): jobs in arrival order (their order in the problem) each take the type with the
// highest throughput among those with room for their GPUs, X = 1 there; the first job that fits
// no type stops the walk (FIFO: no job jumps ahead); jobs that cannot run on a type with room
// are passed over, as Gavel's are.
#include "timeshare/factories.h"

namespace clustersim::timeshare {

TimeShare fifo_perf(const TimeShareProblem& p) {
  const auto types = static_cast<std::size_t>(p.types);
  std::vector<int> free(p.capacity.begin(), p.capacity.end());
  TimeShare out;
  out.optimal = true;
  out.x.assign(p.jobs() * types, 0.0);
  for (std::size_t j = 0; j < p.jobs(); ++j) {
    int any_room = 0;
    for (int f : free) any_room += f > 0 ? 1 : 0;
    if (any_room == 0) break;
    int best = -1;
    double best_thr = -1.0;
    bool room = false;
    for (std::size_t t = 0; t < types; ++t) {
      if (free[t] < p.gpus[j]) continue;
      room = true;
      if (p.throughput[j * types + t] > best_thr) {
        best_thr = p.throughput[j * types + t];
        best = static_cast<int>(t);
      }
    }
    if (!room) break;
    if (best_thr <= 0.0) continue;
    out.x[j * types + static_cast<std::size_t>(best)] = 1.0;
    free[static_cast<std::size_t>(best)] -= p.gpus[j];
  }
  return out;
}

}  // namespace clustersim::timeshare
