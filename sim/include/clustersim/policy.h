// Scheduling (ordering) policies: which waiting job goes first, and — for preemptive ones —
// which running jobs yield at a lease boundary. One small interface; policies register by name.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "clustersim/job_state.h"
#include "clustersim/simulator.h"

namespace clustersim {

// Lower sorts first. The engine breaks remaining ties by job index.
struct PriorityKey {
  double primary = 0.0;
  double secondary = 0.0;
};

struct PolicyContext {
  Time now = 0.0;
  std::span<const JobState> jobs;
  double total_gpus = 0.0;
};

class SchedulingPolicy {
 public:
  virtual ~SchedulingPolicy() = default;
  // Whether running jobs may be preempted at lease boundaries (scheduler.preemption overrides).
  virtual bool preemptive() const = 0;
  // Fair-share policies rank VCs: at every step the engine serves the VC with the lowest rank
  // were it to run its next job, and within a VC follows the jobs' keys. The rank may depend
  // only on the VC's GPUs held, the next job's GPUs, and the VC's weight.
  virtual bool ranks_vcs() const { return false; }
  virtual double vc_rank(double vc_gpus_held, int next_job_gpus, double vc_weight,
                         double total_gpus) const {
    (void)vc_gpus_held, (void)next_job_gpus, (void)vc_weight, (void)total_gpus;
    return 0.0;
  }
  // Writes one key per job in `jobs` (indices into ctx.jobs) into `keys`. A waiting job's key is
  // computed when it starts waiting; running jobs are re-keyed at each preemption round.
  virtual void compute_keys(std::span<const std::uint32_t> jobs, const PolicyContext& ctx,
                            std::span<PriorityKey> keys) = 0;
  // Whether waiting jobs' keys may change while they wait (a starvation guard that promotes
  // them): every waiting job is then re-keyed at each preemption round, before the round walks
  // the queue (compute_keys sees it waiting). Else never: no cost per round.
  virtual bool rekeys_waiting_at_rounds() const { return false; }
  // Whether on_finished may re-key waiting jobs (else it is never called: no cost per job).
  virtual bool rekeys_on_finish() const { return false; }
  // Called when `job` finishes. A policy whose waiting jobs' keys depend on what finished (e.g.
  // a duration estimate learned from a user's finished jobs) appends the waiting jobs to re-key
  // to `rekey`; each is then re-keyed (compute_keys) and moved within its bucket of the queue,
  // at the cost of a binary search and a move within one chunk (<= 256 entries) per job.
  virtual void on_finished(std::uint32_t job, const PolicyContext& ctx,
                           std::vector<std::uint32_t>& rekey) {
    (void)job, (void)ctx, (void)rekey;
  }
};

std::unique_ptr<SchedulingPolicy> make_scheduling_policy(const SchedulerOptions& options);
// The run's policy: SimOptions::make_policy's when set, else scheduler.policy's.
std::unique_ptr<SchedulingPolicy> make_scheduling_policy(const SimOptions& options);
std::vector<std::string> scheduling_policy_names();

}  // namespace clustersim
