// One factory per policy file; registry.cc maps names to them.
#pragma once

#include <memory>

#include "clustersim/fleet.h"
#include "clustersim/policy.h"

namespace clustersim::policies {

std::unique_ptr<SchedulingPolicy> make_fifo(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_sjf(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_srtf(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_las(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_tiresias(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_drf(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_qssf(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_sju(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_sjg(const SchedulerOptions& options);
std::unique_ptr<SchedulingPolicy> make_sjgg(const SchedulerOptions& options);

// The fleet's global routers (fleet.h; fleet_routers.cc).
std::unique_ptr<FleetRouter> make_least_loaded_router();
std::unique_ptr<FleetRouter> make_capacity_fit_router();
std::unique_ptr<FleetRouter> make_carbon_aware_router();
std::unique_ptr<FleetRouter> make_home_router();

}  // namespace clustersim::policies
