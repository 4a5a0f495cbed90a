#include "decider/exact_time_share_decider.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "clustersim/component.h"
#include "clustersim/time_share.h"
#include "decider/time_share_common.h"

namespace clustersim::internal {

namespace {
// Fractions below this are the LP solver's noise, not a share: a lease of a millionth of
// lease_s would only add events.
constexpr double kNoShare = 1e-6;
// A filler's lease has no end of its own (the ranking ends it).
constexpr Time kNoEnd = std::numeric_limits<Time>::infinity();
}  // namespace

ExactTimeShareDecider::ExactTimeShareDecider(const SimOptions& options, PlacementStage& placement)
    : options_(options),
      placement_(placement),
      lease_s_(options.scheduler.lease_s),
      fill_(options.scheduler.exact_fill == "idle") {
  const std::string& policy = options.scheduler.policy;
  if (!has_own_decider(options.scheduler))
    throw std::invalid_argument("exact time-share decider: '" + policy +
                                "' is not a time-share policy");
  if (!(lease_s_ > 0.0))
    throw std::invalid_argument(
        "scheduler.lease_s must be > 0 with rounds = \"exact\" (the period over which each job "
        "gets its fraction)");
  if (options.scheduler.exact_fill != "none" && !fill_)
    throw std::invalid_argument("scheduler.exact_fill must be \"none\" or \"idle\", not \"" +
                                options.scheduler.exact_fill + "\"");
}

void ExactTimeShareDecider::attach(Host& host) {
  host_ = &host;
  view_ = &host.view();
  types_ = static_cast<int>(view().cluster().gpu_type_names().size());
  lease_end_ = host.add_timer_kind(*this, TimerPhase::kAfterArrivals);
  room_.assign(static_cast<std::size_t>(types_), 0);
  reserved_.assign(static_cast<std::size_t>(types_), 0);
  jobs_added();
}

void ExactTimeShareDecider::jobs_added() {
  const std::size_t n = view().jobs().size();
  allocation_.resize(n * static_cast<std::size_t>(types_), 0.0);
  deficit_.resize(n * static_cast<std::size_t>(types_), 0.0);
  lease_.resize(n);
  arrival_.resize(n, 0);
  picked_.resize(n, -1);
  filled_.resize(n, 0);
}

void ExactTimeShareDecider::on_arrival(std::uint32_t job) {
  active_.push_back(job);
  arrival_[job] = arrivals_++;
  must_solve_ = true;
}

void ExactTimeShareDecider::on_finished(std::uint32_t job) {
  active_.erase(std::find(active_.begin(), active_.end(), job));
  lease_[job] = Lease{};
  must_solve_ = true;
}

std::optional<std::uint32_t> ExactTimeShareDecider::head_of_queue() const {
  for (std::uint32_t job : active_)
    if (view().jobs()[job].phase == JobPhase::kWaiting) return job;
  return std::nullopt;
}

double ExactTimeShareDecider::share(std::uint32_t job, int type) const {
  const double x = allocation_[cell(job, type)];
  return x >= kNoShare ? x : 0.0;
}

// Deficits up to now, under the allocation and the leases held since the last decision (both
// change only at decisions); a filler's time is not charged.
void ExactTimeShareDecider::accrue(Time now) {
  const double elapsed = now - accrued_until_;
  accrued_until_ = now;
  if (elapsed <= 0.0) return;
  for (std::uint32_t job : active_) {
    for (int t = 0; t < types_; ++t) deficit_[cell(job, t)] += share(job, t) * elapsed;
    if (lease_[job].type >= 0 && !lease_[job].fill)
      deficit_[cell(job, lease_[job].type)] -= elapsed;
  }
}

// A new allocation over the active jobs; running leases are cut to their new length (a
// filler's has none: the ranking decides whether it goes on).
void ExactTimeShareDecider::solve(Time now) {
  if (active_.empty()) return;
  solve_allocation(view(), options_, active_, allocation_);
  for (std::uint32_t job : active_) {
    Lease& lease = lease_[job];
    if (lease.type < 0 || lease.fill || lease.end <= now) continue;
    const Time cut = lease.start + share(job, lease.type) * lease_s_;
    if (cut >= lease.end) continue;
    lease.end = std::max(cut, now);
    if (lease.end > now) host_->schedule(lease.end, lease_end_, job);
  }
}

// The ranking: every (job, type) with a share, for the jobs without a lease running on (a
// running filler's GPUs count as room, as if its lease had ended); with the fill, the fillers'
// ranking too.
void ExactTimeShareDecider::rank_candidates(Time now) {
  const ClusterState& cluster = view().cluster();
  for (int t = 0; t < types_; ++t) room_[static_cast<std::size_t>(t)] = cluster.free_gpus(t);
  candidates_.clear();
  fillers_.clear();
  for (std::uint32_t job : active_) {
    picked_[job] = -1;
    filled_[job] = 0;
    const JobState& state = view().jobs()[job];
    Lease& lease = lease_[job];
    if (lease.type >= 0 && !state.holds_gpus()) lease = Lease{};  // its node failed
    const bool holds = lease.type >= 0;
    // A lease running on, or one that ended while the job still restores (it cannot be stopped
    // before it runs); a job saving its state after a stop cannot start yet.
    if (holds && ((!lease.fill && lease.end > now) || state.phase != JobPhase::kRunning)) continue;
    if (!holds && state.phase != JobPhase::kWaiting) continue;
    if (holds) room_[static_cast<std::size_t>(lease.type)] += state.gpus;
    for (int t = 0; t < types_; ++t) {
      if (share(job, t) <= 0.0 || steps_per_second(view(), job, t) <= 0.0) continue;
      candidates_.push_back(
          {std::llround(deficit_[cell(job, t)] * 1e6), holds, arrival_[job], t, job});
    }
    if (!fill_) continue;
    // A job that holds GPUs fills on where it is (a move would be a stop); one that waits, on
    // any type where it can run.
    for (int t = holds ? lease.type : 0; t < (holds ? lease.type + 1 : types_); ++t) {
      const double speed = steps_per_second(view(), job, t);
      if (speed <= 0.0) continue;
      fillers_.push_back(
          {holds, std::llround(deficit_[cell(job, t)] * 1e6), arrival_[job], speed, t, job});
    }
  }
  std::sort(candidates_.begin(), candidates_.end(), [](const Candidate& a, const Candidate& b) {
    if (a.deficit_us != b.deficit_us) return a.deficit_us > b.deficit_us;
    if (a.holds != b.holds) return !a.holds;
    if (a.arrival != b.arrival) return a.arrival < b.arrival;
    return a.type < b.type;
  });
  std::sort(fillers_.begin(), fillers_.end(), [](const Filler& a, const Filler& b) {
    if (a.holds != b.holds) return a.holds;
    if (a.deficit_us != b.deficit_us) return a.deficit_us > b.deficit_us;
    if (a.arrival != b.arrival) return a.arrival < b.arrival;
    if (a.speed != b.speed) return a.speed > b.speed;
    return a.type < b.type;
  });
}

// Walks the ranking: each job on the first of its types with room; a job behind its share
// that does not fit reserves its type against the jobs ranked below it.
void ExactTimeShareDecider::pick() {
  std::fill(reserved_.begin(), reserved_.end(), 0);
  for (const Candidate& c : candidates_) {
    const auto t = static_cast<std::size_t>(c.type);
    if (picked_[c.job] >= 0 || reserved_[t]) continue;
    const int gpus = view().jobs()[c.job].requested_gpus;
    if (gpus <= room_[t]) {
      picked_[c.job] = c.type;
      room_[t] -= gpus;
    } else if (c.deficit_us > 0) {
      reserved_[t] = 1;
    }
  }
}

// The fill: the room the ranking left goes to the fillers in their order, reservations aside (a
// filler's GPUs count as room for every share-holder at the next decision, so it never holds
// one off).
void ExactTimeShareDecider::fill() {
  for (const Filler& f : fillers_) {
    const auto t = static_cast<std::size_t>(f.type);
    if (picked_[f.job] >= 0) continue;
    const int gpus = view().jobs()[f.job].requested_gpus;
    if (gpus > room_[t]) continue;
    picked_[f.job] = f.type;
    filled_[f.job] = 1;
    room_[t] -= gpus;
  }
}

void ExactTimeShareDecider::grant_lease(std::uint32_t job, int type, Time now) {
  lease_[job] = Lease{type, now, now + share(job, type) * lease_s_};
  host_->schedule(lease_[job].end, lease_end_, job);
}

void ExactTimeShareDecider::decide(const DecisionPoint& point) {
  const Time now = point.now;
  accrue(now);
  if (must_solve_) {
    solve(now);
    must_solve_ = false;
  }
  rank_candidates(now);
  pick();
  if (fill_) fill();
  // Leases that ended, and fillers: renewed in place where the job keeps its type (a filler's
  // goes on as it is, or becomes a lease of its share), else stopped (one plan; a job whose
  // share is now 0 everywhere, and that fills nowhere, is picked nowhere and stops).
  plan_.clear();
  for (std::uint32_t job : active_) {
    const Lease& lease = lease_[job];
    if (lease.type < 0 || (!lease.fill && lease.end > now) ||
        view().jobs()[job].phase != JobPhase::kRunning)
      continue;
    if (picked_[job] == lease.type) {
      if (!filled_[job])
        grant_lease(job, lease.type, now);
      else if (!lease.fill)
        lease_[job] = Lease{lease.type, now, kNoEnd, true};
    } else {
      plan_.end_lease(job);  // no grants: it stops
      lease_[job] = Lease{};
    }
  }
  if (!plan_.empty()) host_->apply(plan_);
  // The picked jobs that wait start now, in ranking order, where the placement finds their GPUs
  // (a job just stopped starts only once it has saved its state: checkpoint_s 0).
  for (const Candidate& c : candidates_) {
    if (picked_[c.job] != c.type || filled_[c.job] || lease_[c.job].type >= 0) continue;
    if (view().jobs()[c.job].phase != JobPhase::kWaiting) continue;
    if (start_on_type(*host_, placement_, c.job, c.type, shares_, plan_, moves_at_once(c.job, now)))
      grant_lease(c.job, c.type, now);
  }
  // Then the fillers picked, in their order, on what is left.
  for (const Filler& f : fillers_) {
    if (picked_[f.job] != f.type || !filled_[f.job] || lease_[f.job].type >= 0) continue;
    if (view().jobs()[f.job].phase != JobPhase::kWaiting) continue;
    if (start_on_type(*host_, placement_, f.job, f.type, shares_, plan_, moves_at_once(f.job, now)))
      lease_[f.job] = Lease{f.type, now, kNoEnd, true};
  }
}

void ExactTimeShareDecider::check_invariants() const {
  for (std::uint32_t job : active_) {
    const Lease& lease = lease_[job];
    if (lease.type < 0) continue;
    const JobState& state = view().jobs()[job];
    if (state.phase != JobPhase::kRunning && state.phase != JobPhase::kRestoring)
      throw std::logic_error("exact time-share: job '" + state.spec->id +
                             "' holds a lease but does not hold its GPUs");
    if (view().type_held(job) != lease.type)
      throw std::logic_error("exact time-share: job '" + state.spec->id +
                             "' holds GPUs of another type than its lease");
  }
}

}  // namespace clustersim::internal
