// The engine: the ledger, the clock, job transitions and accounting. Private to the simulator.
//
// It decides nothing. It keeps the state (the resource ledger ClusterState, every job's phase,
// progress and grants, the event queue, the measurements) and changes it in exactly one way,
// apply(plan) (plan.h), plus its own job events (a completion, the end of a checkpoint or of a
// pause). Deciders (decider.h) and mechanisms (mechanism.h) read it through the View and act
// through the Host; both interfaces are public. A job's progress is piecewise-constant between
// changes, so its completion is an event computed when its rate changes; a change bumps the
// job's epoch so stale completions are dropped when popped.
//
// The loop is split so that a simulation can be stepped: advance() runs the events of the next
// instant and returns its decision point; the caller decides (applying plans); conclude() ends
// the instant (checks, samples).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "clustersim/cluster_state.h"
#include "clustersim/decider.h"
#include "clustersim/host.h"
#include "clustersim/job_state.h"
#include "clustersim/mechanism.h"
#include "clustersim/plan.h"
#include "clustersim/rate_model.h"
#include "clustersim/simulator.h"
#include "clustersim/view.h"
#include "core/arrival_binder.h"
#include "core/event_queue.h"
#include "core/grant_store.h"
#include "core/job_admission.h"
#include "core/measurement.h"
#include "core/overheads.h"
#include "throughput/job_speed.h"

namespace clustersim::internal {

class Engine final : public View, public Host, public WaitingJobs {
 public:
  // `speed` gives every rate (throughput model and elastic scaling); `resizing`: plans may give
  // elastic jobs other GPU counts ([mechanisms] elastic).
  Engine(const SimOptions& options, const JobSpeed& speed, bool resizing);
  ~Engine() override;

  // Loads the workload's jobs (the first call) or the jobs appended since (later calls: a
  // streamed workload grew; `specs` holds every job so far, the earlier ones unchanged).
  // Validates each, resolves its VC and GPU type, asks `admission` whether it can ever run.
  // `specs` must outlive the engine's use of it (until the next call).
  void load(std::span<const JobSpec> specs, JobAdmission& admission);
  // Whether a loaded job has its own periodic checkpoint interval (JobSpec).
  bool any_job_checkpoint_interval() const { return any_job_checkpoint_interval_; }
  // CPU-only and fractional jobs loaded (they run with the built-in decider alone).
  std::size_t small_jobs() const { return small_jobs_; }
  // Who hears of jobs waiting, arriving and resources coming back (null: nobody, e.g. an external
  // controller that reads the view), and the mechanisms that hear of jobs beginning to run.
  void set_decider(Decider* decider) { decider_ = decider; }
  // A fleet's router (arrival_binder.h), before load(): jobs get their cluster's GPU type as
  // they arrive.
  void set_arrival_binder(ArrivalBinder* binder) { binder_ = binder; }
  void add_mechanism(Mechanism& mechanism) { mechanisms_.push_back(&mechanism); }
  // A decision mechanism whose timers may outlive the jobs (Mechanism::endless; they are not
  // among add_mechanism's): the run ends when no job is left.
  void end_with_last_job() { endless_ = true; }
  // A factor of every job's rate from now on (before load()).
  void add_rate_model(RateModel& model) {
    model.attach(*this);
    rate_models_.push_back(&model);
  }
  // Called when the last known arrival has been consumed while a window is still measuring:
  // it may load more jobs (load()) and return true.
  void set_arrivals_exhausted(std::function<bool()> extend) { extend_ = std::move(extend); }
  // Called after each decision, before samples (SimOptions::observer).
  void set_after_decision(std::function<void()> hook) { after_decision_ = std::move(hook); }
  // The ledger keeps prefix sums of free GPUs from now on (placements that read them).
  void track_free_gpu_prefix_sums() { cluster_.track_free_gpu_prefix_sums(); }

  // Runs the events of the next instant up to its decision (job events, timers before arrivals,
  // arrivals, timers after arrivals). Nothing when the run is over: no event or arrival left,
  // the window has drained, or (with endless mechanisms) no job is left.
  std::optional<DecisionPoint> advance();
  // Ends the instant after its decision: invariant checks, the time-series sample, the stall
  // check (jobs wait, nothing runs, nothing will arrive or free resources). Inline: most
  // instants need none of them.
  void conclude() {
    if (options_.check_invariants || after_decision_ || sample_due_ || holders_.empty())
      conclude_rarely();
  }
  // Measurements of the run so far (once it is over: the results).
  RunResult collect_results();

