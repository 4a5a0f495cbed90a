// Quasi-shortest-service-first (Helios, Hu et al., SC'21): the job with the least expected
// GPU-time goes first, its GPUs times its duration estimated from the finished jobs of its user
// ([scheduler] estimate_by; estimator.h: learned from the trace prefix only, re-keyed as jobs
// finish). Non-preemptive. Helios predicts from a user's past jobs of similar names with a
// learned model; this is its history-mean form.
#include "policies/estimator.h"
#include "policies/factories.h"

namespace clustersim::policies {

std::unique_ptr<SchedulingPolicy> make_qssf(const SchedulerOptions& options) {
  const DurationEstimator::By by = options.estimate_by == "model" ? DurationEstimator::By::kModel
                                   : options.estimate_by == "vc"  ? DurationEstimator::By::kVc
                                                                  : DurationEstimator::By::kUser;
  return std::make_unique<EstimatedShortestFirst>(options, by, /*by_gpu_time=*/true);
}

}  // namespace clustersim::policies
