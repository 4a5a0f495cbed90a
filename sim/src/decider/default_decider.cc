#include "decider/default_decider.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace clustersim::internal {

DefaultDecider::DefaultDecider(const SimOptions& options, Admission& admission,
                               PlacementStage& placement,
                               std::vector<DecisionMechanism*> mechanisms)
    : options_(options),
      admission_(admission),
      placement_(placement),
      ordering_(options, placement, admission),
      allocation_(options.make_allocation ? options.make_allocation(options.scheduler)
                                          : make_allocation_mechanism(options.scheduler)),
      mechanisms_(std::move(mechanisms)),
      hooks_(mechanisms_),
      stages_(options, ordering_, admission, placement) {
  if (!allocation_) throw std::invalid_argument("make_allocation returned no mechanism");
  rebalances_ = allocation_->rebalances();
}

DefaultDecider::~DefaultDecider() = default;

void DefaultDecider::attach(Host& host) {
  host_ = &host;
  view_ = &host.view();
  stages_.attach(host);
  // A fleet in one run (fleet.h): strict order holds per cluster, so each partition has its
  // own head; outside a fleet the table stays empty and the pass stops at the head as before.
  partition_blocked_stamp_.clear();
  const ClusterState& cluster = view().cluster();
  int partitions = 1;
  for (std::size_t t = 0; t < cluster.gpu_type_names().size(); ++t)
    partitions = std::max(partitions, cluster.gpu_type_partition(static_cast<int>(t)) + 1);
  if (partitions > 1) partition_blocked_stamp_.assign(static_cast<std::size_t>(partitions), 0);
  plan_timer_ = host.add_timer_kind(*this, TimerPhase::kAfterArrivals);
  jobs_added();
  allocation_->bind(placement_);
  bound_ = true;
  for (DecisionMechanism* mechanism : mechanisms_) mechanism->bind(stages_);
}

void DefaultDecider::jobs_added() {
  ordering_.grow();
  vc_blocked_stamp_.resize(view().vc_names().size(), 0);
  if (bound_) allocation_->jobs_added(placement_);
}

void DefaultDecider::on_arrival(std::uint32_t job) {
  if (placement_.learns_speeds()) placement_.arrived(job);
  for (DecisionMechanism* mechanism : hooks_.on_arrival) mechanism->on_arrival(job);
}

void DefaultDecider::on_timer(const Timer& timer) {
  (void)timer;
  plan_event_ = true;
}

void DefaultDecider::decide(const DecisionPoint& point) {
  const Time now = point.now;
  for (DecisionMechanism* mechanism : hooks_.before_pass) mechanism->before_pass(point);
  bool gated = false;
  const double period = options_.scheduler.plan_interval_s;
  if (period > 0.0) {
    if (plan_event_) plan_scheduled_ = false;
    gated = !plan_event_ && std::fmod(now, period) != 0.0;  // decisions wait for a boundary
  }
  if (!gated) {
    scheduling_pass();
    if (stages_.released() && rebalances_) {
      plan_.clear();
      allocation_->rebalance(placement_, plan_);
      if (!plan_.empty()) apply(plan_);
    }
    if (!hooks_.after_pass.empty() || !hooks_.use_idle.empty()) after_pass_mechanisms();
    stages_.decision_over();
  }
  for (DecisionMechanism* mechanism : hooks_.after_decision) mechanism->after_decision(now);
  if (auto boundary = next_plan(now)) host_->schedule(*boundary, plan_timer_);
  plan_event_ = false;
}

void DefaultDecider::after_pass_mechanisms() {
  // Free GPUs for the queue's head (each success is followed by another pass), then put idle
  // GPUs to use.
  for (DecisionMechanism* mechanism : hooks_.after_pass) {
    plan_.clear();
    if (mechanism->after_pass(plan_)) {
      apply(plan_);
      no_room_.clear();
      scheduling_pass();
    }
  }
  for (DecisionMechanism* mechanism : hooks_.use_idle) {
    plan_.clear();
    if (mechanism->use_idle(plan_)) apply(plan_);
  }
}