  // ---- View (the tables are read directly; these are computed) --------------------
  double rate_if(std::uint32_t job, std::span<const Grant> grants) const override;
  double rate_per_gpu(std::uint32_t job, int gpu_type, const PerGpu& per_gpu) const override;
  SensitivityAxes axes(std::uint32_t job, int gpu_type) const override;
  double expected_overhead_s(OverheadKind kind, std::uint32_t job) const override {
    if (kind == OverheadKind::kResize && not_begun(job)) return 0.0;
    return overheads_.expected_seconds(kind, job, *jobs_[job].spec);
  }

  // ---- Host -----------------------------------------------------------------------------
  const View& view() const override { return *this; }
  // Checks the whole plan (each job named once, in a phase it may leave; grants that add up to
  // the job's GPUs, or for an elastic job to a count within its range, on nodes of one type),
  // gives back what changed jobs release now, then takes every new grant from the ledger, then
  // for each job folds its progress at the old rate, charges the transition (start: restore
  // from a checkpoint; stop: checkpoint; fail: roll back to the last save; save: a periodic
  // checkpoint; change: a re-launch for new CPU/memory/storage, a migration for other GPUs, a
  // resize for another GPU count), asks for the new rate and reschedules its completion. A plan
  // that fails the checks throws PlanError before anything changes. The built-in decider and
  // mechanisms build plans that fit; for them the ledger's own check (std::logic_error on an
  // over-allocation: a bug) is enough. Plans from elsewhere are checked whole first
  // (check_feasible).
  void apply(const Plan& plan) override;
  // Everything apply() checks, plus that every grant fits what the node will have free once the
  // plan's releases are done, in plan order, as the ledger will check it (PlanError if not).
  void check_feasible(const Plan& plan);
  TimerKind add_timer_kind(TimerClient& client, TimerPhase phase) override;
  void schedule(Time time, TimerKind kind, std::uint32_t subject, std::uint32_t tag) override;
  void node_down(std::uint32_t node) override;
  void node_up(std::uint32_t node) override;
  void hold_gpus(std::uint32_t node, int gpus) override;
  void release_gpus(std::uint32_t node, int gpus) override;

  // ---- WaitingJobs (a fleet's rebalancer: arrival_binder.h) -------------------------------------
  void rebind_waiting(std::uint32_t job, int gpu_type) override;

 private:
  void load_job(std::uint32_t index, JobAdmission& admission);
  void reject_or_throw(JobState& job, const char* field, const std::string& why);
  const void* resolved(std::uint32_t job, int gpu_type) const {
    if (resolved_.empty()) return nullptr;  // the model resolves nothing
    return resolved_[static_cast<std::size_t>(job) * type_count_ +
                     static_cast<std::size_t>(gpu_type)];
  }
  void conclude_rarely();
  void begin();  // before the first event: timer ranks, first sample, mechanisms' first timers
  std::uint8_t timer_rank(TimerKind kind) const { return timer_ranks_[kind]; }
  // Hands a popped event to its handler (job events here, timers to their client).
  void dispatch(const Event& event);

  // Job events.
  void complete(std::uint32_t job);
  void finish_checkpoint(std::uint32_t job);
  void begin_running(std::uint32_t job);

  // Parts of apply().
  void check_change(const Plan& plan, const Plan::Change& change);
  // The plan's capacity changes, in order, against the ledger as its jobs' changes leave it
  // (engine_capacity.cc); then each applied, after the jobs' changes.
  void check_capacity(const Plan& plan);
  void apply_capacity(const Plan::CapacityChange& change);
  void release_to_ledger(const JobState& job);
  void take_holding(JobState& job, std::span<const Grant> grants);
  void drop_holding(JobState& job);
  void start_job(JobState& job);
  // A (re)start's pause: its restore when it has a save, plus what a failure's restart delay
  // left it owing (Plan::delay_restart), which it pays off here. Sets `pays` when it pauses.
  double restart_pause_s(JobState& job, bool& pays);
  // The plan's restart delays, checked (each of a job the plan fails) and owed by their jobs.
  void owe_restart_delays(const Plan& plan);
  // lease_ends: a time-share lease's end (plan.h's Plan::Lease), counted as a lease change.
  void stop_job(JobState& job, double checkpoint_seconds, bool lease_ends);
  // `kept`: what an elastic job shrinking on failure keeps (empty: it waits again).
  void fail_job(JobState& job, std::span<const Grant> kept);
  void save_job(JobState& job);
  void change_job(JobState& job, std::span<const Grant> old_grants, bool resized);
  // Its rate as it holds now: the base rate times every rate model's factor (engine_rates.cc).
  double rate_now(const JobState& job);
  void set_rate(JobState& job) { job.rate = rate_now(job); }
  void rerate_affected();  // the jobs the rate models name, after a plan or a job event
  Allocation allocation_of(std::span<const Grant> grants) const;

