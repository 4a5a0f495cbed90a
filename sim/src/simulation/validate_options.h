// Range checks of SimOptions built in C++ (a config file's keys are checked as they are read).
// Private to the simulator.
#pragma once

#include "clustersim/simulator.h"

namespace clustersim::internal {

// Throws std::invalid_argument naming the first option out of range.
void validate_options(const SimOptions& options);

}  // namespace clustersim::internal
