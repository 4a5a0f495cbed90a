// Tiresias (Gu et al., NSDI'19), discretized two-dimensional LAS: a job's attained service is
// GPUs x seconds run; queues are bounded by `tiresias_thresholds`; a lower queue always goes
// first and jobs within a queue are FIFO. Preemptive at lease boundaries.
#include <algorithm>
#include <stdexcept>

#include "clustersim/simulator.h"
#include "options/declare.h"
#include "policies/factories.h"

namespace clustersim::policies {

namespace {
class Tiresias final : public SchedulingPolicy {
 public:
  explicit Tiresias(std::vector<double> thresholds) : thresholds_(std::move(thresholds)) {
    for (std::size_t i = 0; i < thresholds_.size(); ++i)
      if (!(thresholds_[i] > 0.0) || (i > 0 && thresholds_[i] <= thresholds_[i - 1]))
        throw std::invalid_argument("tiresias_thresholds must be positive and ascending");
  }
  bool preemptive() const override { return true; }
  void compute_keys(std::span<const std::uint32_t> jobs, const PolicyContext& ctx,
                    std::span<PriorityKey> keys) override {
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const JobState& job = ctx.jobs[jobs[i]];
      const double service = job.gpus * job.attained_at(ctx.now);
      const auto queue =
          std::upper_bound(thresholds_.begin(), thresholds_.end(), service) - thresholds_.begin();
      keys[i] = {static_cast<double>(queue), job.submit};
    }
  }

 private:
  std::vector<double> thresholds_;
};
}  // namespace

std::unique_ptr<SchedulingPolicy> make_tiresias(const SchedulerOptions& options) {
  return std::make_unique<Tiresias>(options.tiresias_thresholds);
}

}  // namespace clustersim::policies

namespace clustersim::options {

void declare_tiresias_keys(KeyRegistry& keys) {
  field<SimOptions>(
      keys, "scheduler.tiresias_thresholds",
      [](auto& o) -> auto& { return o.scheduler.tiresias_thresholds; })
      .component("policy tiresias")
      .training_only()
      .expected("a non-empty list of GPU-seconds")
      .check([](const OptionValue& value) -> std::string {
        const auto& thresholds = std::get<std::vector<double>>(value);
        if (thresholds.empty()) return "expected a non-empty list of GPU-seconds";
        for (std::size_t i = 0; i < thresholds.size(); ++i)
          if (!(thresholds[i] > 0.0) || (i > 0 && thresholds[i] <= thresholds[i - 1]))
            return "expected positive, ascending GPU-seconds";
        return "";
      })
      .doc("Tiresias queue boundaries, in attained GPU-seconds (positive, ascending).");
}

}  // namespace clustersim::options