  // Transitions' bookkeeping.
  void fold_progress(JobState& job);  // a running job's progress up to now
  void charge(JobState& job, OverheadKind kind, double gpu_seconds);
  void fold_held(JobState& job);  // GPU-seconds held up to now into its record
  // The job holds its GPUs without progress for `seconds` (kRestoring), then runs.
  void pause(JobState& job, OverheadKind kind, double seconds);
  void commit_save(JobState& job);  // its state as of now is saved
  // A periodic save's pause ended: synchronous, it is saved; asynchronous, its write begins.
  void end_periodic_save(JobState& job);
  // An asynchronous write that has completed by now counts (it is settled when it matters: at
  // the job's next save, failure, full save or completion; no event of its own).
  void settle_write(JobState& job);
  void enqueue_waiting(JobState& job);    // it waits: listed, and the decider hears
  void requeue(JobState& job);            // gives back what it holds and waits
  void leave_waiting(std::uint32_t job);  // it starts: no longer listed as waiting (before it
                                          // holds: take_holding reuses its list position)

  // Measurement.
  void integrate_until(Time now);
  std::uint32_t queue_head() const;
  void check_invariants() const;
  void check_work_conservation() const;

  const SimOptions& options_;
  std::span<const JobSpec> specs_;
  ClusterState cluster_;
  const JobSpeed& speed_;
  const bool resizing_;
  Decider* decider_ = nullptr;
  ArrivalBinder* binder_ = nullptr;
  std::vector<Mechanism*> mechanisms_;
  std::function<bool()> extend_;
  std::function<void()> after_decision_;
  bool loaded_ = false;
  bool any_job_checkpoint_interval_ = false;
  std::size_t type_count_ = 1;
  std::vector<const void*> resolved_;  // throughput model's lookup, by (job, GPU type)
  std::vector<double> type_speeds_;    // typed models: speed by (job, GPU type); 0 = cannot
  // Several GPU type names: GPU-seconds held by (job, name). A fleet's partitions have a type id
  // each for one name (cluster_state.h); they share the name's slot, so a fleet of clusters of
  // one type keeps no per-type table, as one cluster of that type does not.
  std::vector<double> type_gpu_seconds_;
  std::vector<std::uint16_t> type_name_slot_;  // by GPU type id: its name's slot
  std::vector<std::string> type_slot_names_;   // by slot: the name
  std::vector<std::uint32_t> type_node_;       // a node of each type: its proportional shares
  OverheadModel overheads_;

  Time now_ = 0.0;
  std::vector<JobState> jobs_;
  std::vector<JobRecord> records_;            // what each job accumulates; moved into the results
  std::vector<std::uint32_t> arrival_order_;  // job indices sorted by (submit, index)
  std::size_t next_arrival_ = 0;
  EventQueue events_;
  bool begun_ = false;
  bool over_ = false;
  bool endless_ = false;  // a mechanism's timers never run out: end when no job is left

  // Timers: by kind, its client, phase and rank (event order within an instant).
  static constexpr std::uint8_t kCompletionRank = 0, kCheckpointDoneRank = 1, kRestoreDoneRank = 2;
  std::vector<TimerClient*> timer_clients_;
  std::vector<TimerPhase> timer_phases_;
  std::vector<std::uint8_t> timer_ranks_;
  std::vector<std::int16_t> kind_of_rank_;  // by rank: the timer kind (-1: a job event)
  std::uint8_t arrival_rank_ = 3;           // timers below it run before arrivals
  std::uint8_t sample_rank_ = 255;
  bool jobs_came_or_went_ = false;  // this instant: an arrival, a completion, a node down or up
  bool sample_due_ = false;

