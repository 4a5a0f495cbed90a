// Shortest job first by an estimate learned from the finished jobs of its group, the jobs of its
// model (PAI's SJG: shortest job by the group's history; PAI groups jobs of one entry script, the
// model is its nearest field here) (Weng et al., NSDI'22, the PAI cluster's simulator; estimator.h:
// from the trace prefix only, re-keyed as jobs finish). Non-preemptive. The oracle form is `sjf`.
#include "policies/estimator.h"
#include "policies/factories.h"

namespace clustersim::policies {

namespace {
class Sjg final : public SchedulingPolicy {
 public:
  explicit Sjg(const SchedulerOptions& options)
      : estimator_(options, DurationEstimator::By::kModel) {}
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

std::unique_ptr<SchedulingPolicy> make_sjg(const SchedulerOptions& options) {
  return std::make_unique<Sjg>(options);
}

}  // namespace clustersim::policies
