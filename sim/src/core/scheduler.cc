#include "core/scheduler.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace clustersim::internal {

namespace {

bool key_less(const PriorityKey& a, std::uint32_t ia, const PriorityKey& b, std::uint32_t ib) {
  if (a.primary != b.primary) return a.primary < b.primary;
  if (a.secondary != b.secondary) return a.secondary < b.secondary;
  return ia < ib;
}

}  // namespace

Scheduler::Scheduler(Engine& engine, const SimOptions& options)
    : engine_(engine),
      options_(options),
      policy_(make_scheduling_policy(options.scheduler)),
      allocation_(options.make_allocation ? options.make_allocation(options.scheduler)
                                          : make_allocation_mechanism(options.scheduler)) {
  if (!allocation_) throw std::invalid_argument("make_allocation returned no mechanism");
  preemptive_ = options.scheduler.preemption.value_or(policy_->preemptive());
  ranks_vcs_ = policy_->ranks_vcs();
  const auto& mechanisms = options.mechanisms;
  evicts_on_arrival_ =
      mechanisms.preempt_on_arrival && options.scheduler.honor_priority && preemptive_;
  if (mechanisms.migrates()) {
    defrag_ = std::make_unique<Defragmenter>(engine);
    make_room_ = mechanisms.migration == MechanismOptions::Migration::kOnDemand;
  }
  if (mechanisms.elastic) elastic_ = std::make_unique<ElasticResizer>(engine, *this);
  locality_ = options.scheduler.strict_locality;
}

void Scheduler::load(std::size_t jobs, int max_gpus, std::size_t vcs) {
  lend_ = engine_.quotas_enforced() && options_.scheduler.vc_quota == VcQuotaMode::kLend;
  keys_.resize(jobs);
  admitted_stamp_.assign(jobs, 0);
  queue_.reset(max_gpus);
  vc_blocked_stamp_.assign(vcs, 0);
  const std::size_t types = engine_.cluster().gpu_type_names().size();
  type_capacity_.assign(types, 0);
  type_idle_.assign(types, 0);
  type_admitted_.assign(types, 0);
  allocation_->bind(engine_);
}

bool Scheduler::before(std::uint32_t a, std::uint32_t b) const {
  const auto all = jobs();
  if (options_.scheduler.honor_priority && all[a].spec->priority != all[b].spec->priority)
    return all[a].spec->priority > all[b].spec->priority;
  return key_less(keys_[a], a, keys_[b], b);
}

bool Scheduler::within_quota(const JobState& job, const std::vector<double>& usage) const {
  return !engine_.quotas_enforced() || usage[job.vc] + job.gpus <= engine_.vc_quota()[job.vc];
}

PolicyContext Scheduler::policy_context(Time now) const {
  PolicyContext ctx;
  ctx.now = now;
  ctx.jobs = jobs();
  ctx.total_gpus = engine_.cluster().total_gpus();
  return ctx;
}

void Scheduler::enqueue(std::uint32_t index, Time now) {
  const JobState& job = jobs()[index];
  const std::uint32_t one[1] = {index};
  policy_->compute_keys(one, policy_context(now), std::span<PriorityKey>(&keys_[index], 1));
  queue_.insert_sorted(index, job.vc, job.gpus, job.gpu_type, order());
}

// --- Rounds -----------------------------------------------------------------------------------

bool Scheduler::round_due(Time now, bool round_event, bool jobs_came_or_went) {
  if (options_.scheduler.lease_s == 0.0) return preemptive_ && jobs_came_or_went && !queue_.empty();
  // A batch that lands exactly on a lease boundary is that boundary's round, even when no round
  // was pending (the queue was empty until this batch's arrivals).
  if (!round_event && !round_scheduled_ && preemptive_ && !queue_.empty() &&
      std::fmod(now, options_.scheduler.lease_s) == 0.0)
    round_event = true;
  if (round_event) round_scheduled_ = false;
  return round_event;
}