std::optional<Time> DefaultDecider::next_plan(Time now) {
  const double period = options_.scheduler.plan_interval_s;
  if (period <= 0.0 || plan_scheduled_ || (queue_empty() && !stages_.released()))
    return std::nullopt;
  plan_scheduled_ = true;
  return (std::floor(now / period) + 1.0) * period;
}

bool DefaultDecider::expects_wakeup() const {
  if (plan_scheduled_) return true;
  return std::any_of(hooks_.gates.begin(), hooks_.gates.end(),
                     [](const DecisionMechanism* gate) { return gate->expects_wakeup(); });
}

bool DefaultDecider::held_back(std::uint32_t job, Time now) const {
  return std::any_of(hooks_.gates.begin(), hooks_.gates.end(),
                     [&](const DecisionMechanism* gate) { return !gate->may_start(job, now); });
}

// --- Passes -----------------------------------------------------------------------------------

bool DefaultDecider::try_start(std::uint32_t index) {
  plan_.clear();
  if (view().jobs()[index].requested_gpus == 0) {  // CPU-only or a share of one GPU
    if (!placement_.start_small(index, plan_)) return false;
  } else if (!allocation_->start(index, placement_, plan_)) {
    return false;
  }
  apply(plan_);
  ordering_.queue().count_out(view().jobs()[index].gpus);  // the caller removes it from its bucket
  return true;
}

