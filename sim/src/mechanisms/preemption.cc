#include "mechanisms/preemption.h"

#include <algorithm>
#include <cmath>

#include "decider/decision_stages.h"
#include "decider/type_choice.h"
#include "mechanisms/keys.h"

namespace clustersim::internal {

Preemption::Preemption(const SimOptions& options)
    : options_(options),
      evicts_on_arrival_(options.mechanisms.preempt_on_arrival &&
                         options.scheduler.honor_priority) {}

void Preemption::attach(Host& host) {
  host_ = &host;
  timer_ = host.add_timer_kind(*this, TimerPhase::kAfterArrivals);
}

void Preemption::bind(DecisionStages& stages) {
  decision_ = &stages;
  const std::size_t types = stages.view().cluster().gpu_type_names().size();
  type_capacity_.assign(types, 0);
  type_idle_.assign(types, 0);
  type_admitted_.assign(types, 0);
}

void Preemption::on_timer(const Timer& timer) {
  (void)timer;
  round_event_ = true;
}

void Preemption::on_arrival(std::uint32_t job) {
  if (evicts_on_arrival_) arrived_.push_back(job);
}

bool Preemption::round_due(const DecisionPoint& point) {
  const bool waiting = !decision_->queue_empty();
  if (options_.scheduler.lease_s == 0.0) return point.jobs_came_or_went && waiting;
  // An instant that lands exactly on a lease boundary is that boundary's round, even when no
  // round was pending (the queue was empty until this instant's arrivals).
  bool due = round_event_;
  if (!due && !round_scheduled_ && waiting &&
      std::fmod(point.now, options_.scheduler.lease_s) == 0.0)
    due = true;
  if (due) round_scheduled_ = false;
  return due;
}

void Preemption::before_pass(const DecisionPoint& point) {
  if (round_due(point)) round(point.now);
  if (!arrived_.empty()) evict_for_arrivals();
}

std::optional<Time> Preemption::next_round(Time now) {
  if (round_scheduled_ || decision_->queue_empty() || decision_->view().holders().empty() ||
      options_.scheduler.lease_s == 0.0)
    return std::nullopt;
  round_scheduled_ = true;
  const double lease = options_.scheduler.lease_s;
  return (std::floor(now / lease) + 1.0) * lease;
}

void Preemption::after_decision(Time now) {
  if (auto boundary = next_round(now)) host_->schedule(*boundary, timer_);
  round_event_ = false;
}

// A higher-priority arrival evicts running jobs of lower priority at once, the lowest priority
// (then the lowest in policy order) first, when enough of them hold GPUs of its type; the pass
// then starts it as they give their GPUs back.
void Preemption::evict_for_arrivals() {
  const View& view = decision_->view();
  const Ordering& ordering = decision_->ordering();
  const auto all = view.jobs();
  const ClusterState& cluster = view.cluster();
  freeing_.assign(cluster.gpu_type_names().size(), 0);
  plan_.clear();
  std::sort(arrived_.begin(), arrived_.end(), ordering.order());
  for (std::uint32_t index : arrived_) {
    const JobState& job = all[index];
    if (job.phase != JobPhase::kWaiting) continue;
    const int priority = job.spec->priority;
    for (int type = 0; type < static_cast<int>(freeing_.size()); ++type) {
      if (job.gpu_type >= 0 && type != job.gpu_type) continue;
      int need = job.gpus - cluster.free_gpus(type) - freeing_[type];
      if (need <= 0) break;
      victims_.clear();
      int evictable = 0;
      for (std::uint32_t running : view.holders()) {
        const JobState& other = all[running];
        if (other.phase != JobPhase::kRunning || other.spec->priority >= priority ||
            view.type_held(running) != type)
          continue;
        victims_.push_back(running);
        evictable += other.gpus;
      }
      if (evictable < need) continue;
      std::sort(victims_.begin(), victims_.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (all[a].spec->priority != all[b].spec->priority)
          return all[a].spec->priority < all[b].spec->priority;
        return ordering.before(b, a);
      });
      std::size_t chosen = 0;
      for (; chosen < victims_.size() && need > 0; ++chosen) {
        plan_.set(victims_[chosen]);  // no grants: stop
        need -= all[victims_[chosen]].gpus;
      }
      decision_->apply(plan_);
      plan_.clear();
      decision_->mark_released();
      // Those still saving their state free their GPUs later: later arrivals count them.
      for (std::size_t v = 0; v < chosen; ++v)
        if (all[victims_[v]].phase == JobPhase::kCheckpointing)
          freeing_[type] += all[victims_[v]].gpus;
      break;
    }
  }
  arrived_.clear();
}