  // Holdings: jobs holding resources, their grants, and the holders of each node; the waiting
  // jobs. A job is in one list at most (a start leaves waiting_ before it joins holders_), so one
  // position per job, in the list it is in, serves both for O(1) removal.
  std::vector<std::uint32_t> holders_;
  std::vector<std::uint32_t> waiting_;
  std::vector<std::uint32_t> list_position_;
  GrantStore grants_;
  // Rate models (rate_model.h), in the order they joined, and scratch: the jobs they name.
  std::vector<RateModel*> rate_models_;
  std::vector<std::uint32_t> affected_;
  std::size_t small_jobs_ = 0;     // CPU-only and fractional jobs loaded
  std::vector<Grant> old_grants_;  // scratch: a changed job's grants before the plan
  std::vector<std::vector<std::uint32_t>> node_holders_;
  std::vector<std::uint32_t> plan_stamp_;  // apply number that last named each job
  // check_change's test for a node named twice in a change of more than kPairwiseNodeCheck
  // grants: the mark of the change that last named each node (sized by node at load).
  static constexpr std::size_t kPairwiseNodeCheck = 32;
  std::vector<std::uint32_t> node_marks_;
  std::uint32_t node_mark_ = 0;
  std::uint32_t apply_number_ = 0;

  // VCs: names (configured, else discovered from the jobs) and GPUs held now.
  std::vector<std::string> vc_names_;
  std::vector<double> vc_usage_;

  // Nodes down: outages in progress by node (they nest), and what each holds of its node.
  std::vector<std::uint32_t> down_count_;
  std::size_t offline_nodes_ = 0;
  int offline_gpus_ = 0;
  std::vector<Grant> offline_grant_;
  // The CPUs, memory and storage bandwidth outages hold now, summed over the nodes down (no job
  // uses them: utilisations leave them out). Summed afresh at each outage's start and end (rare),
  // so that they return to exactly 0 when every node is back.
  Grant offline_held_;
  void sum_offline_held();
  // GPUs held outside jobs (hold_gpus: a mixed run's serving pool), by node, and in all.
  std::vector<int> held_gpus_;
  int held_gpus_total_ = 0;
  int held_offline_gpus_ = 0;  // of those, on nodes down (offline_gpus_ counts them too)
  Plan one_change_;            // Host's capacity verbs: a plan of one capacity change
  struct CapacityDelta {
    std::uint32_t node;
    int down = 0;  // outages begun minus ended by the plan so far
    int held = 0;  // GPUs held minus given back by the plan so far
  };
  std::vector<CapacityDelta> capacity_deltas_;  // scratch: check_capacity

  // Measurement.
  Measurement measurement_;  // integrals, samples, metrics (measurement.h)
  std::uint64_t events_processed_ = 0;
  std::uint64_t reallocations_ = 0;
  std::uint64_t checkpoints_ = 0;
  // Asynchronous saves ([mechanisms] checkpoint_write = "async"; empty otherwise): by job, the
  // snapshot whose write is under way, as of the snapshot: the work left, the GPU-seconds of
  // progress it keeps (its job's unsaved GPU-seconds then), and when its write completes.
  struct PendingWrite {
    double remaining = 0.0;
    double gpu_seconds = 0.0;
    Time done = 0.0;
    bool active = false;
  };
  std::vector<PendingWrite> writes_;
  // Restart delays (Plan::delay_restart; empty until a plan carries one): by job, what its next
  // start or in-place restore owes beside its restore.
  struct OwedRestart {
    Time detected_at = 0.0;
    double reschedule_s = 0.0;
    bool owed = false;
  };
  std::vector<OwedRestart> owed_restarts_;
  // Jobs a fleet's rebalancer moved to another cluster (rebind_waiting; empty until one moves):
  // by job, 1 while its next start owes its restore as a migration.
  std::vector<std::uint8_t> moved_between_clusters_;
  std::vector<double> stop_seconds_;  // scratch: each stop's checkpoint time, in plan order
  // Work conservation (all jobs, all time): GPU-seconds held by jobs, as the ledger saw them and
  // as the transitions summed them: held = progress + overheads.
  double ledger_gpu_seconds_ = 0.0;
  double held_gpu_seconds_ = 0.0;
  double progress_gpu_seconds_ = 0.0;
  double overhead_gpu_seconds_ = 0.0;
  std::size_t rejected_ = 0;
  std::size_t active_jobs_ = 0;  // submitted and not finished
  Time last_batch_time_ = 0.0;
  Time first_submit_ = 0.0;
  // Window: jobs of the window not finished yet (rejected ones excluded).
  std::size_t window_left_ = 0;
  Time window_end_ = 0.0;
  bool window_outlived_arrivals_ = false;
};

}  // namespace clustersim::internal
