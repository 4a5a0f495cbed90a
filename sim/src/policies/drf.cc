// DRF-style fair share across VCs, by progressive filling: the next GPU goes to the VC whose
// weighted share of the cluster's GPUs would be smallest once its next job ran. Weights are the
// VCs' quotas (or equal without quotas); GPUs are the dominant resource. Within a VC, jobs are
// served in submission order. Preemptive at lease boundaries, so a VC above its fair share
// yields to one below it.
#include "policies/factories.h"

namespace clustersim::policies {

namespace {
class Drf final : public SchedulingPolicy {
 public:
  bool preemptive() const override { return true; }
  bool ranks_vcs() const override { return true; }
  double vc_rank(double vc_gpus_held, int next_job_gpus, double vc_weight,
                 double total_gpus) const override {
    return (vc_gpus_held + next_job_gpus) / total_gpus / vc_weight;
  }
  void compute_keys(std::span<const std::uint32_t> jobs, const PolicyContext& ctx,
                    std::span<PriorityKey> keys) override {
    for (std::size_t i = 0; i < jobs.size(); ++i) keys[i] = {ctx.jobs[jobs[i]].submit, 0.0};
  }
};
}  // namespace

std::unique_ptr<SchedulingPolicy> make_drf(const SchedulerOptions&) {
  return std::make_unique<Drf>();
}

}  // namespace clustersim::policies
