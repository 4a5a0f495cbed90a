// DRF-style fair share across VCs. Jobs are keyed by progressive filling: within a VC in
// submission order, each job's key is its VC's weighted GPU share once that job (and the VC's
// earlier jobs) would run. Sorting by key interleaves VCs so the least-served VC goes next.
// With quotas, a VC's weight is its quota; without, VCs weigh the same. Preemptive at lease
// boundaries, so a VC over its fair share yields to one under it.
#include <algorithm>
#include <numeric>

#include "policies/factories.h"

namespace clustersim::policies {

namespace {
class Drf final : public SchedulingPolicy {
 public:
  bool preemptive() const override { return true; }
  bool dynamic_keys() const override { return true; }
  void compute_keys(std::span<const std::uint32_t> jobs, const PolicyContext& ctx,
                    std::span<PriorityKey> keys) override {
    order_.resize(jobs.size());
    std::iota(order_.begin(), order_.end(), 0u);
    std::sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
      const JobState& x = ctx.jobs[jobs[a]];
      const JobState& y = ctx.jobs[jobs[b]];
      if (x.vc != y.vc) return x.vc < y.vc;
      if (x.submit != y.submit) return x.submit < y.submit;
      return x.index < y.index;
    });
    usage_.assign(ctx.vc_base_gpus.begin(), ctx.vc_base_gpus.end());
    for (std::uint32_t position : order_) {
      const JobState& job = ctx.jobs[jobs[position]];
      usage_[job.vc] += job.gpus;
      const double share = usage_[job.vc] / ctx.total_gpus / ctx.vc_weights[job.vc];
      keys[position] = {share, job.submit};
    }
  }

 private:
  std::vector<std::uint32_t> order_;  // reused between calls: no allocation per pass
  std::vector<double> usage_;
};
}  // namespace

std::unique_ptr<SchedulingPolicy> make_drf(const SchedulerOptions&) {
  return std::make_unique<Drf>();
}

}  // namespace clustersim::policies