void Preemption::round(Time now) {
  ++rounds_;
  if (decision_->queue_empty()) return;
  const View& view = decision_->view();
  Ordering& ordering = decision_->ordering();
  const Admission& admission = decision_->admission();
  WaitingQueue& queue = ordering.queue();
  candidates_.clear();
  round_usage_.assign(view.vc_names().size(), 0.0);
  const auto all = view.jobs();
  if (admitted_stamp_.size() < all.size()) admitted_stamp_.resize(all.size(), 0);
  ordering.round_begins(now);  // waiting jobs a starvation guard promotes move up first
  const double min_run = options_.scheduler.min_run_s;
  for (std::uint32_t index : view.holders()) {
    const JobState& job = all[index];
    // A job within its minimum run (min_run_s) keeps its GPUs, as one restoring or saving does.
    if (job.phase == JobPhase::kRunning && !(now - job.held_since < min_run)) {
      candidates_.push_back(index);
    } else {
      round_usage_[job.vc] += job.gpus;  // restoring, checkpointing or within its minimum run
    }
  }
  if (candidates_.empty()) return;
  base_usage_.assign(round_usage_.begin(), round_usage_.end());  // what no round can take
  // Capacity per GPU type: what is free plus what the preemptible jobs hold. A job is admitted
  // against its own type only, so a job alone on its type is never preempted for jobs that
  // cannot use its GPUs.
  const ClusterState& cluster = view.cluster();
  int capacity = 0;
  for (std::size_t t = 0; t < type_capacity_.size(); ++t) {
    type_capacity_[t] = type_idle_[t] = cluster.free_gpus(static_cast<int>(t));
    type_admitted_[t] = 0;
  }
  if (type_capacity_.size() == 1) {
    for (std::uint32_t index : candidates_) type_capacity_[0] += all[index].gpus;
  } else {
    for (std::uint32_t index : candidates_)
      type_capacity_[static_cast<std::size_t>(view.type_held(index))] += all[index].gpus;
  }
  for (int c : type_capacity_) capacity += c;

  // Re-key running jobs (their service has grown; waiting jobs' keys do not change) and sort.
  ordering.sort_running(candidates_, now);

  ++round_number_;
  if (!ordering.ranks_vcs() && !admission.quotas_enforced() && type_capacity_.size() == 1) {
    simple_round(capacity);
    return;
  }
  // Walk running and waiting jobs merged in priority order, admitting greedily into capacity.
  // Fair-share policies rank by VC, so their running jobs are walked in one list per VC.
  const auto less = ordering.walk_order(round_usage_);
  const bool backfill = options_.scheduler.backfill;
  const int phases = admission.lends() ? 2 : 1;
  const int types = static_cast<int>(type_capacity_.size());
  walk_buckets_ = queue.active_buckets();
  walk_lists_.clear();
  for (std::uint32_t b : walk_buckets_) walk_lists_.push_back({&queue.bucket(b).jobs, nullptr});
  if (ordering.ranks_vcs()) {
    vc_candidates_.resize(view.vc_names().size());
    for (auto& list : vc_candidates_) list.clear();
    for (std::uint32_t index : candidates_) vc_candidates_[all[index].vc].push_back(index);
    for (const auto& list : vc_candidates_) walk_lists_.push_back({nullptr, &list});
  } else {
    walk_lists_.push_back({nullptr, &candidates_});
  }
  bool admitted_waiting = false;
  for (int phase = 0; phase < phases && capacity > 0; ++phase) {
    walk_.start(walk_lists_, less);
    while (!walk_.done() && capacity > 0) {
      const std::uint32_t index = walk_.job();
      const JobState& job = all[index];
      if (admitted_stamp_[index] == round_number_) {
        walk_.advance(less);
        continue;
      }
      const bool waiting = job.phase == JobPhase::kWaiting;
      // The type this job would hold: its own; for an untyped waiting job, the type with most
      // idle GPUs not yet claimed if they suffice (it then displaces no one, and the pass will
      // place it there: most free GPUs first), else the one with the most capacity left.
      int type = waiting ? job.gpu_type : view.type_held(index);
      if (type < 0) {
        const auto runs = [&](int t) { return view.type_speed(index, t) > 0.0; };
        type = type_with_most(
            types, [&](int t) { return type_idle_[static_cast<std::size_t>(t)]; }, runs);
        if (type_idle_[static_cast<std::size_t>(type)] < job.gpus)
          type = type_with_most(
              types, [&](int t) { return type_capacity_[static_cast<std::size_t>(t)]; }, runs);
      }
      const auto t = static_cast<std::size_t>(type);
      const bool gpus_fit = job.gpus <= type_capacity_[t];
      const bool fits = (phase == 1 || admission.within_quota(job, round_usage_)) && gpus_fit;
      if (!fits) {
        if (!backfill && !gpus_fit) break;
        if (waiting && backfill) {
          walk_.drop(less);  // the rest of this bucket (one VC, one size, one type) fits no better
        } else {
          walk_.advance(less);
        }
        continue;
      }
      admitted_stamp_[index] = round_number_;
      type_capacity_[t] -= job.gpus;
      capacity -= job.gpus;
      round_usage_[job.vc] += job.gpus;
      if (waiting) {
        admitted_waiting = true;
        type_admitted_[t] = 1;
        type_idle_[t] = std::max(0, type_idle_[t] - job.gpus);
      }
      walk_.advance(less);
      if (ordering.ranks_vcs()) walk_.reorder(less);
    }
  }
  if (!admitted_waiting) return;
  victims_.clear();
  for (std::uint32_t index : candidates_)
    if (admitted_stamp_[index] != round_number_ &&
        type_admitted_[static_cast<std::size_t>(view.type_held(index))])
      victims_.push_back(index);
  if (ordering.ranks_vcs()) spare_restarted_victims(base_usage_);
  plan_.clear();
  for (std::uint32_t index : victims_) plan_.set(index);  // no grants: stop
  if (plan_.empty()) return;
  decision_->apply(plan_);
  decision_->mark_released();
}