std::optional<Time> Scheduler::next_round(Time now) {
  if (!preemptive_ || round_scheduled_ || queue_.empty() || engine_.holders().empty() ||
      options_.scheduler.lease_s == 0.0)
    return std::nullopt;
  round_scheduled_ = true;
  const double lease = options_.scheduler.lease_s;
  return (std::floor(now / lease) + 1.0) * lease;
}

void Scheduler::plan(Time now, bool round_due, bool plan_event, bool defrag_event) {
  if (round_due) preemption_round(now);
  if (!arrived_.empty()) evict_for_arrivals();
  if (defrag_event) defrag_scheduled_ = false;
  const double period = options_.scheduler.plan_interval_s;
  if (period > 0.0) {
    if (plan_event) plan_scheduled_ = false;
    if (!plan_event && std::fmod(now, period) != 0.0) return;  // decisions wait for a boundary
  }
  scheduling_pass(now);
  if (released_ && allocation_->rebalances()) {
    plan_.clear();
    allocation_->rebalance(engine_, plan_);
    if (!plan_.empty()) engine_.apply(plan_);
  }
  if (defrag_ || elastic_) run_mechanisms(now, defrag_event);
  released_ = false;
  started_ = false;
}

void Scheduler::run_mechanisms(Time now, bool defrag_event) {
  // A waiting job short of GPUs: elastic jobs give some back, then the pass starts it.
  // Tried once per head until something is released: a failed try fails again until then.
  if (elastic_ && !queue_.empty()) {
    const std::uint32_t head = head_of_queue();
    if (released_ || head != shrink_tried_for_) {
      shrink_tried_for_ = head;
      plan_.clear();
      if (elastic_->shrink_for(head, plan_)) {
        engine_.apply(plan_);
        no_room_.clear();
        scheduling_pass(now);
      }
    }
  }
  if (defrag_) {
    if (released_) compaction_tried_ = false;
    const double threshold = options_.mechanisms.defrag_threshold;
    const bool fragmented = threshold > 0.0 && !queue_.empty() && !compaction_tried_ &&
                            defrag_->fragmented_fraction(head_of_queue()) > threshold;
    if (defrag_event || fragmented) {
      plan_.clear();
      if (defrag_->compact(plan_)) {
        engine_.apply(plan_);
        no_room_.clear();
        scheduling_pass(now);
      } else {
        compaction_tried_ = true;
      }
    }
  }
  // GPUs idle and no one waiting (after a release, or as jobs start): elastic jobs grow.
  if (elastic_ && queue_.empty() && (released_ || started_)) {
    plan_.clear();
    if (elastic_->grow(plan_, !released_)) engine_.apply(plan_);
  }
}

std::optional<Time> Scheduler::next_defrag(Time now) {
  if (!defrag_ || options_.mechanisms.migration != MechanismOptions::Migration::kPeriodic ||
      defrag_scheduled_ || engine_.holders().empty())
    return std::nullopt;
  defrag_scheduled_ = true;
  const double period = options_.mechanisms.defrag_period_s;
  return (std::floor(now / period) + 1.0) * period;
}

// A higher-priority arrival evicts running jobs of lower priority at once, the lowest priority
// (then the lowest in policy order) first, when enough of them hold GPUs of its type; the pass
// then starts it as they give their GPUs back.
void Scheduler::evict_for_arrivals() {
  const auto all = jobs();
  const ClusterState& cluster = engine_.cluster();
  freeing_.assign(cluster.gpu_type_names().size(), 0);
  plan_.clear();
  std::sort(arrived_.begin(), arrived_.end(), order());
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
      for (std::uint32_t running : engine_.holders()) {
        const JobState& other = all[running];
        if (other.phase != JobPhase::kRunning || other.spec->priority >= priority ||
            engine_.type_held(running) != type)
          continue;
        victims_.push_back(running);
        evictable += other.gpus;
      }
      if (evictable < need) continue;
      std::sort(victims_.begin(), victims_.end(), [&](std::uint32_t a, std::uint32_t b) {
        if (all[a].spec->priority != all[b].spec->priority)
          return all[a].spec->priority < all[b].spec->priority;
        return before(b, a);
      });
      std::size_t chosen = 0;
      for (; chosen < victims_.size() && need > 0; ++chosen) {
        plan_.set(victims_[chosen]);  // no grants: stop
        need -= all[victims_[chosen]].gpus;
      }
      engine_.apply(plan_);
      plan_.clear();
      released_ = true;
      // Those still saving their state free their GPUs later: later arrivals count them.
      for (std::size_t v = 0; v < chosen; ++v)
        if (all[victims_[v]].phase == JobPhase::kCheckpointing)
          freeing_[type] += all[victims_[v]].gpus;
      break;
    }
  }
  arrived_.clear();
}

