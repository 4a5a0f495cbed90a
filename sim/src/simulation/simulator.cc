#include "clustersim/simulator.h"

#include "clustersim/simulation.h"

namespace clustersim {

RunResult simulate(const SimOptions& options, const std::vector<JobSpec>& jobs) {
  return Simulation(options, std::span<const JobSpec>(jobs)).run();
}

}  // namespace clustersim
