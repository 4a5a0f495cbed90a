// Shortest job first by an estimate learned from the finished jobs of its group, the jobs of its
// model (PAI's SJG: shortest job by the group's history; PAI groups jobs of one entry script, the
// model is its nearest field here) (Weng et al., NSDI'22, the PAI cluster's simulator; estimator.h:
// from the trace prefix only, re-keyed as jobs finish). Non-preemptive. The oracle form is `sjf`.
#include "policies/estimator.h"
#include "policies/factories.h"

namespace clustersim::policies {

std::unique_ptr<SchedulingPolicy> make_sjg(const SchedulerOptions& options) {
  return std::make_unique<EstimatedShortestFirst>(options, DurationEstimator::By::kModel, false);
}

}  // namespace clustersim::policies
