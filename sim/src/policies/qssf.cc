// Quasi-shortest-service-first (Helios, Hu et al., SC'21): the job with the least expected
// GPU-time goes first, its GPUs times its duration estimated from the finished jobs of its user
// ([scheduler] estimate_by; estimator.h: learned from the trace prefix only, re-keyed as jobs
// finish). Non-preemptive. Helios predicts from a user's past jobs of similar names with a
// learned model; this is its history-mean form.
#include "policies/estimator.h"
#include "policies/factories.h"

namespace clustersim::policies {

namespace {
class Qssf final : public SchedulingPolicy {
 public:
  explicit Qssf(const SchedulerOptions& options)
      : estimator_(options, options.estimate_by == "model" ? DurationEstimator::By::kModel
                            : options.estimate_by == "vc"  ? DurationEstimator::By::kVc
                                                           : DurationEstimator::By::kUser) {}
  bool preemptive() const override { return false; }
  bool rekeys_on_finish() const override { return true; }
  void compute_keys(std::span<const std::uint32_t> jobs, const PolicyContext& ctx,
                    std::span<PriorityKey> keys) override {
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const JobState& job = ctx.jobs[jobs[i]];
      keys[i] = {job.requested_gpus * estimator_.estimate_waiting(job), job.submit};
    }
  }
  void on_finished(std::uint32_t job, const PolicyContext& ctx,
                   std::vector<std::uint32_t>& rekey) override {
    estimator_.finished(ctx.jobs[job], ctx.jobs, rekey);
  }

 private:
  DurationEstimator estimator_;
};
}  // namespace

std::unique_ptr<SchedulingPolicy> make_qssf(const SchedulerOptions& options) {
  return std::make_unique<Qssf>(options);
}

}  // namespace clustersim::policies