void Scheduler::preemption_round(Time now) {
  ++rounds_;
  if (queue_.empty()) return;
  candidates_.clear();
  round_usage_.assign(engine_.vc_count(), 0.0);
  const auto all = jobs();
  for (std::uint32_t index : engine_.holders()) {
    const JobState& job = all[index];
    if (job.phase == JobPhase::kRunning) {
      candidates_.push_back(index);
    } else {
      round_usage_[job.vc] += job.gpus;  // restoring or checkpointing: cannot be preempted
    }
  }
  if (candidates_.empty()) return;
  // Capacity per GPU type: what is free plus what the preemptible jobs hold. A job is admitted
  // against its own type only, so a job alone on its type is never preempted for jobs that
  // cannot use its GPUs.
  const ClusterState& cluster = engine_.cluster();
  int capacity = 0;
  for (std::size_t t = 0; t < type_capacity_.size(); ++t) {
    type_capacity_[t] = type_idle_[t] = cluster.free_gpus(static_cast<int>(t));
    type_admitted_[t] = 0;
  }
  if (type_capacity_.size() == 1) {
    for (std::uint32_t index : candidates_) type_capacity_[0] += all[index].gpus;
  } else {
    for (std::uint32_t index : candidates_)
      type_capacity_[engine_.type_held(index)] += all[index].gpus;
  }
  for (int c : type_capacity_) capacity += c;

  // Re-key running jobs (their service has grown; waiting jobs' keys do not change) and sort.
  sort_candidates(now);

  ++round_number_;
  if (!ranks_vcs_ && !engine_.quotas_enforced() && type_capacity_.size() == 1) {
    simple_round(capacity);
    return;
  }
  // Walk running and waiting jobs merged in priority order, admitting greedily into capacity.
  // Fair-share policies rank by VC, so their running jobs are walked in one list per VC.
  const auto less = walk_order(round_usage_);
  const bool backfill = options_.scheduler.backfill;
  const int phases = lend_ ? 2 : 1;
  walk_buckets_ = queue_.active_buckets();
  walk_lists_.clear();
  for (std::uint32_t b : walk_buckets_) walk_lists_.push_back({&queue_.bucket(b).jobs, nullptr});
  if (ranks_vcs_) {
    vc_candidates_.resize(engine_.vc_count());
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
      int type = waiting ? job.gpu_type : engine_.type_held(index);
      if (type < 0) {
        type = 0;
        for (std::size_t t = 1; t < type_capacity_.size(); ++t)
          if (type_idle_[t] > type_idle_[type]) type = static_cast<int>(t);
        if (type_idle_[type] < job.gpus) {
          type = 0;
          for (std::size_t t = 1; t < type_capacity_.size(); ++t)
            if (type_capacity_[t] > type_capacity_[type]) type = static_cast<int>(t);
        }
      }
      const bool gpus_fit = job.gpus <= type_capacity_[type];
      const bool fits = (phase == 1 || within_quota(job, round_usage_)) && gpus_fit;
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
      type_capacity_[type] -= job.gpus;
      capacity -= job.gpus;
      round_usage_[job.vc] += job.gpus;
      if (waiting) {
        admitted_waiting = true;
        type_admitted_[type] = 1;
        type_idle_[type] = std::max(0, type_idle_[type] - job.gpus);
      }
      walk_.advance(less);
      if (ranks_vcs_) walk_.reorder(less);
    }
  }
  if (!admitted_waiting) return;
  plan_.clear();
  for (std::uint32_t index : candidates_)
    if (admitted_stamp_[index] != round_number_ && type_admitted_[engine_.type_held(index)])
      plan_.set(index);  // no grants: stop
  if (plan_.empty()) return;
  engine_.apply(plan_);
  released_ = true;
}

