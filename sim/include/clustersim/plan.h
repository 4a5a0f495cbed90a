// A decision as data: for each job that changes, the resources it holds from now on (or what
// happens to it), and the changes of capacity (nodes down and up, GPUs held outside jobs). The
// engine applies a plan as a diff against what runs, after checking it whole (sim/README.md, "The
// open core"); it is the only way a job's resources change. Deciders, allocation mechanisms and
// mechanisms (preemption, migration, elastic resizing, failures, periodic checkpoints) all produce
// plans.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace clustersim {

// What a job holds on one node. CPU, memory and storage are 0 where the node does not model them.
// A whole-GPU job's grants have gpus >= 1 and milli 0. With GPU sharing ([sharing]), a fractional
// job holds one grant of gpus 0 and `milli` thousandths of GPU `gpu` of the node; a CPU-only job
// (0 GPUs) holds one grant of gpus 0 and milli 0. Where GPU memory is modelled, a share also
// holds `gpu_mem_mb` of its GPU's memory. A job on a MIG slice holds one grant of gpus 0, milli
// 0, GPU `gpu` and the slice's memory slices `mig_mask` (bit i: memory slice i) with its
// `mig_compute` compute slices.
struct Grant {
  std::uint32_t node = 0;
  int gpus = 0;  // whole GPUs
  double cpus = 0.0;
  double mem_gb = 0.0;
  double storage_mbps = 0.0;
  int milli = 0;  // a share of one GPU in thousandths (1..999); 0: none
  int gpu = -1;   // the node's GPU the share (or MIG slice) is on (0-based); -1 without one
  std::int32_t gpu_mem_mb = 0;   // a share's GPU memory in MB (0: none, or not modelled)
  std::uint8_t mig_mask = 0;     // a MIG slice's memory slices (0: none)
  std::uint8_t mig_compute = 0;  // its compute slices (of 7)
};

class Plan {
 public:
  enum class Action : std::uint8_t {
    kHold,  // the job holds the change's grants from now on; none = stop it (preempted: it saves
            // its state, holding its resources for its checkpoint time, then waits again)
    kFail,  // its node failed: it loses the progress since its last save, gives back everything
            // at once and waits again (a holder in any phase). With grants (a resizable job,
            // running or paused, keeping some of its grants unchanged, within its GPU range),
            // it shrinks to them instead: rolled back as well, it restores on them and runs on
            // (elastic shrink on failure) without waiting again
    kSave,  // a running job keeps what it holds and pauses to save a checkpoint
  };
  // Time-share deciders' leases (sim/README.md, "Metrics": lease_changes against preemptions).
  // A stop at the end of a lease is a lease change; it becomes a preemption only if the job's
  // next start does not continue that lease (Gavel's rounds: the job runs again in the very next
  // round), so a job that holds GPUs round after round is not counted as preempted each round.
  enum class Lease : std::uint8_t {
    kNone,       // an ordinary stop (a preemption) or start
    kEnds,       // a stop: the job's lease ended (counted in lease_changes)
    kContinues,  // a start: it continues the lease that ended at the job's last stop
  };
  struct Change {
    std::uint32_t job = 0;
    std::uint32_t first_grant = 0;
    std::uint32_t grant_count = 0;  // kHold: 0 = stop the job (it is preempted and re-queued)
    Action action = Action::kHold;
    Lease lease = Lease::kNone;  // kHold only
  };

  // Capacity changes, applied after the jobs' changes, in the order added: a node goes down
  // (from then on its resources are held by the outage; every job on it must have left it, in
  // an earlier plan or by fail() in this one) or comes back up (outages of a node nest: it is
  // back when each has ended); whole GPUs of a node held outside jobs (a mixed run's serving
  // pool: only the GPUs, not the node's CPUs or memory) are taken from the ledger or given back
  // (a release like a job's). Host's capacity verbs (host.h) are one-change plans of these.
  enum class CapacityAction : std::uint8_t { kNodeDown, kNodeUp, kHoldGpus, kReleaseGpus };
  struct CapacityChange {
    std::uint32_t node = 0;
    int gpus = 0;  // kHoldGpus, kReleaseGpus: how many
    CapacityAction action = CapacityAction::kNodeDown;
  };

  // A job this plan fails pays, when it next starts (or restores in place on what it keeps), a
  // pause beside its restore, charged as restore: until `detected_at` (when the failure is
  // detected; nothing of it once that has passed, e.g. while the job waited for a repair) plus
  // `reschedule_s` (relaunching it). Restarts without one pay only their restore.
  struct RestartDelay {
    std::uint32_t job = 0;
    double detected_at = 0.0;  // on the simulation's clock
    double reschedule_s = 0.0;
  };

  void clear() {
    changes_.clear();
    grants_.clear();
    capacity_.clear();
    restart_delays_.clear();
  }
  bool empty() const { return changes_.empty() && capacity_.empty(); }
  // Opens the entry of `job`: the grants added until the next set() are what it holds after the
  // plan. A job appears at most once per plan (the engine checks).
  void set(std::uint32_t job) {
    changes_.push_back({job, static_cast<std::uint32_t>(grants_.size()), 0, Action::kHold});
  }
  // The job fails (Action::kFail; grants that follow are what it keeps, see kFail), or saves a
  // checkpoint (Action::kSave; no grants follow).
  void fail(std::uint32_t job) {
    changes_.push_back({job, static_cast<std::uint32_t>(grants_.size()), 0, Action::kFail});
  }
  // The restart delay of a job failed in this plan (the engine checks that it is).
  void delay_restart(std::uint32_t job, double detected_at, double reschedule_s) {
    restart_delays_.push_back({job, detected_at, reschedule_s});
  }
  void save(std::uint32_t job) {
    changes_.push_back({job, static_cast<std::uint32_t>(grants_.size()), 0, Action::kSave});
  }
  // The job's lease ends: it stops (kHold, no grants) as a lease change (Lease::kEnds).
  void end_lease(std::uint32_t job) {
    changes_.push_back(
        {job, static_cast<std::uint32_t>(grants_.size()), 0, Action::kHold, Lease::kEnds});
  }
  // The entry opened last (a start) continues the job's last lease (Lease::kContinues).
  void continue_lease() { changes_.back().lease = Lease::kContinues; }
  void add_grant(const Grant& grant) {
    grants_.push_back(grant);
    ++changes_.back().grant_count;
  }
  void node_down(std::uint32_t node) { capacity_.push_back({node, 0, CapacityAction::kNodeDown}); }
  void node_up(std::uint32_t node) { capacity_.push_back({node, 0, CapacityAction::kNodeUp}); }
  void hold_gpus(std::uint32_t node, int gpus) {
    capacity_.push_back({node, gpus, CapacityAction::kHoldGpus});
  }
  void release_gpus(std::uint32_t node, int gpus) {
    capacity_.push_back({node, gpus, CapacityAction::kReleaseGpus});
  }
  std::span<const Change> changes() const { return changes_; }
  std::span<const CapacityChange> capacity_changes() const { return capacity_; }
  std::span<const Grant> grants(const Change& change) const {
    return {grants_.data() + change.first_grant, change.grant_count};
  }
  std::span<const RestartDelay> restart_delays() const { return restart_delays_; }

 private:
  std::vector<Change> changes_;
  std::vector<Grant> grants_;
  std::vector<CapacityChange> capacity_;
  std::vector<RestartDelay> restart_delays_;
};

}  // namespace clustersim
