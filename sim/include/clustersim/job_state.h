// A job's state while the simulation runs. Policies read it to order jobs; only the engine writes.
#pragma once

#include <cstdint>

#include "clustersim/job.h"
#include "clustersim/mechanisms.h"

namespace clustersim {

enum class JobPhase : std::uint8_t {
  kPending,        // not yet submitted
  kWaiting,        // in the queue
  kRestoring,      // holds GPUs without progress: restoring, re-launching, migrating, resizing
                   // or saving a periodic checkpoint (JobState::pause says which)
  kRunning,        // holds GPUs, progressing at `rate`
  kCheckpointing,  // preempted: holds GPUs while saving state (no progress)
  kFinished,
  kRejected,  // could never fit; rejected at load
};

// Only what deciders read and the engine needs between events (hot state, ~100 bytes); what a
// job accumulates for the results lives in its JobRecord (metrics.h), written by the engine as
// the run goes.
struct JobState {
  const JobSpec* spec = nullptr;
  std::uint32_t index = 0;
  int gpus = 0;
  int vc = 0;         // index into the cluster's VCs (0 when the cluster has none)
  int gpu_type = -1;  // required type id, -1 = any
  JobPhase phase = JobPhase::kPending;
  // A job on a MIG slice: its profile (mig.h id; it then holds 0 whole GPUs); 0: none. (Here it
  // fits the padding after phase.)
  std::uint8_t mig = 0;
  // With GPU sharing ([sharing]): the share of one GPU it asks for, in thousandths (its spec's
  // gpu_milli < 1000; it then holds 0 whole GPUs); 0: whole GPUs or none. (Here it fits the
  // padding after phase.)
  std::int16_t milli = 0;
  std::uint32_t epoch = 0;  // bumped on every phase change, so stale events can be recognised
  Time submit = 0.0;
  double work = 0.0;       // seconds of progress at rate 1.0 (the spec's duration)
  double remaining = 0.0;  // work left as of `progress_since`
  double rate = 1.0;       // progress per second with what it holds
  Time progress_since = 0.0;
  Time phase_since = 0.0;
  Time held_since = 0.0;          // when the current GPU allocation began
  double attained_time = 0.0;     // seconds of progress so far, as of `progress_since`
  std::uint32_t grant_begin = 0;  // this job's grants in the engine's grant store, while it holds
  std::uint32_t grant_count = 0;  // grants held now (one per node; what it holds: grants_of)
  OverheadKind pause = OverheadKind::kRestore;  // what a kRestoring phase is spent on
  bool has_checkpoint = false;  // a saved state exists (a restart restores it, at a cost)
  // Its last stop ended a time-share lease (Plan::Lease::kEnds): whether that stop was a
  // preemption is known at its next start (plan.h).
  bool lease_ended = false;
  // Copies of its spec's request, so that starting a job reads no JobSpec: the GPUs it asks for
  // (an elastic job may hold others), and whether it states its own CPUs or memory.
  bool own_request = false;
  int requested_gpus = 0;  // 0: a CPU-only job, a share of one GPU (milli > 0) or a MIG slice
  // Mechanisms ([mechanisms]): the work left as of the last saved state (a failure rolls back
  // to it), and the running since that save: seconds, and GPU-seconds (what a failure loses).
  double saved_remaining = 0.0;
  double run_since_save = 0.0;
  double unsaved_gpu_seconds = 0.0;

  bool holds_gpus() const {
    return phase == JobPhase::kRestoring || phase == JobPhase::kRunning ||
           phase == JobPhase::kCheckpointing;
  }
  double remaining_at(Time now) const {
    return phase == JobPhase::kRunning ? remaining - rate * (now - progress_since) : remaining;
  }
  double attained_at(Time now) const {
    return phase == JobPhase::kRunning ? attained_time + (now - progress_since) : attained_time;
  }
};

}  // namespace clustersim