// Re-keys the running candidates and sorts them in policy order, starting from last round's
// order: most keep their relative order (Tiresias and LAS keys only grow; a job's key moves
// when it changes queue), so the jobs still in order are kept, the others and the new ones
// sorted and merged in. Keys are computed and compared in one contiguous array in that order.
// The result is the unique total order `before` defines, however it is reached.
void Scheduler::sort_candidates(Time now) {
  const auto all = jobs();
  const std::uint32_t mark = ++order_round_ * 2;  // candidate: mark; in last order: mark + 1
  if (order_stamp_.size() < all.size()) order_stamp_.resize(all.size(), 0);
  for (std::uint32_t index : candidates_) order_stamp_[index] = mark;
  listed_.clear();
  for (std::uint32_t index : running_order_)
    if (order_stamp_[index] == mark) {
      order_stamp_[index] = mark + 1;
      listed_.push_back(index);
    }
  const std::size_t carried = listed_.size();
  for (std::uint32_t index : candidates_)
    if (order_stamp_[index] == mark) listed_.push_back(index);  // new since last round
  listed_keys_.resize(listed_.size());
  policy_->compute_keys(listed_, policy_context(now), listed_keys_);
  for (std::size_t i = 0; i < listed_.size(); ++i) keys_[listed_[i]] = listed_keys_[i];

  const bool by_priority = options_.scheduler.honor_priority;
  const auto ranked_before = [&](const Ranked& a, const Ranked& b) {
    if (by_priority) {
      const int pa = all[a.index].spec->priority, pb = all[b.index].spec->priority;
      if (pa != pb) return pa > pb;
    }
    if (a.key.primary != b.key.primary) return a.key.primary < b.key.primary;
    if (a.key.secondary != b.key.secondary) return a.key.secondary < b.key.secondary;
    return a.index < b.index;
  };
  kept_.clear();
  moved_.clear();
  // Backwards over last round's order, keeping a strictly descending run: a job whose key grew
  // (it moves later) is the one taken out, not all those it now follows.
  for (std::size_t i = carried; i-- > 0;) {
    const Ranked entry{listed_keys_[i], listed_[i]};
    if (kept_.empty() || ranked_before(entry, kept_.back())) {
      kept_.push_back(entry);
    } else {
      moved_.push_back(entry);
    }
  }
  for (std::size_t i = carried; i < listed_.size(); ++i)
    moved_.push_back({listed_keys_[i], listed_[i]});
  std::reverse(kept_.begin(), kept_.end());
  std::sort(moved_.begin(), moved_.end(), ranked_before);
  candidates_.clear();
  std::size_t a = 0, b = 0;
  while (a < kept_.size() || b < moved_.size()) {
    if (b == moved_.size() || (a < kept_.size() && ranked_before(kept_[a], moved_[b]))) {
      candidates_.push_back(kept_[a++].index);
    } else {
      candidates_.push_back(moved_[b++].index);
    }
  }
  running_order_.assign(candidates_.begin(), candidates_.end());
}

