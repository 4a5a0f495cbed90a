#include "core/engine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "clustersim/mig.h"
#include "clustersim/random.h"

namespace clustersim::internal {

Engine::Engine(const SimOptions& options, const JobSpeed& speed, bool resizing)
    : options_(options),
      cluster_(options.cluster),
      speed_(speed),
      resizing_(resizing),
      overheads_(options, stream_seed(options.seed, 0x0e7e4eadULL)),
      measurement_(options, *this) {
  if (options.sharing.enabled()) cluster_.enable_gpu_shares();
  Tables tables;
  tables.now = &now_;
  tables.options = &options_;
  tables.cluster = &cluster_;
  tables.jobs = &jobs_;
  tables.waiting = &waiting_;
  tables.holders = &holders_;
  tables.node_holders = &node_holders_;
  tables.grants = &grants_.storage();
  tables.vc_names = &vc_names_;
  tables.vc_usage = &vc_usage_;
  tables.down_count = &down_count_;
  tables.offline_nodes = &offline_nodes_;
  tables.resizing = resizing;
  tables.type_speeds = &type_speeds_;
  set_tables(tables);
}

Engine::~Engine() = default;

// --- Applying a plan --------------------------------------------------------------------------

void Engine::apply(const Plan& plan) {
  ++apply_number_;
  for (const auto& change : plan.changes()) check_change(plan, change);
  if (!plan.capacity_changes().empty()) check_capacity(plan);
  if (!plan.restart_delays().empty()) owe_restart_delays(plan);
  // Free before grant: a failure, a stop without checkpoint time and a change give back what
  // they held. (Each stop's checkpoint time is found here, in plan order: an empirical one is a
  // draw.)
  stop_seconds_.clear();
  bool failed = false;
  for (const auto& change : plan.changes()) {
    JobState& job = jobs_[change.job];
    if (change.action == Plan::Action::kFail) {
      release_to_ledger(job);
      failed = true;
      continue;
    }
    if (change.action == Plan::Action::kSave) continue;
    if (change.grant_count == 0) {
      stop_seconds_.push_back(overheads_.seconds(OverheadKind::kCheckpoint, job.index, *job.spec));
      if (stop_seconds_.back() > 0.0) continue;
    }
    if (job.phase == JobPhase::kRunning) release_to_ledger(job);
  }
  for (const auto& change : plan.changes())
    for (const Grant& grant : plan.grants(change)) {
      cluster_.allocate(grant);  // throws if over
      for (RateModel* model : rate_models_) model->on_grant_changed(grant);
    }
  std::size_t stops = 0;
  for (const auto& change : plan.changes()) {
    JobState& job = jobs_[change.job];
    if (change.action == Plan::Action::kFail) {
      fail_job(job, plan.grants(change));
    } else if (change.action == Plan::Action::kSave) {
      save_job(job);
    } else if (change.grant_count == 0) {
      stop_job(job, stop_seconds_[stops++], change.lease == Plan::Lease::kEnds);
    } else if (job.phase == JobPhase::kWaiting) {
      // A stop at a lease's end was a preemption unless this start continues that lease.
      if (job.lease_ended && change.lease != Plan::Lease::kContinues)
        ++records_[job.index].preemptions;
      job.lease_ended = false;
      leave_waiting(job.index);  // first: its list position is then its place among holders
      take_holding(job, plan.grants(change));
      start_job(job);
    } else {
      fold_progress(job);
      int gpus = 0;
      for (const Grant& grant : plan.grants(change)) gpus += grant.gpus;
      const bool resized = gpus != job.gpus;
      // GPU-seconds at the old count, or on the old type.
      if (resized || (!type_gpu_seconds_.empty() &&
                      type_name_slot_[static_cast<std::size_t>(
                          cluster_.node(plan.grants(change)[0].node).gpu_type)] !=
                          type_name_slot_[static_cast<std::size_t>(type_held(job.index))]))
        fold_held(job);
      const auto held = grants_of(job.index);
      old_grants_.assign(held.begin(), held.end());
      drop_holding(job);
      job.gpus = gpus;
      take_holding(job, plan.grants(change));
      change_job(job, old_grants_, resized);
    }
  }
  if (!rate_models_.empty()) rerate_affected();
  if (failed && decider_) decider_->on_released();
  for (const Plan::CapacityChange& change : plan.capacity_changes()) apply_capacity(change);
}

void Engine::release_to_ledger(const JobState& job) {
  for (const Grant& grant : grants_of(job.index)) {
    cluster_.release(grant);
    for (RateModel* model : rate_models_) model->on_grant_changed(grant);
  }
}

void Engine::take_holding(JobState& job, std::span<const Grant> grants) {
  job.grant_count = static_cast<std::uint32_t>(grants.size());
  job.grant_begin = grants_.allocate(job.grant_count);
  std::copy(grants.begin(), grants.end(), grants_.data() + job.grant_begin);
  for (const Grant& grant : grants) node_holders_[grant.node].push_back(job.index);
  records_[job.index].nodes = static_cast<int>(grants.size());
  vc_usage_[job.vc] += job.gpus;
  list_position_[job.index] = static_cast<std::uint32_t>(holders_.size());
  holders_.push_back(job.index);
}

// Takes the job out of the holders' indexes (the ledger is handled by the caller).
void Engine::drop_holding(JobState& job) {
  for (RateModel* model : rate_models_) model->on_released(job.index);
  for (const Grant& grant : grants_of(job.index)) {
    auto& list = node_holders_[grant.node];
    auto at = std::find(list.begin(), list.end(), job.index);
    *at = list.back();
    list.pop_back();
  }
  grants_.release(job.grant_begin, job.grant_count);
  job.grant_count = 0;
  vc_usage_[job.vc] -= job.gpus;
  const std::uint32_t position = list_position_[job.index];
  holders_[position] = holders_.back();
  list_position_[holders_[position]] = position;
  holders_.pop_back();
}

// --- Transitions' bookkeeping -----------------------------------------------------------------

void Engine::fold_progress(JobState& job) {
  if (job.phase != JobPhase::kRunning) return;
  const double ran = now_ - job.progress_since;
  job.remaining = std::max(0.0, job.remaining_at(now_));
  job.attained_time = job.attained_at(now_);
  job.progress_since = now_;
  job.run_since_save += ran;
  job.unsaved_gpu_seconds += job.gpus * ran;
  progress_gpu_seconds_ += job.gpus * ran;
}

void Engine::charge(JobState& job, OverheadKind kind, double gpu_seconds) {
  JobRecord& record = records_[job.index];
  record.overhead_gpu_seconds += gpu_seconds;
  switch (kind) {
    case OverheadKind::kCheckpoint:
      record.checkpoint_gpu_seconds += gpu_seconds;
      break;
    case OverheadKind::kRestore:
      record.restore_gpu_seconds += gpu_seconds;
      break;
    case OverheadKind::kMigration:
      record.migration_gpu_seconds += gpu_seconds;
      break;
    case OverheadKind::kResize:
      record.resize_gpu_seconds += gpu_seconds;
      break;
    case OverheadKind::kRealloc:
      record.realloc_gpu_seconds += gpu_seconds;
      break;
  }
  overhead_gpu_seconds_ += gpu_seconds;
}

void Engine::fold_held(JobState& job) {
  const double held = job.gpus * (now_ - job.held_since);
  records_[job.index].gpu_seconds += held;
  if (job.milli != 0)  // a share's GPU-seconds: in its record, not in the whole-GPU ledger's
    records_[job.index].gpu_seconds +=
        job.milli * (now_ - job.held_since) / ClusterState::kMilliPerGpu;
  if (job.mig != 0)  // a MIG slice's: its compute slices of 7
    records_[job.index].gpu_seconds +=
        mig_compute_slices(job.mig) * (now_ - job.held_since) / kMigComputeSlices;
  held_gpu_seconds_ += held;
  if (!type_gpu_seconds_.empty())
    type_gpu_seconds_[job.index * type_slot_names_.size() +
                      type_name_slot_[static_cast<std::size_t>(type_held(job.index))]] += held;
  job.held_since = now_;
}

void Engine::pause(JobState& job, OverheadKind kind, double seconds) {
  job.pause = kind;
  if (seconds > 0.0) {
    job.phase = JobPhase::kRestoring;
    job.phase_since = now_;
    ++job.epoch;
    events_.push(now_ + seconds, kRestoreDoneRank, job.index, job.epoch);
    return;
  }
  if (kind == OverheadKind::kCheckpoint) end_periodic_save(job);
  begin_running(job.index);
}

void Engine::commit_save(JobState& job) {
  if (!writes_.empty()) {
    settle_write(job);  // counted if complete; superseded by this save either way
    writes_[job.index].active = false;
  }
  job.has_checkpoint = true;
  job.saved_remaining = job.remaining;
  job.run_since_save = 0.0;
  job.unsaved_gpu_seconds = 0.0;
}

void Engine::end_periodic_save(JobState& job) {
  if (writes_.empty()) {
    commit_save(job);
    ++checkpoints_;
    return;
  }
  settle_write(job);  // the previous write has completed: the snapshot waited for it
  PendingWrite& write = writes_[job.index];
  write.remaining = job.remaining;
  write.gpu_seconds = job.unsaved_gpu_seconds;
  write.done = now_ + overheads_.seconds(OverheadKind::kCheckpoint, job.index, *job.spec);
  write.active = true;
}

void Engine::settle_write(JobState& job) {
  PendingWrite& write = writes_[job.index];
  if (!write.active || write.done > now_) return;
  write.active = false;
  job.has_checkpoint = true;
  job.saved_remaining = write.remaining;
  // What ran since the snapshot stays unsaved.
  job.unsaved_gpu_seconds = std::max(0.0, job.unsaved_gpu_seconds - write.gpu_seconds);
  ++checkpoints_;
}

void Engine::enqueue_waiting(JobState& job) {
  list_position_[job.index] = static_cast<std::uint32_t>(waiting_.size());
  waiting_.push_back(job.index);
  if (decider_) decider_->on_waiting(job.index);
}

void Engine::leave_waiting(std::uint32_t job) {
  const std::uint32_t position = list_position_[job];
  waiting_[position] = waiting_.back();
  list_position_[waiting_[position]] = position;
  waiting_.pop_back();
}

void Engine::requeue(JobState& job) {
  drop_holding(job);
  job.gpus = job.requested_gpus;  // an elastic job asks for its request again
  job.phase = JobPhase::kWaiting;
  job.phase_since = now_;
  ++job.epoch;
  enqueue_waiting(job);
}

// --- Starting, stopping, changing -------------------------------------------------------------

void Engine::start_job(JobState& job) {
  set_rate(job);
  JobRecord& record = records_[job.index];
  record.queue_delay += now_ - job.phase_since;
  if (record.start_time < 0.0) record.start_time = now_;
  job.held_since = now_;
  bool pays = false;
  const double pause_s = restart_pause_s(job, pays);
  if (pays) {
    // A job a fleet's rebalancer moved restores at its new cluster: a migration's restore.
    OverheadKind kind = OverheadKind::kRestore;
    if (job.index < moved_between_clusters_.size() && moved_between_clusters_[job.index]) {
      moved_between_clusters_[job.index] = 0;
      kind = OverheadKind::kMigration;
    }
    pause(job, kind, pause_s);
  } else {
    begin_running(job.index);
  }
}

void Engine::rebind_waiting(std::uint32_t index, int gpu_type) {
  if (index >= jobs_.size() || jobs_[index].phase != JobPhase::kWaiting)
    throw std::logic_error("rebind_waiting: the job does not wait");
  if (gpu_type < 0 || static_cast<std::size_t>(gpu_type) >= cluster_.gpu_type_names().size())
    throw std::logic_error("rebind_waiting: unknown GPU type");
  JobState& job = jobs_[index];
  const int old_type = job.gpu_type;
  job.gpu_type = gpu_type;
  if (moved_between_clusters_.size() < jobs_.size()) moved_between_clusters_.resize(jobs_.size());
  // Only a saved state is restored; a job that never saved starts afresh there, as anywhere.
  moved_between_clusters_[index] = job.has_checkpoint ? 1 : 0;
  if (decider_) decider_->on_rebound(index, old_type);
}

double Engine::restart_pause_s(JobState& job, bool& pays) {
  pays = job.has_checkpoint;
  double seconds = pays ? overheads_.seconds(OverheadKind::kRestore, job.index, *job.spec) : 0.0;
  if (owed_restarts_.empty() || job.index >= owed_restarts_.size()) return seconds;
  OwedRestart& owed = owed_restarts_[job.index];
  if (!owed.owed) return seconds;
  // Detection runs from the failure on (a wait for a repair overlaps it); relaunching follows.
  const double delay = std::max(0.0, owed.detected_at - now_) + owed.reschedule_s;
  owed.owed = false;
  if (delay > 0.0) pays = true;
  return seconds + delay;
}

void Engine::owe_restart_delays(const Plan& plan) {
  for (const Plan::RestartDelay& delay : plan.restart_delays()) {
    bool failed = false;
    for (const auto& change : plan.changes())
      failed = failed || (change.job == delay.job && change.action == Plan::Action::kFail);
    if (!failed) throw PlanError("plan: a restart delay for a job the plan does not fail");
    if (!(delay.reschedule_s >= 0.0) || !std::isfinite(delay.reschedule_s) ||
        !std::isfinite(delay.detected_at))
      throw PlanError("plan: job '" + jobs_[delay.job].spec->id +
                      "': a restart delay must be finite and >= 0");
  }
  if (owed_restarts_.size() < jobs_.size()) owed_restarts_.resize(jobs_.size());
  for (const Plan::RestartDelay& delay : plan.restart_delays())
    owed_restarts_[delay.job] = {delay.detected_at, delay.reschedule_s, true};
}

void Engine::stop_job(JobState& job, double checkpoint_seconds, bool lease_ends) {
  fold_progress(job);
  job.phase = JobPhase::kCheckpointing;
  job.phase_since = now_;
  ++job.epoch;
  if (lease_ends) {
    ++records_[job.index].lease_changes;
    job.lease_ended = true;  // a preemption or not: its next start says (plan.h)
  } else {
    ++records_[job.index].preemptions;
  }
  if (checkpoint_seconds > 0.0) {
    events_.push(now_ + checkpoint_seconds, kCheckpointDoneRank, job.index, job.epoch);
  } else {
    // The ledger already has the resources back (apply frees before it grants).
    charge(job, OverheadKind::kCheckpoint, job.gpus * (now_ - job.phase_since));
    commit_save(job);
    fold_held(job);
    requeue(job);
  }
}

// A job on a failed node loses what it did since its last saved state, gives back everything
// it holds (on every node; the ledger already has it back) and waits again; what it spent on
// overheads stays spent. An elastic job shrinking on failure keeps `kept` (the ledger has
// granted it again) and restores on it at once.
void Engine::fail_job(JobState& job, std::span<const Grant> kept) {
  if (job.phase == JobPhase::kRunning) {
    fold_progress(job);
  } else if (job.phase == JobPhase::kRestoring) {
    charge(job, job.pause, job.gpus * (now_ - job.phase_since));  // a save under way is lost
  } else {
    charge(job, OverheadKind::kCheckpoint, job.gpus * (now_ - job.phase_since));
  }
  if (!writes_.empty()) {
    settle_write(job);                  // a write completed by now counts,
    writes_[job.index].active = false;  // one still under way is lost
  }
  JobRecord& record = records_[job.index];
  record.lost_gpu_seconds += job.unsaved_gpu_seconds;
  ++record.failures;
  job.remaining = job.saved_remaining;
  job.unsaved_gpu_seconds = 0.0;
  job.run_since_save = 0.0;
  fold_held(job);
  if (kept.empty()) {
    requeue(job);
    return;
  }
  drop_holding(job);
  job.gpus = 0;
  for (const Grant& grant : kept) job.gpus += grant.gpus;
  take_holding(job, kept);
  ++records_[job.index].resizes;
  set_rate(job);
  // Restarted in place, as from the queue but without waiting: from its last save, if any.
  job.phase = JobPhase::kWaiting;
  bool pays = false;
  const double pause_s = restart_pause_s(job, pays);
  if (pays) {
    pause(job, OverheadKind::kRestore, pause_s);
  } else {
    begin_running(job.index);
  }
}

void Engine::save_job(JobState& job) {
  fold_progress(job);
  if (writes_.empty()) {
    pause(job, OverheadKind::kCheckpoint,
          overheads_.seconds(OverheadKind::kCheckpoint, job.index, *job.spec));
    return;
  }
  // Asynchronous: a pause for the snapshot only (after the previous write, if one is under
  // way); the next save is due an interval after this one.
  const PendingWrite& write = writes_[job.index];
  const double wait = write.active ? std::max(0.0, write.done - now_) : 0.0;
  job.run_since_save = 0.0;
  pause(job, OverheadKind::kCheckpoint, wait + options_.mechanisms.checkpoint_snapshot_s);
}

void Engine::change_job(JobState& job, std::span<const Grant> old_grants, bool resized) {
  // Same GPUs on the same nodes: a re-allocation of CPU, memory or storage.
  bool same_gpus = old_grants.size() == job.grant_count;
  const auto now_held = grants_of(job.index);
  for (const Grant& old : old_grants) {
    bool found = false;
    for (const Grant& grant : now_held)
      found = found || (grant.node == old.node && grant.gpus == old.gpus);
    same_gpus = same_gpus && found;
  }
  set_rate(job);
  if (same_gpus) {
    ++reallocations_;
    pause(job, OverheadKind::kRealloc,
          overheads_.seconds(OverheadKind::kRealloc, job.index, *job.spec));
    return;
  }
  if (not_begun(job.index)) {  // it starts on its new GPUs: nothing to move, no cost
    begin_running(job.index);
    return;
  }
  // Moving or resizing restarts the job from its state as of now: a save, then a restore.
  commit_save(job);
  const OverheadKind kind = resized ? OverheadKind::kResize : OverheadKind::kMigration;
  ++(resized ? records_[job.index].resizes : records_[job.index].migrations);
  pause(job, kind, overheads_.seconds(kind, job.index, *job.spec));
}

// --- Job events -------------------------------------------------------------------------------

void Engine::complete(std::uint32_t index) {
  JobState& job = jobs_[index];
  if (!writes_.empty()) settle_write(job);  // counted if written by now
  progress_gpu_seconds_ += job.gpus * (now_ - job.progress_since);
  job.attained_time = job.attained_at(now_);
  job.remaining = 0.0;
  records_[index].finish_time = now_;
  release_to_ledger(job);
  fold_held(job);
  drop_holding(job);
  job.phase = JobPhase::kFinished;
  ++job.epoch;
  measurement_.on_finish(index, now_, active_jobs_);
  --active_jobs_;
  if (binder_) binder_->on_finished(job);
  if (!rate_models_.empty()) rerate_affected();
  if (decider_) {
    decider_->on_finished(index);
    decider_->on_released();
  }
  if (options_.window && index >= options_.window->first && index <= options_.window->last) {
    --window_left_;
    window_end_ = now_;
  }
}

void Engine::finish_checkpoint(std::uint32_t index) {
  JobState& job = jobs_[index];
  charge(job, OverheadKind::kCheckpoint, job.gpus * (now_ - job.phase_since));
  commit_save(job);
  release_to_ledger(job);
  fold_held(job);
  requeue(job);
  if (!rate_models_.empty()) rerate_affected();
  for (Mechanism* mechanism : mechanisms_) mechanism->on_checkpointed(index);
  if (decider_) decider_->on_released();
}

void Engine::begin_running(std::uint32_t index) {
  JobState& job = jobs_[index];
  if (job.phase == JobPhase::kRestoring) {
    charge(job, job.pause, job.gpus * (now_ - job.phase_since));
    if (job.pause == OverheadKind::kCheckpoint) end_periodic_save(job);  // its pause is over
  }
  job.phase = JobPhase::kRunning;
  job.phase_since = job.progress_since = now_;
  ++job.epoch;
  events_.push(now_ + std::max(0.0, job.remaining) / job.rate, kCompletionRank, index, job.epoch);
  for (Mechanism* mechanism : mechanisms_) mechanism->on_job_running(index);
}

// --- Timers -----------------------------------------------------------------------------------

TimerKind Engine::add_timer_kind(TimerClient& client, TimerPhase phase) {
  if (begun_) throw std::logic_error("timer kinds are registered before the run begins");
  if (timer_clients_.size() >= 200) throw std::logic_error("too many timer kinds");
  timer_clients_.push_back(&client);
  timer_phases_.push_back(phase);
  return static_cast<TimerKind>(timer_clients_.size() - 1);
}

void Engine::schedule(Time time, TimerKind kind, std::uint32_t subject, std::uint32_t tag) {
  if (!begun_) throw std::logic_error("timers are scheduled once the run has begun");
  if (kind >= timer_ranks_.size()) throw std::logic_error("schedule: unknown timer kind");
  if (!(time >= now_) || !std::isfinite(time))
    throw std::logic_error("schedule: a timer must fire at or after now, at a finite time");
  events_.push(time, timer_rank(kind), subject, tag);
}

void Engine::begin() {
  begun_ = true;
  // Ranks: the engine's job events, timers before arrivals (in registration order), the
  // arrivals' place, timers after arrivals, then samples.
  std::uint8_t rank = kRestoreDoneRank + 1;
  timer_ranks_.assign(timer_clients_.size(), 0);
  kind_of_rank_.assign(256, -1);
  for (TimerPhase phase : {TimerPhase::kBeforeArrivals, TimerPhase::kAfterArrivals}) {
    for (std::size_t kind = 0; kind < timer_clients_.size(); ++kind) {
      if (timer_phases_[kind] != phase) continue;
      timer_ranks_[kind] = rank;
      kind_of_rank_[rank] = static_cast<std::int16_t>(kind);
      ++rank;
    }
    if (phase == TimerPhase::kBeforeArrivals) arrival_rank_ = rank++;
  }
  sample_rank_ = rank;
  for (const Mechanism* mechanism : mechanisms_) endless_ = endless_ || mechanism->endless();

  // The clock starts at the first arrival, or earlier at a mechanism's start (a serving side's
  // first query); with neither (no jobs, no such mechanism) there is nothing to run.
  Time begins = arrival_order_.empty() ? std::numeric_limits<Time>::infinity()
                                       : jobs_[arrival_order_.front()].submit;
  for (const Mechanism* mechanism : mechanisms_) begins = std::min(begins, mechanism->begins_at());
  if (!std::isfinite(begins)) {
    over_ = true;
    return;
  }
  first_submit_ = arrival_order_.empty() ? begins : jobs_[arrival_order_.front()].submit;
  last_batch_time_ = now_ = begins;
  Time measure_from = first_submit_;
  if (options_.window) {
    measure_from = std::numeric_limits<double>::infinity();
    for (std::size_t i = options_.window->first; i <= options_.window->last; ++i)
      if (jobs_[i].phase != JobPhase::kRejected)
        measure_from = std::min(measure_from, jobs_[i].submit);
  }
  measurement_.measure_from(measure_from);
  cluster_.observe_free_gpus(&measurement_.track_fragmentation());
  if (options_.window && window_left_ == 0) {
    over_ = true;
    return;
  }
  if (options_.sample_interval_s > 0.0) events_.push(first_submit_, sample_rank_);
  for (Mechanism* mechanism : mechanisms_) mechanism->start();
}

void Engine::dispatch(const Event& event) {
  switch (event.rank()) {
    case kCompletionRank:
    case kCheckpointDoneRank:
    case kRestoreDoneRank:
      // A job's event superseded by a change of plan is stale.
      if (event.tag != jobs_[event.subject()].epoch) return;
      if (event.rank() == kCompletionRank) {
        complete(event.subject());
        jobs_came_or_went_ = true;
      } else if (event.rank() == kCheckpointDoneRank) {
        finish_checkpoint(event.subject());
      } else {
        begin_running(event.subject());
      }
      return;
    default: {
      const auto kind = static_cast<TimerKind>(kind_of_rank_[event.rank()]);
      timer_clients_[kind]->on_timer(Timer{event.time, kind, event.subject(), event.tag});
    }
  }
}

// --- Main loop --------------------------------------------------------------------------------

void Engine::integrate_until(Time now) {
  // GPUs jobs hold (a node down is held by its outage, not by a job).
  // GPUs taken by shares are accounted by the shares (held_milli), not as whole GPUs; GPUs in
  // MIG mode, by the compute slices held on them (held_mig_compute); GPUs held outside jobs (a
  // serving pool) are not jobs' either (those on a node down counted once, as offline).
  const int busy = cluster_.total_gpus() - cluster_.free_gpus() - offline_gpus_ -
                   cluster_.shared_gpus() - cluster_.mig_gpus() - held_gpus_total_ +
                   held_offline_gpus_;
  if (now > last_batch_time_) ledger_gpu_seconds_ += busy * (now - last_batch_time_);
  // The head is looked up only where the interval counts (it may scan the queue).
  const JobState* head = nullptr;
  if (!waiting_.empty() && now > std::max(last_batch_time_, measurement_.measure_from()))
    head = &jobs_[queue_head()];
  measurement_.integrate(last_batch_time_, now, busy, static_cast<double>(waiting_.size()), head,
                         offline_held_);
  last_batch_time_ = now;
}

std::optional<DecisionPoint> Engine::advance() {
  if (!begun_) begin();
  while (!over_) {
    if (next_arrival_ == arrival_order_.size() && events_.empty()) break;
    // Endless mechanisms (failures never run out): the run ends when every job has left.
    if (endless_ && active_jobs_ == 0 && next_arrival_ == arrival_order_.size()) break;
    Time now = events_.empty() ? jobs_[arrival_order_[next_arrival_]].submit : events_.top().time;
    if (next_arrival_ < arrival_order_.size())
      now = std::min(now, jobs_[arrival_order_[next_arrival_]].submit);
    integrate_until(now);
    now_ = now;
    jobs_came_or_went_ = false;
    sample_due_ = false;

    // Events before arrivals (job events, then timers that change what jobs hold), then
    // arrivals, then timers that ask for a decision, and samples.
    while (!events_.empty() && events_.top().time == now && events_.top().rank() < arrival_rank_) {
      const Event event = events_.pop();
      ++events_processed_;
      dispatch(event);
    }
    while (next_arrival_ < arrival_order_.size() &&
           jobs_[arrival_order_[next_arrival_]].submit == now) {
      const std::uint32_t index = arrival_order_[next_arrival_++];
      measurement_.on_arrival(index, now, active_jobs_);
      ++active_jobs_;
      JobState& job = jobs_[index];
      job.phase = JobPhase::kWaiting;
      job.phase_since = now;
      ++job.epoch;
      if (binder_) binder_->bind(job, now);
      enqueue_waiting(job);
      if (decider_) decider_->on_arrival(index);
      ++events_processed_;
      jobs_came_or_went_ = true;
    }
    // A window still measuring when the last arrival came: the workload may stream more in.
    if (options_.window && next_arrival_ == arrival_order_.size() && extend_ && !extend_())
      extend_ = nullptr;
    while (!events_.empty() && events_.top().time == now) {
      const Event event = events_.pop();
      ++events_processed_;
      if (event.rank() == sample_rank_) {
        sample_due_ = true;
      } else {
        dispatch(event);
      }
    }
    if (options_.window && window_left_ == 0) {
      window_outlived_arrivals_ = next_arrival_ == arrival_order_.size();
      break;  // the window has drained: steady-state metrics are complete
    }
    return DecisionPoint{now, jobs_came_or_went_};
  }
  over_ = true;
  return std::nullopt;
}

void Engine::conclude_rarely() {
  if (options_.check_invariants) check_invariants();
  if (after_decision_) after_decision_();
  if (sample_due_) {
    measurement_.take_sample(
        now_, waiting_.empty() ? std::nullopt : std::optional<std::uint32_t>(queue_head()),
        offline_gpus_);
    if (options_.record_samples)
      for (RateModel* model : rate_models_) model->on_sample(now_);
    if (active_jobs_ > 0 || next_arrival_ < arrival_order_.size())
      events_.push(now_ + options_.sample_interval_s, sample_rank_);
  }
  if (holders_.empty() && next_arrival_ == arrival_order_.size() && !waiting_.empty() &&
      !(decider_ && decider_->expects_wakeup()) && offline_nodes_ == 0 && held_gpus_total_ == 0)
    throw std::logic_error("simulation stalled: jobs wait but nothing can ever free resources");
}

// --- Measurement ------------------------------------------------------------------------------

std::uint32_t Engine::queue_head() const {
  if (decider_)
    if (auto head = decider_->head_of_queue()) return *head;
  std::uint32_t head = waiting_.front();
  for (std::uint32_t job : waiting_)
    if (jobs_[job].submit < jobs_[head].submit ||
        (jobs_[job].submit == jobs_[head].submit && job < head))
      head = job;
  return head;
}

RunResult Engine::collect_results() {
  if (options_.check_invariants) check_work_conservation();
  RunResult result;
  result.window_outlived_arrivals = window_outlived_arrivals_;
  RunMetrics& m = result.metrics;
  m.rejected = rejected_;
  for (RateModel* model : rate_models_) model->conclude(result);
  for (const RateModel* model : rate_models_) model->report(records_, m);
  // The run is over (no arrival, plan or list change follows): the tables only the run reads go
  // before the summary allocates its own, so that a large run's memory peaks no higher here
  // than while it ran.
  std::vector<std::uint32_t>().swap(arrival_order_);
  std::vector<std::uint32_t>().swap(list_position_);
  std::vector<std::uint32_t>().swap(plan_stamp_);
  measurement_.summarize(records_, first_submit_, window_end_, m);
  result.samples = measurement_.take_samples();
  if (!type_gpu_seconds_.empty()) {
    for (std::size_t i = 0; i < jobs_.size(); ++i)
      if (jobs_[i].phase != JobPhase::kFinished)
        std::fill_n(
            type_gpu_seconds_.begin() + static_cast<std::ptrdiff_t>(i * type_slot_names_.size()),
            type_slot_names_.size(), 0.0);
    result.gpu_types = type_slot_names_;
    result.type_gpu_seconds = std::move(type_gpu_seconds_);
  }
  m.events = events_processed_;
  m.reallocations = reallocations_;
  m.window_overloaded = window_outlived_arrivals_ ? 1 : 0;
  m.useful_gpu_seconds = m.gpu_seconds - m.overhead_gpu_seconds - m.lost_gpu_seconds;
  m.goodput = m.gpu_seconds > 0.0 ? m.useful_gpu_seconds / m.gpu_seconds : 0.0;
  m.checkpoints = checkpoints_;
  if (decider_) decider_->report(m);
  for (const Mechanism* mechanism : mechanisms_) mechanism->report(m);
  for (const Mechanism* mechanism : mechanisms_) mechanism->report_jobs(records_, m);
  result.jobs = std::move(records_);  // no second copy of the per-job state
  for (const Mechanism* mechanism : mechanisms_) mechanism->conclude(result);
  return result;
}

}  // namespace clustersim::internal
