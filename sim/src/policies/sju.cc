// Shortest job first by an estimate learned from the finished jobs of its user (PAI's SJU: shortest
// job by the user's history) (Weng et al., NSDI'22, the PAI cluster's simulator; estimator.h: from
// the trace prefix only, re-keyed as jobs finish). Non-preemptive. The oracle form is `sjf`.
#include "policies/estimator.h"
#include "policies/factories.h"

namespace clustersim::policies {

namespace {
class Sju final : public SchedulingPolicy {
 public:
  explicit Sju(const SchedulerOptions& options)
      : estimator_(options, DurationEstimator::By::kUser) {}
  bool preemptive() const override { return false; }
  bool rekeys_on_finish() const override { return true; }
  void compute_keys(std::span<const std::uint32_t> jobs, const PolicyContext& ctx,
                    std::span<PriorityKey> keys) override {
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const JobState& job = ctx.jobs[jobs[i]];
      keys[i] = {estimator_.estimate_waiting(job), job.submit};
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

std::unique_ptr<SchedulingPolicy> make_sju(const SchedulerOptions& options) {
  return std::make_unique<Sju>(options);
}

}  // namespace clustersim::policies