// The round for one GPU type, no quotas and no VC ranking (the common case), with the same
// outcome as the general walk below: waiting jobs are walked in policy order, and between two of
// them the running jobs that rank in between are admitted in bulk from prefix sums of their
// GPUs (a binary search finds them); only near the end of the capacity are running jobs looked
// at one by one.
void Scheduler::simple_round(int capacity) {
  const auto all = jobs();
  const bool backfill = options_.scheduler.backfill;
  const std::size_t n = candidates_.size();
  gpu_prefix_.resize(n + 1);
  gpu_prefix_[0] = 0;
  for (std::size_t i = 0; i < n; ++i)
    gpu_prefix_[i + 1] = gpu_prefix_[i] + all[candidates_[i]].gpus;
  rejected_.clear();
  std::size_t next = 0;  // candidates_[next..] not yet visited
  bool stopped = false;  // strict order: the walk broke off
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
        stopped = true;
        return false;
      } else {
        rejected_.push_back(candidates_[next]);
      }
    }
    return capacity > 0;
  };
  walk_buckets_ = queue_.active_buckets();
  walk_lists_.clear();
  for (std::uint32_t b : walk_buckets_) walk_lists_.push_back({&queue_.bucket(b).jobs, nullptr});
  const auto less = order();
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
        [&](std::uint32_t running) { return before(running, waiting); });
    if (!admit_running(static_cast<std::size_t>(first_after - candidates_.begin()))) break;
    const int gpus = all[waiting].gpus;
    if (gpus > capacity) {
      if (!backfill) {
        stopped = true;
        break;
      }
      walk_.drop(less);  // the rest of this bucket (one VC, one size, one type) fits no better
      continue;
    }
    capacity -= gpus;
    admitted_waiting = true;
    walk_.advance(less);
  }
  (void)stopped;
  if (!admitted_waiting) return;
  // Not admitted: those passed over, and every one the walk did not reach.
  plan_.clear();
  for (std::uint32_t index : rejected_) plan_.set(index);  // no grants: stop
  for (std::size_t i = next; i < n; ++i) plan_.set(candidates_[i]);
  if (plan_.empty()) return;
  engine_.apply(plan_);
  released_ = true;
}

std::optional<Time> Scheduler::next_plan(Time now) {
  const double period = options_.scheduler.plan_interval_s;
  if (period <= 0.0 || plan_scheduled_ || (queue_.empty() && !released_)) return std::nullopt;
  plan_scheduled_ = true;
  return (std::floor(now / period) + 1.0) * period;
}

// --- Passes -----------------------------------------------------------------------------------

bool Scheduler::try_start(std::uint32_t index) {
  plan_.clear();
  if (!allocation_->start(index, engine_, plan_)) return false;
  engine_.apply(plan_);
  queue_.count_out(jobs()[index].gpus);  // the caller removes it from its bucket
  return true;
}

void Scheduler::scheduling_pass(Time) {
  if (queue_.empty()) return;
  // Nothing can start (the walk's first step would stop): skip building it.
  if (engine_.cluster().free_gpus() < std::max(1, queue_.min_demand())) return;
  ++pass_number_;
  // Room migration could not make stays unmade until something is released (until then the
  // cluster only fills up); one made clears the list.
  if (released_) no_room_.clear();
  const auto less = walk_order(engine_.vc_usage());
  const bool backfill = options_.scheduler.backfill;
  const ClusterState& cluster = engine_.cluster();
  const auto all = jobs();
  // With lending, jobs within their VC's quota go first; borrowers take what is left.
  const int phases = lend_ ? 2 : 1;
  walk_buckets_ = queue_.active_buckets();
  walk_lists_.clear();
  for (std::uint32_t b : walk_buckets_) walk_lists_.push_back({&queue_.bucket(b).jobs, nullptr});
  walk_reached_.assign(walk_buckets_.size(), 0);
  bool started_any = false;
  bool stop = false;
  for (int phase = 0; phase < phases && !stop; ++phase) {
    walk_.start(walk_lists_, less);
    while (!walk_.done()) {
      if (cluster.free_gpus() < std::max(1, queue_.min_demand())) {
        stop = true;
        break;
      }
      const std::uint32_t index = walk_.job();
      const JobState& job = all[index];
      if (job.phase != JobPhase::kWaiting) {  // started in the first phase
        walk_.advance(less);
        continue;
      }
      const bool quota_ok = phase == 1 || within_quota(job, engine_.vc_usage());
      if (backfill) {
        // Skip a whole bucket (one VC, one size) that cannot start now.
        if (!quota_ok || job.gpus > cluster.free_gpus(job.gpu_type)) {
          walk_.drop(less);
          continue;
        }
      } else if (vc_blocked_stamp_[job.vc] == pass_number_ || !quota_ok) {
        // Strict order: a VC at its quota blocks itself, and only itself.
        vc_blocked_stamp_[job.vc] = pass_number_;
        walk_.drop(less);
        continue;
      }
      bool room = job.gpus <= cluster.free_gpus(job.gpu_type);
      if (room && (make_room_ || locality_)) {
        // Room on the job's fewest nodes: what strict locality needs, and what on-demand
        // migration makes when it pays (a shape it failed for stays failed this pass).
        bool local = engine_.room_on_fewest_nodes(index);
        const std::pair<int, int> shape{job.gpus, job.gpu_type};
        if (!local && make_room_ &&
            std::find(no_room_.begin(), no_room_.end(), shape) == no_room_.end()) {
          plan_.clear();
          if (defrag_->make_room(index, plan_)) {
            engine_.apply(plan_);
            no_room_.clear();
            local = true;
          } else {
            no_room_.push_back(shape);
          }
        }
        if (!local && engine_.request_of(index).fewest_nodes) {
          room = false;
          if (backfill && options_.scheduler.locality_relax_s <= 0.0) {
            walk_.drop(less);  // the rest of this bucket (one size, one type) has no room either
            continue;
          }
        }
      }
      if (room && try_start(index)) {
        started_any = true;
        started_ = true;
        walk_.advance(less);
        if (ranks_vcs_) walk_.reorder(less);  // the VC's share grew: its other lists move back
        continue;
      }
      if (!backfill) {
        stop = true;  // strict order: the head of the queue blocks everyone behind it
        break;
      }
      walk_.advance(less);
    }
    for (std::size_t b = 0; b < walk_buckets_.size(); ++b)
      walk_reached_[b] = std::max(walk_reached_[b], walk_.position(b));
  }
  if (started_any) {
    for (std::size_t b = 0; b < walk_buckets_.size(); ++b)
      queue_.remove_left(walk_buckets_[b], walk_reached_[b],
                         [&](std::uint32_t j) { return all[j].phase != JobPhase::kWaiting; });
  }
}

