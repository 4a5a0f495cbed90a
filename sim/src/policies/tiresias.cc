// Tiresias (Gu et al., NSDI'19), discretized two-dimensional LAS: a job's attained service is
// GPUs x seconds run; queues are bounded by `tiresias_thresholds`; a lower queue always goes
// first and jobs within a queue are FIFO. Preemptive at lease boundaries. With
// `tiresias_promote_knob` > 0, the paper's starvation guard: a job that has waited at least
// knob x the time it ran since its last promotion goes back to the first queue (checked at each
// preemption round, where waiting jobs are re-keyed).
#include <algorithm>
#include <stdexcept>

#include "clustersim/simulator.h"
#include "options/declare.h"
#include "policies/factories.h"

namespace clustersim::policies {

namespace {
class Tiresias final : public SchedulingPolicy {
 public:
  Tiresias(std::vector<double> thresholds, double promote_knob)
      : thresholds_(std::move(thresholds)), promote_knob_(promote_knob) {
    for (std::size_t i = 0; i < thresholds_.size(); ++i)
      if (!(thresholds_[i] > 0.0) || (i > 0 && thresholds_[i] <= thresholds_[i - 1]))
        throw std::invalid_argument("tiresias_thresholds must be positive and ascending");
    if (!(promote_knob_ >= 0.0)) throw std::invalid_argument("tiresias_promote_knob must be >= 0");
  }
  bool preemptive() const override { return true; }
  bool rekeys_waiting_at_rounds() const override { return promote_knob_ > 0.0; }
  void compute_keys(std::span<const std::uint32_t> jobs, const PolicyContext& ctx,
                    std::span<PriorityKey> keys) override {
    if (promote_knob_ > 0.0 && promoted_at_.size() < ctx.jobs.size())
      promoted_at_.resize(ctx.jobs.size(), 0.0);
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const JobState& job = ctx.jobs[jobs[i]];
      // Seconds run since its last promotion (since it arrived, without the guard).
      double run = job.attained_at(ctx.now);
      if (promote_knob_ > 0.0) {
        run -= promoted_at_[jobs[i]];
        // The starvation guard: waited at least knob x what it ran since its last promotion,
        // back to the first queue (a job that never ran is there already).
        if (job.phase == JobPhase::kWaiting && run > 0.0 && queue_of(job.gpus * run) > 0 &&
            ctx.now - job.phase_since >= promote_knob_ * run) {
          promoted_at_[jobs[i]] = job.attained_at(ctx.now);
          run = 0.0;
        }
      }
      keys[i] = {static_cast<double>(queue_of(job.gpus * run)), job.submit};
    }
  }

 private:
  std::ptrdiff_t queue_of(double service) const {
    return std::upper_bound(thresholds_.begin(), thresholds_.end(), service) - thresholds_.begin();
  }

  std::vector<double> thresholds_;
  double promote_knob_;
  std::vector<double> promoted_at_;  // by job: its attained seconds at its last promotion
};
}  // namespace

std::unique_ptr<SchedulingPolicy> make_tiresias(const SchedulerOptions& options) {
  return std::make_unique<Tiresias>(options.tiresias_thresholds, options.tiresias_promote_knob);
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
  field<SimOptions>(
      keys, "scheduler.tiresias_promote_knob",
      [](auto& o) -> auto& { return o.scheduler.tiresias_promote_knob; })
      .component("policy tiresias")
      .training_only()
      .range(0.0, 1e12)
      .doc(
          "Tiresias' starvation guard (PromoteKnob): at each preemption round a waiting job "
          "that has waited at least this many times the seconds it ran since its last "
          "promotion goes back to the first queue, its attained service counted from then; 0: "
          "off.");
}

}  // namespace clustersim::options