// A fair-share round admits by progressive filling, ranking each list's head by its VC's share
// once that job ran (which depends on the job's GPUs), with each VC's running jobs in one list in
// policy order; the pass that follows walks the waiting jobs in buckets of one VC and size, from
// what the kept jobs hold. The orders can differ: a large running job at the head of its VC's
// list hides a smaller, earlier one behind it, which the round may not reach before the GPUs
// run out, while the pass, where the stopped job waits in its size's bucket, reaches it before
// the later job it was stopped for (tests/scenarios/drf_no_undone_preemption.scenario). The pass
// would then restart the victim: a preemption undone at the same decision point, paid for by
// its checkpoint and restore (issue 39: DRF, 2,000 jobs on 128 GPUs, three VCs, strict quotas,
// 3,763 of 4,593 preemptions). So the pass is played out first, on counts, quotas and VC ranks
// as the round models them: a victim it would restart keeps running, and the play is repeated
// until it restarts none.
void Preemption::spare_restarted_victims(std::span<const double> base_usage) {
  const View& view = decision_->view();
  const Ordering& ordering = decision_->ordering();
  const Admission& admission = decision_->admission();
  const WaitingQueue& queue = ordering.queue();
  const ClusterState& cluster = view.cluster();
  const auto all = view.jobs();
  const int types = static_cast<int>(type_capacity_.size());
  const bool backfill = options_.scheduler.backfill;
  const int phases = admission.lends() ? 2 : 1;
  if (is_victim_.size() < all.size()) is_victim_.resize(all.size(), 0);
  for (bool spared = true; spared && !victims_.empty();) {
    spared = false;
    ++round_number_;  // stamps: a job started by the play (a victim's: spared)
    // The pass's start: the kept jobs hold their GPUs, the victims' are free.
    play_usage_.assign(base_usage.begin(), base_usage.end());
    for (std::size_t t = 0; t < type_capacity_.size(); ++t)
      type_capacity_[t] = cluster.free_gpus(static_cast<int>(t));
    for (std::uint32_t index : victims_) is_victim_[index] = 1;
    for (std::uint32_t index : candidates_) {
      if (is_victim_[index])
        type_capacity_[static_cast<std::size_t>(view.type_held(index))] += all[index].gpus;
      else
        play_usage_[all[index].vc] += all[index].gpus;
    }
    // Stopped, the victims would wait in the queue's buckets (one VC, size and type each, in
    // policy order): so they are walked, one list per bucket (a list of mixed sizes would hide
    // a small job behind a large one, as the round's list of running jobs does).
    // (A copy: the stops keep the round's order, in which an empirical checkpoint time is drawn.)
    play_victims_.assign(victims_.begin(), victims_.end());
    std::sort(play_victims_.begin(), play_victims_.end(), [&](std::uint32_t a, std::uint32_t b) {
      const JobState& x = all[a];
      const JobState& y = all[b];
      if (x.vc != y.vc) return x.vc < y.vc;
      if (x.gpus != y.gpus) return x.gpus < y.gpus;
      if (x.gpu_type != y.gpu_type) return x.gpu_type < y.gpu_type;
      if (x.milli != y.milli) return x.milli < y.milli;
      return ordering.before(a, b);
    });
    std::size_t groups = 0;
    for (std::size_t i = 0; i < play_victims_.size(); ++i) {
      const JobState& job = all[play_victims_[i]];
      const JobState* last = i > 0 ? &all[play_victims_[i - 1]] : nullptr;
      if (!last || job.vc != last->vc || job.gpus != last->gpus || job.gpu_type != last->gpu_type ||
          job.milli != last->milli) {
        if (victim_groups_.size() <= groups) victim_groups_.emplace_back();
        victim_groups_[groups++].clear();
      }
      victim_groups_[groups - 1].push_back(play_victims_[i]);
    }
    walk_lists_.clear();
    for (std::uint32_t b : queue.active_buckets())
      walk_lists_.push_back({&queue.bucket(b).jobs, nullptr});
    for (std::size_t g = 0; g < groups; ++g) walk_lists_.push_back({nullptr, &victim_groups_[g]});
    const auto less = ordering.walk_order(play_usage_);
    vc_blocked_.assign(view.vc_names().size(), 0);
    bool stop = false;
    for (int phase = 0; phase < phases && !stop; ++phase) {
      walk_.start(walk_lists_, less);
      while (!walk_.done()) {
        const std::uint32_t index = walk_.job();
        const JobState& job = all[index];
        const bool victim = job.phase == JobPhase::kRunning;
        if (admitted_stamp_[index] == round_number_ || (!victim && job.gpus == 0)) {
          walk_.advance(less);
          continue;
        }
        int type = victim ? view.type_held(index) : job.gpu_type;
        if (type < 0)  // an untyped waiting job: the pass places it where most GPUs are free
          type = type_with_most(
              types, [&](int t) { return type_capacity_[static_cast<std::size_t>(t)]; },
              [&](int t) { return view.type_speed(index, t) > 0.0; });
        const auto t = static_cast<std::size_t>(type);
        const bool quota_ok = phase == 1 || admission.within_quota(job, play_usage_);
        const bool gpus_fit = job.gpus <= type_capacity_[t];
        if (!quota_ok || !gpus_fit || vc_blocked_[job.vc]) {
          if (!backfill) {
            if (quota_ok && !vc_blocked_[job.vc]) {
              stop = true;  // strict order: the head blocks everyone behind it
              break;
            }
            vc_blocked_[job.vc] = 1;  // a VC at its quota blocks itself only
          }
          walk_.advance(less);
          continue;
        }
        admitted_stamp_[index] = round_number_;
        type_capacity_[t] -= job.gpus;
        play_usage_[job.vc] += job.gpus;
        if (victim) spared = true;
        walk_.advance(less);
        walk_.reorder(less);  // the VC's share grew: its lists move
      }
    }
    for (std::uint32_t index : victims_) is_victim_[index] = 0;
    if (spared)
      victims_.erase(std::remove_if(victims_.begin(), victims_.end(),
                                    [&](std::uint32_t index) {
                                      return admitted_stamp_[index] == round_number_;
                                    }),
                     victims_.end());
  }
}

