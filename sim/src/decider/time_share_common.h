// What the two realisations of Gavel's allocations share (time_share_decider.h: Gavel's rounds;
// exact_time_share_decider.h: event-driven leases): a job's speed in steps, its steps left, the
// allocation over the active jobs, and starting a job on GPUs of one type.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "clustersim/host.h"
#include "clustersim/simulator.h"
#include "decider/placement_stage.h"

namespace clustersim::internal {

// Steps per second of the whole job on GPUs of `type` (0: it cannot run there). A job without
// steps counts its duration's seconds as steps.
double steps_per_second(const View& view, std::uint32_t job, int type);

// Steps left now; with steps, a whole number up to rounding (Gavel's micro-tasks run whole
// steps).
double steps_left(const View& view, std::uint32_t job);

// Solves options.scheduler.policy (time_share.h) over the `active` jobs, in that order, on the
// cluster's GPU types; writes allocation[job * types + t] for each active job (0 where the solver
// gave nothing) and leaves other jobs' entries alone.
void solve_allocation(const View& view, const SimOptions& options,
                      std::span<const std::uint32_t> active, std::vector<double>& allocation);

// Starts the waiting `job` on GPUs of `type` where the placement finds them; false (nothing
// applied) when it finds none. continues_lease: the start continues the lease that ended at the
// job's last stop (Plan::continue_lease: that stop was no preemption).
bool start_on_type(Host& host, PlacementStage& placement, std::uint32_t job, int type,
                   std::vector<NodeShare>& shares, Plan& plan, bool continues_lease = false);

}  // namespace clustersim::internal
