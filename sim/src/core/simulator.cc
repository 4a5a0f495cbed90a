#include "clustersim/simulator.h"

#include "core/engine.h"

namespace clustersim {

RunResult simulate(const SimOptions& options, const std::vector<JobSpec>& jobs) {
  internal::Engine engine(options, jobs);
  return engine.run();
}

}  // namespace clustersim
