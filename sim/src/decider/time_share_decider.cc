#include "decider/time_share_decider.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "clustersim/component.h"
#include "decider/time_share_common.h"

namespace clustersim::internal {

TimeShareDecider::TimeShareDecider(const SimOptions& options, PlacementStage& placement)
    : options_(options), placement_(placement), shuffler_(options.seed) {
  const std::string& policy = options.scheduler.policy;
  if (!has_own_decider(options.scheduler))
    throw std::invalid_argument("time-share decider: '" + policy + "' is not a time-share policy");
  if (options.scheduler.rounds != "gavel")
    throw std::invalid_argument("time-share decider: Gavel's rounds, not rounds = \"" +
                                options.scheduler.rounds + "\"");
  if (!(options.scheduler.lease_s > 0.0))
    throw std::invalid_argument("scheduler.lease_s must be > 0 for Gavel's rounds");
  perf_ = policy.ends_with("_perf");
  fifo_ = policy == "fifo_perf";
  shuffle_ = options.scheduler.type_order == "shuffle";
}

void TimeShareDecider::attach(Host& host) {
  host_ = &host;
  view_ = &host.view();
  types_ = static_cast<int>(view().cluster().gpu_type_names().size());
  stop_timer_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
  type_time_.assign(static_cast<std::size_t>(types_), 0.0);
  jobs_added();
}

void TimeShareDecider::jobs_added() {
  const std::size_t n = view().jobs().size();
  const auto per_type = n * static_cast<std::size_t>(types_);
  allocation_.resize(per_type, 0.0);
  job_time_.resize(per_type, 0.0);
  deficit_.resize(per_type, 0.0);
  allocated_.resize(n, 0);
  is_active_.resize(n, 0);
  last_ran_.resize(n, 0);
  jobs_expected_ = 0;
  for (const JobState& job : view().jobs()) jobs_expected_ += job.phase != JobPhase::kRejected;
}

std::optional<std::uint32_t> TimeShareDecider::head_of_queue() const {
  for (std::uint32_t job : active_)
    if (view().jobs()[job].phase == JobPhase::kWaiting) return job;
  return std::nullopt;
}

void TimeShareDecider::on_finished(std::uint32_t job) {
  is_active_[job] = 0;
  active_.erase(std::find(active_.begin(), active_.end(), job));
  need_update_ = true;
}

void TimeShareDecider::on_timer(const Timer& timer) {
  if (timer.tag != round_) return;
  const JobState& job = view().jobs()[timer.subject];
  if (job.phase != JobPhase::kRunning) return;
  plan_.clear();
  plan_.end_lease(timer.subject);  // no grants: its micro-task is over, it stops
  host_->apply(plan_);
}

// Gavel's _reset_time_run_so_far: what each job should have run under the allocation since the
// last reset, minus what it ran, adds to its deficit; the time run starts again at lease / 2.
void TimeShareDecider::reset_time_run(Time now) {
  const double elapsed = now - last_reset_;
  const double half = options_.scheduler.lease_s / 2.0;
  const auto types = static_cast<std::size_t>(types_);
  for (std::size_t t = 0; t < types; ++t) {
    type_time_[t] = 0.0;
    for (std::uint32_t job : active_) {
      const std::size_t c = job * types + t;
      const double received = job_time_[c] - half;
      const double owed = allocated_[job] ? allocation_[c] * elapsed : 0.0;
      deficit_[c] += owed - received;
      job_time_[c] = half;
      type_time_[t] += half;
    }
  }
  last_reset_ = now;
}

void TimeShareDecider::compute_allocation() {
  solve_allocation(view(), options_, active_, allocation_);
  std::fill(allocated_.begin(), allocated_.end(), 0);
  for (std::uint32_t job : active_) allocated_[job] = 1;
}

bool TimeShareDecider::start_round(Time now) {
  const auto types = static_cast<std::size_t>(types_);
  const double lease = options_.scheduler.lease_s;
  // The last round's micro-tasks are done: what each ran counts (Gavel's done callback).
  for (const Task& task : tasks_) {
    if (is_active_[task.job])
      job_time_[task.job * types + static_cast<std::size_t>(task.type)] += task.seconds;
    type_time_[static_cast<std::size_t>(task.type)] += task.seconds;
  }
  tasks_.clear();
  ++round_;
  // Gavel forces a reset when the last round ran no micro-task and every job has been added.
  if (last_round_empty_ && arrivals_seen_ >= jobs_expected_) last_reset_ = 0.0;
  // Jobs that arrived since the last round join.
  for (std::uint32_t job : arrived_) {
    active_.push_back(job);
    is_active_[job] = 1;
    allocated_[job] = 0;
    for (std::size_t t = 0; t < types; ++t) {
      job_time_[job * types + t] = lease / 2.0;
      deficit_[job * types + t] = 0.0;
    }
    need_update_ = true;
  }
  arrivals_seen_ += arrived_.size();
  arrived_.clear();
  if (active_.empty()) {
    last_round_empty_ = true;
    return false;
  }
  // Gavel's _update_priorities: a new allocation at a reset.
  if (need_update_ &&
      (now - last_reset_ >= options_.scheduler.allocation_reset_s || last_reset_ == 0.0)) {
    reset_time_run(now);
    compute_allocation();
    need_update_ = false;
  }
  // Per type, the jobs by priority (then deficit, then allocation; then order of arrival).
  struct Entry {
    std::uint32_t job;
    int type;
    double priority, deficit, allocation;
  };
  std::vector<int> order(types);
  std::iota(order.begin(), order.end(), 0);
  if (shuffle_ || (!perf_ && !fifo_ && options_.scheduler.type_order != "fixed"))
    std::shuffle(order.begin(), order.end(), shuffler_);
  std::vector<Entry> queue;
  for (int type : order) {
    const auto t = static_cast<std::size_t>(type);
    const std::size_t first = queue.size();
    for (std::uint32_t job : active_) {
      const std::size_t c = job * types + t;
      double priority = 0.0;
      if (allocated_[job] && allocation_[c] > 0.0 && steps_per_second(view(), job, type) > 0.0) {
        const double fraction = type_time_[t] > 0.0 ? job_time_[c] / type_time_[t] : 0.0;
        priority = fraction > 0.0 ? allocation_[c] / fraction : allocation_[c] * 1e9;
      }
      queue.push_back({job, type, priority, deficit_[c], allocated_[job] ? allocation_[c] : 0.0});
    }
    std::stable_sort(queue.begin() + static_cast<std::ptrdiff_t>(first), queue.end(),
                     [](const Entry& a, const Entry& b) {
                       if (a.priority != b.priority) return a.priority > b.priority;
                       if (a.deficit != b.deficit) return a.deficit > b.deficit;
                       return a.allocation > b.allocation;
                     });
  }
  // Greedy: each job on the first type where it ranks and fits.
  std::vector<int> left(types);
  for (std::size_t t = 0; t < types; ++t)
    left[t] = view().cluster().total_gpus(static_cast<int>(t));
  std::vector<std::pair<std::uint32_t, int>> scheduled;
  std::vector<std::uint8_t> taken(view().jobs().size(), 0);
  for (const Entry& e : queue) {
    const auto t = static_cast<std::size_t>(e.type);
    const JobState& job = view().jobs()[e.job];
    if (left[t] == 0 || taken[e.job] || steps_per_second(view(), e.job, e.type) <= 0.0) continue;
    if (fifo_ && e.priority <= 0.0) continue;
    if (job.requested_gpus > left[t]) continue;
    left[t] -= job.requested_gpus;
    taken[e.job] = 1;
    scheduled.push_back({e.job, e.type});
  }
  // Largest jobs first within a type (Gavel assigns workers so, for locality).
  std::stable_sort(scheduled.begin(), scheduled.end(), [&](const auto& a, const auto& b) {
    if (a.second != b.second) return a.second < b.second;
    return view().jobs()[a.first].requested_gpus > view().jobs()[b.first].requested_gpus;
  });
  for (const auto& [index, type] : scheduled) {
    const JobState& job = view().jobs()[index];
    if (job.phase != JobPhase::kWaiting) continue;  // still saving its last checkpoint
    // A job that ran in the last round continues its lease (Gavel extends it): its micro-task's
    // stop was no preemption.
    const bool continues = job.lease_ended && last_ran_[index] + 1 == round_;
    if (!start_on_type(*host_, placement_, index, type, shares_, plan_, continues)) continue;
    last_ran_[index] = round_;
    // Its micro-task: whole steps, as many as fit in a lease at its speed there.
    const JobSpec& spec = *job.spec;
    const double per_step = spec.steps > 0.0 ? spec.steps / spec.duration : 1.0;
    const double speed = view().jobs()[index].rate * per_step;  // steps/s where it runs
    const double left_steps = steps_left(view(), index);
    const double steps = spec.steps > 0.0
                             ? std::min(std::max(1.0, std::floor(speed * lease)), left_steps)
                             : std::min(speed * lease, left_steps);
    const double seconds = steps / speed;
    tasks_.push_back({index, type, seconds});
    // The last micro-task ends with the job's completion (the engine's event); others stop.
    if (steps < left_steps) host_->schedule(now + seconds, stop_timer_, index, round_);
  }
  last_round_empty_ = tasks_.empty();
  return !tasks_.empty();
}

void TimeShareDecider::decide(const DecisionPoint& point) {
  // A round goes on while any of its micro-tasks runs.
  for (const Task& task : tasks_)
    if (view().jobs()[task.job].phase == JobPhase::kRunning ||
        view().jobs()[task.job].phase == JobPhase::kRestoring)
      return;
  if (!start_round(point.now) && !active_.empty() && arrivals_seen_ >= jobs_expected_)
    start_round(point.now);  // nothing could run and nothing will arrive: a forced reset
}

}  // namespace clustersim::internal