// --- Measurement ------------------------------------------------------------------------------

std::uint32_t Scheduler::head_of_queue() const {
  const auto less = walk_order(engine_.vc_usage());
  std::uint32_t head = 0;
  bool found = false;
  for (std::uint32_t b : queue_.active_buckets()) {
    const auto& list = queue_.bucket(b).jobs;
    if (list.empty()) continue;
    if (!found || less(list.front(), head)) head = list.front();
    found = true;
  }
  return head;
}

void Scheduler::check_invariants() const {
  std::size_t queued = 0;
  const auto all = jobs();
  for (std::size_t b = 0; b < queue_.num_buckets(); ++b) {
    const auto& bucket = queue_.bucket(b);
    queued += bucket.jobs.size();
    std::size_t listed = 0;
    for (std::size_t c = bucket.jobs.first_chunk(); c < bucket.jobs.chunk_count(); ++c) {
      const std::uint32_t* chunk = bucket.jobs.chunk_data(c);
      const std::size_t size = bucket.jobs.chunk_size(c);
      if (size == 0 || size > ChunkedJobs::kChunk)
        throw std::logic_error("invariant: a waiting-queue chunk is empty or overfull");
      for (std::size_t i = 0; i < size; ++i) {
        const std::uint32_t index = chunk[i];
        if (all[index].phase != JobPhase::kWaiting || all[index].vc != bucket.vc ||
            all[index].gpus != bucket.gpus)
          throw std::logic_error(
              "invariant: the queue holds a job that is not waiting in that bucket");
        const std::uint32_t previous =
            i > 0 ? chunk[i - 1]
            : c > bucket.jobs.first_chunk()
                ? bucket.jobs.chunk_data(c - 1)[bucket.jobs.chunk_size(c - 1) - 1]
                : index;
        if (previous != index && !before(previous, index))
          throw std::logic_error("invariant: a waiting-queue bucket is out of policy order");
        ++listed;
      }
    }
    if (listed != bucket.jobs.size())
      throw std::logic_error("invariant: a waiting-queue bucket's size drifted");
  }
  if (queued != queue_.size()) throw std::logic_error("invariant: queue length drifted");
}

}  // namespace clustersim::internal
