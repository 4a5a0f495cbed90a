// First in, first out: jobs are served in submission order. Non-preemptive.
#include "policies/factories.h"

namespace clustersim::policies {

namespace {
class Fifo final : public SchedulingPolicy {
 public:
  bool preemptive() const override { return false; }
  void compute_keys(std::span<const std::uint32_t> jobs, const PolicyContext& ctx,
                    std::span<PriorityKey> keys) override {
    for (std::size_t i = 0; i < jobs.size(); ++i) keys[i] = {ctx.jobs[jobs[i]].submit, 0.0};
  }
};
}  // namespace

std::unique_ptr<SchedulingPolicy> make_fifo(const SchedulerOptions&) {
  return std::make_unique<Fifo>();
}

}  // namespace clustersim::policies
