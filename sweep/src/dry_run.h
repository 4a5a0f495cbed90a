// Private to the sweep's sources: the dry run's estimates (dry_run.cc; write_dry_run is public,
// sweep_command.h).
#pragma once

#include <ostream>

#include "clustersim/sweep/grid.h"
#include "clustersim/sweep/point_config.h"

namespace clustersim::sweep::sweep_internal {

// The capacity model's estimate for this grid (sweep/README.md, "Capacity"): where the sweep
// stops scaling, and what --save-jobs adds.
void write_scaling_estimate(std::ostream& out, const Grid& grid, const GridCheck& check);

}  // namespace clustersim::sweep::sweep_internal
