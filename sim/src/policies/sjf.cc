// Shortest job first: the job with the smallest total duration goes first. Non-preemptive; it
// knows durations in advance (an oracle, as in the literature).
#include "policies/factories.h"

namespace clustersim::policies {

namespace {
class Sjf final : public SchedulingPolicy {
 public:
  bool preemptive() const override { return false; }
  void compute_keys(std::span<const std::uint32_t> jobs, const PolicyContext& ctx,
                    std::span<PriorityKey> keys) override {
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const JobState& job = ctx.jobs[jobs[i]];
      keys[i] = {job.work, job.submit};
    }
  }
};
}  // namespace

std::unique_ptr<SchedulingPolicy> make_sjf(const SchedulerOptions&) {
  return std::make_unique<Sjf>();
}

}  // namespace clustersim::policies
