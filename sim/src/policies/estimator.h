// Duration estimates learned from the trace prefix only: each job's estimate comes from the jobs
// of its group (its user, its model, or its VC) that have finished before now, never from its own
// duration or from jobs yet to finish. The shared part of the estimate policies (qssf.cc, sju.cc,
// sjg.cc), configured by [scheduler] estimator (mean | last_k | quantile), estimator_k and
// estimator_quantile.
//
// A group with no finished job yet takes the estimate of all finished jobs; with none at all the
// estimate is 0 (every job ties, and the earliest submitted goes first). When a job finishes, its
// group's estimate and the global one change: the waiting jobs of its group, and those of groups
// with no history (they use the global one), are re-keyed (SchedulingPolicy::on_finished).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "clustersim/policy.h"

namespace clustersim::policies {

class DurationEstimator {
 public:
  enum class By : std::uint8_t { kUser, kModel, kVc };
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

}  // namespace clustersim::policies
