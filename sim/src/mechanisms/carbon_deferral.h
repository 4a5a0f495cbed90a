// Carbon-aware deferral ([supply] defer, with [power] on): a decision mechanism
// (decision_mechanism.h) that holds deferrable jobs back at arrival until a low-carbon time
// within their slack. Private to the simulator.
//
// A job's slack runs from its arrival to its latest start: its deadline (job_values' deadline_s,
// from submission) less its duration at full speed, and at most `defer_max_h` after arrival (a
// job without a deadline may wait that long). A job that is not deferrable (job_values), or has
// no slack, is not held. For the others, at arrival, the start it may take:
//   below   the first time within the slack at which the grid's intensity is at most
//           `defer_below_g_per_kwh` (now, if it already is; if no such time comes within the
//           slack, now: waiting would gain nothing the rule can see);
//   lowest  the start, among now and every step boundary of the carbon trace within the slack,
//           with the least mean intensity over the job's run at full speed [start, start +
//           duration] (the earliest among equals): a perfect forecast of the trace.
// Until then the built-in decider passes over it (it waits, and does not block the jobs behind
// it, even in strict order); a timer at that start asks for a decision. Only the first start is
// held back: a job stopped later waits as any other. The built-in decider only: around a decider
// of one's own (a program's or Python's steps) the hold cannot act.
#pragma once

#include <cstdint>
#include <vector>

#include "clustersim/power.h"
#include "clustersim/simulator.h"
#include "decider/decision_mechanism.h"

namespace clustersim::internal {

class CarbonDeferral final : public DecisionMechanism {
 public:
  explicit CarbonDeferral(const SimOptions& options);

  std::string_view name() const override { return "carbon_deferral"; }
  unsigned hooks() const override { return kOnArrival | kGate; }
  void attach(Host& host) override;
  void bind(DecisionStages& stages) override { (void)stages; }
  void on_timer(const Timer& timer) override;
  void on_arrival(std::uint32_t job) override;
  bool may_start(std::uint32_t job, Time now) const override {
    return job >= release_.size() || release_[job] <= now;
  }
  bool expects_wakeup() const override { return pending_ > 0; }
  void report(RunMetrics& metrics) const override { metrics.deferred_jobs = deferred_; }

  // When a job arriving `now` with `duration` seconds of work and its latest start `latest` may
  // start, by the options' rule (public for the tests' hand-computed cases).
  double release_time(Time now, double duration, double latest) const;
  // The grid's mean intensity over [from, from + duration] (its value at `from` if duration is 0).
  double mean_intensity(Time from, double duration) const;

 private:
  const SupplyOptions& supply_;
  double start_s_ = 0.0;  // the run's time 0 on the traces' clock
  Host* host_ = nullptr;
  TimerKind release_timer_ = 0;
  std::vector<double> release_;          // by job: when it may first start (0: at once)
  std::vector<std::int32_t> value_row_;  // by job: its row of supply.values (-1: none)
  std::uint64_t pending_ = 0;            // release timers not yet fired
  std::uint64_t deferred_ = 0;
};

}  // namespace clustersim::internal
