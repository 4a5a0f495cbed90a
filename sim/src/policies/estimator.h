// Duration estimates learned from the trace prefix only: each job's estimate comes from the jobs
// of its group (its user, its model, its model and GPU count, or its VC) that have finished before
// now, never from its own duration or from jobs yet to finish. The shared part of the estimate
// policies (qssf.cc, sju.cc, sjg.cc, sjgg.cc), configured by [scheduler] estimator (mean | last_k |
// quantile), estimator_k and estimator_quantile.
//
// A group with no finished job yet takes the estimate of all finished jobs; with none at all the
// estimate is 0 (every job ties, and the earliest submitted goes first). When a job finishes, its
// group's estimate and the global one change: the waiting jobs of its group, and those of groups
// with no history (they use the global one), are re-keyed (SchedulingPolicy::on_finished).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "clustersim/policy.h"

namespace clustersim::policies {

class DurationEstimator {
 public:
  enum class By : std::uint8_t { kUser, kModel, kModelGpus, kVc };
  DurationEstimator(const SchedulerOptions& options, By by);

  // The job's estimate now (seconds at rate 1, as JobSpec::duration); remembers it as waiting in
  // its group, so that on_finished can re-key it.
  double estimate_waiting(const JobState& job);
  // A job finished: learn its duration; append the waiting jobs whose estimate changed.
  void finished(const JobState& job, std::span<const JobState> jobs,
                std::vector<std::uint32_t>& rekey);

  // The estimate of group `group` (its id, from group_of) as of now.
  double estimate(int group) const;
  int group_of(const JobState& job);

 private:
  struct History {
    std::vector<double> durations;  // in finishing order (mean, last k)
    std::vector<double> sorted;     // the same, sorted (quantile only)
    double sum = 0.0;
    double estimate = 0.0;
  };
  void learn(History& history, double duration) const;
  void collect(int group, std::span<const JobState> jobs, std::vector<std::uint32_t>& rekey);

  enum class Method : std::uint8_t { kMean, kLastK, kQuantile };
  Method method_ = Method::kMean;
  std::size_t k_ = 5;
  double quantile_ = 0.5;
  By by_;
  std::unordered_map<std::string, int> group_ids_;
  std::vector<int> job_group_;  // by job index; -1: not yet seen
  std::vector<History> groups_;
  History all_;
  // Waiting jobs as keyed, by group (a job listed once: listed_); pruned as jobs leave the queue.
  std::vector<std::vector<std::uint32_t>> waiting_;
  std::vector<std::uint8_t> listed_;
};

// Shortest first by an estimated duration (qssf, sju, sjg, sjgg): the key is the job's estimate,
// times its GPUs when `by_gpu_time` (expected GPU-time), then its submit time; waiting jobs are
// re-keyed as finished jobs change their group's estimate. Non-preemptive.
class EstimatedShortestFirst final : public SchedulingPolicy {
 public:
  EstimatedShortestFirst(const SchedulerOptions& options, DurationEstimator::By by,
                         bool by_gpu_time)
      : estimator_(options, by), by_gpu_time_(by_gpu_time) {}
  bool preemptive() const override { return false; }
  bool rekeys_on_finish() const override { return true; }
  void compute_keys(std::span<const std::uint32_t> jobs, const PolicyContext& ctx,
                    std::span<PriorityKey> keys) override {
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const JobState& job = ctx.jobs[jobs[i]];
      const double estimate = estimator_.estimate_waiting(job);
      keys[i] = {by_gpu_time_ ? job.requested_gpus * estimate : estimate, job.submit};
    }
  }
  void on_finished(std::uint32_t job, const PolicyContext& ctx,
                   std::vector<std::uint32_t>& rekey) override {
    estimator_.finished(ctx.jobs[job], ctx.jobs, rekey);
  }

 private:
  DurationEstimator estimator_;
  bool by_gpu_time_;
};

}  // namespace clustersim::policies
