// Private to the sweep's sources: the side of ranks 1..N-1 (sweep_worker.cc).
#pragma once

#include <cstdint>

#include "clustersim/sweep/communicator.h"
#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/sweep_command.h"

namespace clustersim::sweep::sweep_internal {

// Ranks 1..N-1: ask for chunks ahead of need, run them, send results back as they finish; then
// write their share of the final file's row tables when rank 0 asks. Returns the exit status.
int run_worker(MpiSession& mpi, const Grid& grid, const SweepOptions& options, int threads,
               std::int64_t session);

}  // namespace clustersim::sweep::sweep_internal
