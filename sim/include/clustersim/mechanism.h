// Mechanisms as plug-ins: processes that act on the simulation through timers and plans, with
// any decider. A mechanism registers its timer kinds (host.h), schedules timers, and when one
// fires applies plans (Plan::fail, Plan::save, stops, moves) and capacity changes through the
// host; the event loop knows only that a timer fired. Node failures and periodic checkpoints are
// built in this way (sim/src/mechanisms/, registered in registry.cc from [mechanisms]); a user's
// own joins a simulation with Simulation::add_mechanism (simulation.h).
//
// Decisions that plug into the built-in decider (preemption rounds, migration, elastic resizing)
// are mechanisms too, with hooks that decider calls at fixed points of a decision (private:
// sim/src/decider/decision_mechanism.h).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string_view>

#include "clustersim/host.h"
#include "clustersim/metrics.h"

namespace clustersim {

class Mechanism : public TimerClient {
 public:
  // Its name (the registry's, or the user's), for messages.
  virtual std::string_view name() const = 0;
  // Once, before the first event: keep the host, register timer kinds.
  virtual void attach(Host& host) = 0;
  // At the first event (the workload's first arrival, or earlier: begins_at): schedule the first
  // timers.
  virtual void start() {}
  // A mechanism whose first timer may come before the workload's first arrival (a mixed run's
  // first query) says when: the clock then starts there. Metrics still measure the jobs from
  // their first arrival.
  virtual Time begins_at() const { return std::numeric_limits<Time>::infinity(); }
  void on_timer(const Timer& timer) override { (void)timer; }
  // A job began running (it started, resumed after a pause, or changed what it holds).
  virtual void on_job_running(std::uint32_t job) { (void)job; }
  // A stopped (preempted) job finished saving its checkpoint and gave back what it held; it
  // waits again. The ledger has its resources back, before any decision of this instant.
  virtual void on_checkpointed(std::uint32_t job) { (void)job; }
  // Its timers never run out (failures): the run then ends when no job is left.
  virtual bool endless() const { return false; }
  virtual void report(RunMetrics& metrics) const { (void)metrics; }
  // After report(), with the per-job records of the run (a job outside the measured window has
  // its counters zeroed): for metrics that are functions of them.
  virtual void report_jobs(std::span<const JobRecord> jobs, RunMetrics& metrics) const {
    (void)jobs;
    (void)metrics;
  }
  // Last, once `result` holds the per-job records (result.jobs): columns of its own per job or
  // per sample (RunResult::job_columns, sample_columns), which the CSV writers append.
  virtual void conclude(RunResult& result) const { (void)result; }
};

}  // namespace clustersim
