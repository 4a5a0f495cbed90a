// Private to the sweep's sources: rank 0's side of a sweep (sweep_coordinator.cc).
#pragma once

#include "clustersim/sweep/communicator.h"
#include "clustersim/sweep/output_lock.h"
#include "clustersim/sweep/sweep_command.h"
#include "resume_plan.h"
#include "sweep_session.h"

namespace clustersim::sweep::sweep_internal {

// Rank 0: dispatches, runs its own share, journals every result, writes the HDF5 file; returns
// the exit status (std::_Exit on a stop signal).
int run_coordinator(MpiSession& mpi, Plan& plan, const SweepOptions& options,
                    const SessionInfo& session, OutputLock& lock);

}  // namespace clustersim::sweep::sweep_internal