void DefaultDecider::scheduling_pass() {
  WaitingQueue& queue = ordering_.queue();
  if (queue.empty()) return;
  const ClusterState& cluster = view().cluster();
  // Nothing can start (the walk's first step would stop): skip building it. (Jobs of no whole
  // GPU may start on none.)
  if (queue.small_jobs() == 0 && cluster.free_gpus() < std::max(1, queue.min_demand())) return;
  ++pass_number_;
  // Room a mechanism could not make stays unmade until something is released (until then the
  // cluster only fills up); one made clears the list.
  if (stages_.released()) no_room_.clear();
  const auto all = view().jobs();
  const bool locality = options_.scheduler.strict_locality;
  if (queue.size() == 1 && !admission_.quotas_enforced() && !locality &&
      hooks_.room_makers.empty()) {
    // One job waits (an arrival on a cluster that keeps up): what the walk below would do with
    // it, without building the walk.
    const std::uint32_t bucket = queue.active_buckets().front();
    const std::uint32_t index = queue.bucket(bucket).jobs.front();
    const JobState& job = all[index];
    if (job.gpus <= cluster.free_gpus(job.gpu_type) &&
        (hooks_.gates.empty() || !held_back(index, view().now())) && try_start(index)) {
      stages_.mark_started();
      queue.remove_left(bucket, 1, [](std::uint32_t) { return true; });
    }
    return;
  }
  const auto usage = view().vc_usage();
  const auto less = ordering_.walk_order(usage);
  const bool backfill = options_.scheduler.backfill;
  // With lending, jobs within their VC's quota go first; borrowers take what is left.
  const int phases = admission_.lends() ? 2 : 1;
  // With backfill, a bucket whose jobs need more GPUs of their type than are free now is left
  // out of the walk: free GPUs only shrink during a pass, so the walk would drop it at its first
  // job anyway (in strict order that job must be seen: it blocks the rest).
  walk_buckets_.clear();
  for (std::uint32_t b : queue.active_buckets()) {
    const auto& bucket = queue.bucket(b);
    if (!backfill || bucket.gpus <= cluster.free_gpus(bucket.gpu_type)) walk_buckets_.push_back(b);
  }
  walk_lists_.clear();
  for (std::uint32_t b : walk_buckets_) walk_lists_.push_back({&queue.bucket(b).jobs, nullptr});
  walk_reached_.assign(walk_buckets_.size(), 0);
  bool started_any = false;
  bool stop = false;
  for (int phase = 0; phase < phases && !stop; ++phase) {
    walk_.start(walk_lists_, less);
    while (!walk_.done()) {
      if (queue.small_jobs() == 0 && cluster.free_gpus() < std::max(1, queue.min_demand())) {
        stop = true;
        break;
      }
      const std::uint32_t index = walk_.job();
      const JobState& job = all[index];
      if (job.phase != JobPhase::kWaiting ||  // started in the first phase
          (!hooks_.gates.empty() && held_back(index, view().now()))) {  // not yet: it blocks none
        walk_.advance(less);
        continue;
      }
      const bool quota_ok = phase == 1 || admission_.within_quota(job, usage);
      if (backfill) {
        // Skip a whole bucket (one VC, one size) that cannot start now.
        // (A share's bucket holds one share size: with no GPU room for it, none of them fits.)
        if (!quota_ok || job.gpus > cluster.free_gpus(job.gpu_type) ||
            (job.milli > 0 && !cluster.share_may_fit(job.milli, job.gpu_type))) {
          walk_.drop(less);
          continue;
        }
      } else if (!partition_blocked_stamp_.empty() &&
                 partition_blocked_stamp_[partition_of(job)] == pass_number_) {
        walk_.drop(less);  // its cluster's head blocks it (and its bucket: one type, one cluster)
        continue;
      } else if (vc_blocked_stamp_[job.vc] == pass_number_ || !quota_ok) {
        // Strict order: a VC at its quota blocks itself, and only itself.
        vc_blocked_stamp_[job.vc] = pass_number_;
        walk_.drop(less);
        continue;
      }
      bool room = job.gpus <= cluster.free_gpus(job.gpu_type) &&
                  (job.milli == 0 || cluster.share_may_fit(job.milli, job.gpu_type));
      // A CPU-only job needs its cores free somewhere: not more than are free in all.
      if (room && job.requested_gpus == 0 && job.milli == 0 &&
          job.spec->cpus >
              cluster.total_cpus() - cluster.allocated_cpus() + ClusterState::kResourceEpsilon)
        room = false;
      if (room && job.requested_gpus > 0 && (!hooks_.room_makers.empty() || locality)) {
        // Room on the job's fewest nodes: what strict locality needs, and what a mechanism
        // (on-demand migration) makes when it pays (a shape it failed for stays failed).
        bool local = placement_.room_on_fewest_nodes(index);
        const std::pair<int, int> shape{job.gpus, job.gpu_type};
        if (!local && !hooks_.room_makers.empty() &&
            std::find(no_room_.begin(), no_room_.end(), shape) == no_room_.end()) {
          for (DecisionMechanism* maker : hooks_.room_makers) {
            plan_.clear();
            if (maker->make_room(index, plan_)) {
              apply(plan_);
              no_room_.clear();
              local = true;
              break;
            }
          }
          if (!local) no_room_.push_back(shape);
        }
        if (!local && placement_.request_of(index).fewest_nodes) {
          room = false;
          if (backfill && options_.scheduler.locality_relax_s <= 0.0) {
            walk_.drop(less);  // the rest of this bucket (one size, one type) has no room either
            continue;
          }
        }
      }
      if (room && try_start(index)) {
        started_any = true;
        stages_.mark_started();
        walk_.advance(less);
        if (ordering_.ranks_vcs()) walk_.reorder(less);  // the VC's share grew: its lists move
        continue;
      }
      if (!backfill) {
        if (!partition_blocked_stamp_.empty()) {  // a fleet: the head blocks its own cluster
          partition_blocked_stamp_[partition_of(job)] = pass_number_;
          walk_.drop(less);
          continue;
        }
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
      queue.remove_left(walk_buckets_[b], walk_reached_[b],
                        [&](std::uint32_t j) { return all[j].phase != JobPhase::kWaiting; });
  }
}

// --- Measurement ------------------------------------------------------------------------------

void DefaultDecider::check_invariants() const {
  ordering_.check_invariants();
  admission_.check_invariants(view());
}

void DefaultDecider::report(RunMetrics& metrics) const {
  allocation_->report(metrics);
  for (const DecisionMechanism* mechanism : mechanisms_) mechanism->report(metrics);
}

}  // namespace clustersim::internal
