// One factory per allocation mechanism file; registry.cc maps names to them.
#pragma once

#include <memory>

#include "clustersim/allocation_mechanism.h"

namespace clustersim::allocation {

std::unique_ptr<AllocationMechanism> make_proportional(const SchedulerOptions& options);
std::unique_ptr<AllocationMechanism> make_greedy(const SchedulerOptions& options);
std::unique_ptr<AllocationMechanism> make_tune(const SchedulerOptions& options);
std::unique_ptr<AllocationMechanism> make_opt(const SchedulerOptions& options);
std::unique_ptr<AllocationMechanism> make_drf(const SchedulerOptions& options);
std::unique_ptr<AllocationMechanism> make_tetris(const SchedulerOptions& options);

}  // namespace clustersim::allocation
