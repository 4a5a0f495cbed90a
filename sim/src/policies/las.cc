// Least attained service: the job that has run for the least time goes first. Needs no
// knowledge of durations. Preemptive at lease boundaries.
#include "policies/factories.h"

namespace clustersim::policies {

namespace {
class Las final : public SchedulingPolicy {
 public:
  bool preemptive() const override { return true; }
  void compute_keys(std::span<const std::uint32_t> jobs, const PolicyContext& ctx,
                    std::span<PriorityKey> keys) override {
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const JobState& job = ctx.jobs[jobs[i]];
      keys[i] = {job.attained_at(ctx.now), job.submit};
    }
  }
};
}  // namespace

std::unique_ptr<SchedulingPolicy> make_las(const SchedulerOptions&) {
  return std::make_unique<Las>();
}

}  // namespace clustersim::policies
