// Deciders: who runs where. At every decision point (every instant at which something happened:
// arrivals, completions, timers) the simulation asks its decider, which reads the view and
// applies plans through the host (host.h). The built-in decider (the default) is composed of
// stages, one small interface each: admission (which jobs can ever run; VC quotas), ordering
// (policy.h), GPU-type choice and placement (placement.h), allocation
// (allocation_mechanism.h), with the decision mechanisms (preemption rounds, migration, elastic
// resizing) plugged in between; sim/README.md, "The open core". A user's decider replaces it
// whole (Simulation::set_decider, simulation.h); a Python policy or an external scheduler is one.
#pragma once

#include <cstdint>
#include <optional>

#include "clustersim/host.h"
#include "clustersim/metrics.h"

namespace clustersim {

// What happened at this instant, before the decision.
struct DecisionPoint {
  Time now = 0.0;
  // An arrival, a completion or a node going down or up (event-driven preemption re-plans then).
  bool jobs_came_or_went = false;
};

class Decider {
 public:
  virtual ~Decider() = default;
  // Once, before the first event: keep the host, register timer kinds, size per-job tables to
  // host.view().jobs().size().
  virtual void attach(Host& host) = 0;
  // The workload grew (arrivals stream in): per-job tables may grow to the view's job count.
  virtual void jobs_added() {}
  // As they happen: a job starts waiting (it arrived, or it was stopped and re-queued; its
  // phase is kWaiting), a job arrived (after on_waiting), resources were given back (a
  // completion, the end of a checkpoint, a failure, a node back up). A decider that keeps its
  // own queue must not start jobs it has not heard of as waiting.
  virtual void on_waiting(std::uint32_t job) { (void)job; }
  virtual void on_arrival(std::uint32_t job) { (void)job; }
  // A waiting job's GPU type changed while it waited (a fleet's rebalancer bound it to another
  // cluster: fleet.h); `old_gpu_type` is the type it waited under. A decider that keeps waiting
  // jobs by type moves it.
  virtual void on_rebound(std::uint32_t job, int old_gpu_type) {
    (void)job;
    (void)old_gpu_type;
  }
  // A job finished (before on_released for what it gave back).
  virtual void on_finished(std::uint32_t job) { (void)job; }
  virtual void on_released() {}
  // The decision at one instant: apply plans through the host given to attach(). With decision
  // mechanisms on (sim/README.md, "The open core"), it may be asked again at the same instant
  // when one of them freed GPUs for the queue's head (elastic shrinking, compaction).
  virtual void decide(const DecisionPoint& point) = 0;

  // The waiting job that measurements treat as the head of the queue (the fragmentation metric
  // counts idle GPUs it could not use); none: the earliest arrival among the waiting jobs.
  virtual std::optional<std::uint32_t> head_of_queue() const { return std::nullopt; }
  // Whether a timer of its own will let waiting jobs start although nothing runs and nothing
  // arrives any more (else the simulation reports a stall).
  virtual bool expects_wakeup() const { return false; }
  // Its own consistency checks ([debug] check_invariants), and what it measured.
  virtual void check_invariants() const {}
  virtual void report(RunMetrics& metrics) const { (void)metrics; }
};

}  // namespace clustersim
