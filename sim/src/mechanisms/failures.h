// Generated node failures (mechanisms.h: mtbf_h, failure_model, repair_h). Private to the core.
//
// Each node fails independently, as a renewal process: up-times drawn from an exponential or a
// Weibull distribution whose mean is the MTBF, each failure followed by a repair of repair_h.
// Every node draws from a stream of its own, so a node's failure times do not depend on what
// else happens in the run (nor on how many nodes there are).
#pragma once

#include <cstdint>
#include <vector>

#include "clustersim/mechanisms.h"
#include "clustersim/random.h"

namespace clustersim::internal {

class FailureProcess {
 public:
  FailureProcess(const MechanismOptions& options, std::size_t nodes, std::uint64_t seed);
  // Seconds the node stays up from now (after a repair, or from the start).
  double next_uptime(std::uint32_t node);
  double repair_s() const { return repair_s_; }

 private:
  MechanismOptions::FailureModel model_;
  double mtbf_s_;
  double shape_;
  double weibull_scale_;
  double repair_s_;
  std::vector<Rng> streams_;  // by node
};

}  // namespace clustersim::internal
