// Shortest job first by an estimate learned from the finished jobs of its user (PAI's SJU: shortest
// job by the user's history) (Weng et al., NSDI'22, the PAI cluster's simulator; estimator.h: from
// the trace prefix only, re-keyed as jobs finish). Non-preemptive. The oracle form is `sjf`.
#include "policies/estimator.h"
#include "policies/factories.h"

namespace clustersim::policies {

std::unique_ptr<SchedulingPolicy> make_sju(const SchedulerOptions& options) {
  return std::make_unique<EstimatedShortestFirst>(options, DurationEstimator::By::kUser, false);
}

}  // namespace clustersim::policies
