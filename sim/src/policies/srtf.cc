// Shortest remaining time first: at each lease boundary the jobs with the least work left run.
// Preemptive; an oracle for durations, as in the literature.
#include "policies/factories.h"

namespace clustersim::policies {

namespace {
class Srtf final : public SchedulingPolicy {
 public:
  bool preemptive() const override { return true; }
  void compute_keys(std::span<const std::uint32_t> jobs, const PolicyContext& ctx,
                    std::span<PriorityKey> keys) override {
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const JobState& job = ctx.jobs[jobs[i]];
      keys[i] = {job.remaining_at(ctx.now), job.submit};
    }
  }
};
}  // namespace

std::unique_ptr<SchedulingPolicy> make_srtf(const SchedulerOptions&) {
  return std::make_unique<Srtf>();
}

}  // namespace clustersim::policies