// The round for one GPU type, no quotas and no VC ranking (the common case), with the same
// outcome as the general walk above: waiting jobs are walked in policy order, and between two of
// them the running jobs that rank in between are admitted in bulk from prefix sums of their
// GPUs (a binary search finds them); only near the end of the capacity are running jobs looked
// at one by one.
void Preemption::simple_round(int capacity) {
  const View& view = decision_->view();
  const Ordering& ordering = decision_->ordering();
  const WaitingQueue& queue = ordering.queue();
  const auto all = view.jobs();
  const bool backfill = options_.scheduler.backfill;
  const std::size_t n = candidates_.size();
  gpu_prefix_.resize(n + 1);
  gpu_prefix_[0] = 0;
  for (std::size_t i = 0; i < n; ++i)
    gpu_prefix_[i + 1] = gpu_prefix_[i] + all[candidates_[i]].gpus;
  rejected_.clear();
  std::size_t next = 0;  // candidates_[next..] not yet visited
  // Admits running jobs [next, end) in order; false if the walk must stop there.
  const auto admit_running = [&](std::size_t end) {
    if (gpu_prefix_[end] - gpu_prefix_[next] <= capacity) {
      capacity -= gpu_prefix_[end] - gpu_prefix_[next];
      next = end;
      return capacity > 0;
    }
    for (; next < end && capacity > 0; ++next) {
      const int gpus = all[candidates_[next]].gpus;
      if (gpus <= capacity) {
        capacity -= gpus;
      } else if (!backfill) {
        return false;
      } else {
        rejected_.push_back(candidates_[next]);
      }
    }
    return capacity > 0;
  };
  walk_buckets_ = queue.active_buckets();
  walk_lists_.clear();
  for (std::uint32_t b : walk_buckets_) walk_lists_.push_back({&queue.bucket(b).jobs, nullptr});
  const auto less = ordering.order();
  bool admitted_waiting = false;
  walk_.start(walk_lists_, less);
  while (capacity > 0) {
    if (walk_.done()) {
      admit_running(n);
      break;
    }
    const std::uint32_t waiting = walk_.job();
    // The running jobs that rank before this waiting job.
    const auto first_after = std::partition_point(
        candidates_.begin() + static_cast<std::ptrdiff_t>(next), candidates_.end(),
        [&](std::uint32_t running) { return ordering.before(running, waiting); });
    if (!admit_running(static_cast<std::size_t>(first_after - candidates_.begin()))) break;
    const int gpus = all[waiting].gpus;
    if (gpus > capacity) {
      if (!backfill) break;
      walk_.drop(less);  // the rest of this bucket (one VC, one size, one type) fits no better
      continue;
    }
    capacity -= gpus;
    admitted_waiting = true;
    walk_.advance(less);
  }
  if (!admitted_waiting) return;
  // Not admitted: those passed over, and every one the walk did not reach.
  plan_.clear();
  for (std::uint32_t index : rejected_) plan_.set(index);  // no grants: stop
  for (std::size_t i = next; i < n; ++i) plan_.set(candidates_[i]);
  if (plan_.empty()) return;
  decision_->apply(plan_);
  decision_->mark_released();
}

}  // namespace clustersim::internal

namespace clustersim::options {

// ---- Preemption ----
void declare_preemption_keys(KeyRegistry& keys) {
  mechanism_key(
      keys, "preemption", "preempt_on_arrival",
      [](auto& o) -> auto& { return o.mechanisms.preempt_on_arrival; })
      .doc(
          "With `honor_priority` on a preemptive policy: a higher-priority arrival evicts "
          "lower-priority jobs at once, not at the next lease.");
}

}  // namespace clustersim::options
