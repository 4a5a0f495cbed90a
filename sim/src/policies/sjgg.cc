// Shortest job first by an estimate learned from the finished jobs of its group and GPU count
// (PAI's SJGG: shortest job by the history of jobs of its group that asked for as many GPUs; the
// model stands for PAI's group, as in sjg) (Weng et al., NSDI'22, the PAI cluster's simulator;
// estimator.h: from the trace prefix only, re-keyed as jobs finish). A (model, GPU count) with
// no finished job yet takes all finished jobs' estimate. Non-preemptive. The oracle form is
// `sjf`.
#include "policies/estimator.h"
#include "policies/factories.h"

namespace clustersim::policies {

std::unique_ptr<SchedulingPolicy> make_sjgg(const SchedulerOptions& options) {
  return std::make_unique<EstimatedShortestFirst>(options, DurationEstimator::By::kModelGpus,
                                                  false);
}

}  // namespace clustersim::policies
