// A fleet's rebalancer (fleet.h's FleetRebalanceSpec; sim/README.md, "Fleet", "Migration between
// clusters"): a decision mechanism of the built-in decider in the fleet's one run. Its timers
// check the clusters' waiting demand every interval and time the transfers on the wide-area
// links; its gate holds a moving job until its state has arrived. Private to the simulator.
//
// A move rebinds the waiting job to the destination's GPU type at once (WaitingJobs: the job
// waits in the destination's bucket from then on, and counts in its waiting demand), then the
// job's bytes flow on the link joining the two regions at the link's bandwidth shared equally by
// the transfers flowing on it (re-timed whenever one starts or ends: wan_link.h's rule), and the
// job may start `latency_ms` after its last byte left.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "clustersim/fleet.h"
#include "clustersim/mechanisms.h"
#include "core/arrival_binder.h"
#include "decider/decision_mechanism.h"

namespace clustersim::internal {

class FleetRebalancer final : public DecisionMechanism {
 public:
  // Called at each move (the binder's live load follows the job): job, from, to (clusters).
  using Moved = std::function<void(std::uint32_t, std::size_t, std::size_t)>;
  FleetRebalancer(const FleetSpec& spec, const MechanismOptions& mechanisms, std::size_t jobs,
                  Moved moved);

  void set_waiting_jobs(WaitingJobs& jobs) { waiting_jobs_ = &jobs; }

  std::string_view name() const override { return "fleet_rebalance"; }
  unsigned hooks() const override { return kGate | kAfterDecision; }
  void attach(Host& host) override;
  void bind(DecisionStages& stages) override { stages_ = &stages; }
  void on_timer(const Timer& timer) override;
  void after_decision(Time now) override;
  bool may_start(std::uint32_t job, Time now) const override {
    (void)now;
    return !in_transit_[job];
  }
  bool expects_wakeup() const override { return in_flight_ > 0; }

  // After the run: moves by job (workload order), and the named metrics (fleet.h's FleetResult).
  std::span<const std::uint32_t> moves_by_job() const { return moves_; }
  void add_metrics(std::vector<std::pair<std::string, double>>& metrics) const;

 private:
  struct Flow {
    std::uint32_t job = 0;
    double left = 0.0;  // bytes still to send, as of the link's `since`
  };
  struct Link {
    double bytes_per_s = 0.0;
    double latency_s = 0.0;
    std::vector<Flow> flows;  // sending now
    Time since = 0.0;         // flows' `left` is as of then
    std::uint32_t epoch = 0;  // bumped at every re-timing: older send timers are stale
    // What crossed it.
    std::uint64_t migrated = 0;
    double bytes = 0.0;
    double transfer_s = 0.0;
  };

  void check(Time now);
  // The destination type of `job` in cluster `to` (-1: `to` cannot hold it).
  int destination_type(std::uint32_t job, std::size_t to) const;
  void move(std::uint32_t job, std::size_t from, std::size_t to, int type, Time now);
  // Brings the link's flows' bytes to `now` at the rate they shared since the last change.
  void fold(Link& link, Time now);
  void retime(std::size_t link, Time now);
  void sent(std::size_t link, const Timer& timer);
  double bytes_of(std::uint32_t job) const;

  const FleetSpec& spec_;
  const MechanismOptions& mechanisms_;
  Moved moved_;
  WaitingJobs* waiting_jobs_ = nullptr;
  Host* host_ = nullptr;
  DecisionStages* stages_ = nullptr;
  TimerKind sent_timer_ = 0, arrive_timer_ = 0, check_timer_ = 0;
  bool check_scheduled_ = false;

  std::vector<int> cluster_gpus_;
  std::vector<int> link_of_;  // by (from, to) cluster pair: the link joining their regions, -1
  std::vector<Link> links_;
  std::vector<std::uint8_t> in_transit_;  // by job
  std::vector<std::int32_t> job_link_;    // by job: the link of its transfer under way
  std::vector<Time> moved_at_;            // by job: when its transfer began
  std::vector<std::uint32_t> moves_;      // by job
  std::uint64_t in_flight_ = 0;           // transfers not yet arrived
  std::vector<std::uint64_t> migrated_in_, migrated_out_;  // by cluster
  std::vector<int> incoming_gpus_;  // by cluster: GPUs of the jobs on their way there

  // Scratch for check(): waiting GPUs and movable waiting jobs by cluster, clusters by demand.
  std::vector<double> demand_;
  std::vector<std::vector<std::uint32_t>> movable_;
  std::vector<std::size_t> order_;
};

}  // namespace clustersim::internal
