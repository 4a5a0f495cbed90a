#include "policies/estimator.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "options/declare.h"

namespace clustersim::policies {

DurationEstimator::DurationEstimator(const SchedulerOptions& options, By by) : by_(by) {
  if (options.estimator == "mean") {
    method_ = Method::kMean;
  } else if (options.estimator == "last_k") {
    method_ = Method::kLastK;
  } else if (options.estimator == "quantile") {
    method_ = Method::kQuantile;
  } else {
    throw std::invalid_argument("scheduler.estimator: unknown estimator '" + options.estimator +
                                "' (mean, last_k, quantile)");
  }
  if (options.estimator_k < 1) throw std::invalid_argument("scheduler.estimator_k must be >= 1");
  if (!(options.estimator_quantile >= 0.0 && options.estimator_quantile <= 1.0))
    throw std::invalid_argument("scheduler.estimator_quantile must be in [0, 1]");
  k_ = static_cast<std::size_t>(options.estimator_k);
  quantile_ = options.estimator_quantile;
}

int DurationEstimator::group_of(const JobState& job) {
  if (job.index >= job_group_.size()) job_group_.resize(job.index + 1, -1);
  int& group = job_group_[job.index];
  if (group >= 0) return group;
  // kModelGpus: the model, then the GPU count after a '\0' (no model name holds one).
  const std::string name = by_ == By::kUser    ? job.spec->user
                           : by_ == By::kModel ? job.spec->model
                           : by_ == By::kModelGpus
                               ? job.spec->model + '\0' + std::to_string(job.requested_gpus)
                               : job.spec->vc;
  const auto [it, added] = group_ids_.emplace(name, static_cast<int>(groups_.size()));
  if (added) {
    groups_.emplace_back();
    waiting_.emplace_back();
  }
  group = it->second;
  return group;
}

double DurationEstimator::estimate(int group) const {
  const History& history = groups_[static_cast<std::size_t>(group)];
  return history.durations.empty() ? all_.estimate : history.estimate;
}

double DurationEstimator::estimate_waiting(const JobState& job) {
  const int group = group_of(job);
  if (job.index >= listed_.size()) listed_.resize(job.index + 1, 0);
  if (!listed_[job.index]) {
    listed_[job.index] = 1;
    waiting_[static_cast<std::size_t>(group)].push_back(job.index);
  }
  return estimate(group);
}

void DurationEstimator::learn(History& history, double duration) const {
  history.durations.push_back(duration);
  history.sum += duration;
  const auto& d = history.durations;
  switch (method_) {
    case Method::kMean:
      history.estimate = history.sum / static_cast<double>(d.size());
      break;
    case Method::kLastK: {
      const std::size_t n = std::min(k_, d.size());
      double sum = 0.0;
      for (std::size_t i = d.size() - n; i < d.size(); ++i) sum += d[i];
      history.estimate = sum / static_cast<double>(n);
      break;
    }
    case Method::kQuantile: {
      auto& s = history.sorted;
      s.insert(std::upper_bound(s.begin(), s.end(), duration), duration);
      // Linear interpolation between closest ranks (numpy's default).
      const double rank = quantile_ * static_cast<double>(s.size() - 1);
      const auto lo = static_cast<std::size_t>(std::floor(rank));
      const std::size_t hi = std::min(lo + 1, s.size() - 1);
      history.estimate = s[lo] + (s[hi] - s[lo]) * (rank - static_cast<double>(lo));
      break;
    }
  }
}

void DurationEstimator::collect(int group, std::span<const JobState> jobs,
                                std::vector<std::uint32_t>& rekey) {
  auto& list = waiting_[static_cast<std::size_t>(group)];
  std::size_t kept = 0;
  for (std::uint32_t index : list) {
    if (jobs[index].phase != JobPhase::kWaiting) {
      listed_[index] = 0;  // it left the queue: listed again if it waits again
      continue;
    }
    list[kept++] = index;
    rekey.push_back(index);
  }
  list.resize(kept);
}

void DurationEstimator::finished(const JobState& job, std::span<const JobState> jobs,
                                 std::vector<std::uint32_t>& rekey) {
  const int group = group_of(job);
  History& history = groups_[static_cast<std::size_t>(group)];
  const bool first = history.durations.empty();
  learn(history, job.spec->duration);
  learn(all_, job.spec->duration);
  collect(group, jobs, rekey);
  // Groups without history follow the global estimate, which changed.
  for (std::size_t g = 0; g < groups_.size(); ++g)
    if (groups_[g].durations.empty() && static_cast<int>(g) != group)
      collect(static_cast<int>(g), jobs, rekey);
  (void)first;
}

}  // namespace clustersim::policies

namespace clustersim::options {

void declare_estimator_keys(KeyRegistry& keys) {
  const std::vector<std::string> estimating = {"qssf", "sju", "sjg", "sjgg"};
  field<SimOptions>(
      keys, "scheduler.estimator", [](auto& o) -> auto& { return o.scheduler.estimator; })
      .choices({"mean", "last_k", "quantile"})
      .when("scheduler.policy", estimating)
      .component("policy estimates")
      .training_only()
      .doc(
          "How `qssf`, `sju`, `sjg` and `sjgg` estimate a job's duration from the finished jobs of "
          "its "
          "group (never its own): their mean, the mean of the last `estimator_k`, or the "
          "`estimator_quantile`; a group with none yet takes all finished jobs' estimate (none: "
          "0).");
  field<SimOptions>(
      keys, "scheduler.estimator_k", [](auto& o) -> auto& { return o.scheduler.estimator_k; })
      .range(1, 1 << 20)
      .when("scheduler.policy", estimating)
      .component("policy estimates")
      .training_only()
      .doc("`estimator = \"last_k\"`: how many of the group's last finished jobs.");
  field<SimOptions>(
      keys, "scheduler.estimator_quantile",
      [](auto& o) -> auto& { return o.scheduler.estimator_quantile; })
      .range(0.0, 1.0)
      .when("scheduler.policy", estimating)
      .component("policy estimates")
      .training_only()
      .doc("`estimator = \"quantile\"`: which quantile of the group's finished durations.");
  field<SimOptions>(
      keys, "scheduler.estimate_by", [](auto& o) -> auto& { return o.scheduler.estimate_by; })
      .choices({"user", "model", "vc"})
      .when("scheduler.policy", {"qssf"})
      .component("policy estimates")
      .training_only()
      .doc(
          "`qssf`: whose finished jobs estimate a job's duration (`sju`: its user's; `sjg`: its "
          "group's, the jobs of its model; `sjgg`: those of its model and GPU count).");
}

}  // namespace clustersim::options
