// Preemption ([scheduler] lease_s, preemption; [mechanisms] preempt_on_arrival): a decision
// mechanism of the built-in decider (decision_mechanism.h). Private to the simulator.
//
//   rounds     for preemptive policies: at every lease boundary (lease_s > 0) while jobs wait,
//              or at every arrival, completion and failure (lease_s = 0: event-driven, SRTF is
//              then SRPT), running and waiting jobs are walked together in policy order and
//              admitted greedily into each GPU type's capacity (what is free plus what
//              preemptible jobs hold there) within VC quotas; running jobs not admitted are
//              stopped, but only on a type where a waiting job was admitted (the pass then
//              starts the admitted ones). An untyped waiting job counts against the type with
//              the most idle GPUs not yet claimed if they suffice, else the one with the most
//              capacity left (type_choice.h). A job that has held its GPUs for less than
//              min_run_s is not preemptible. Fair-share rounds keep running a victim that the
//              pass after them would start again (spare_restarted_victims). A policy whose
//              waiting jobs' keys change as they wait (Tiresias' promotion) re-keys them first.
//   evictions  with honor_priority and preempt_on_arrival: a higher-priority arrival evicts
//              running jobs of lower priority at once, the lowest priority (then the lowest in
//              policy order) first, when enough of them hold GPUs of its type.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "clustersim/simulator.h"
#include "decider/decision_mechanism.h"
#include "decider/waiting_queue.h"

namespace clustersim::internal {

class Preemption final : public DecisionMechanism {
 public:
  explicit Preemption(const SimOptions& options);

  std::string_view name() const override { return "preemption"; }
  unsigned hooks() const override {
    return (evicts_on_arrival_ ? kOnArrival : 0u) | kBeforePass | kAfterDecision;
  }
  void attach(Host& host) override;
  void bind(DecisionStages& stages) override;
  void on_timer(const Timer& timer) override;
  void on_arrival(std::uint32_t job) override;
  void before_pass(const DecisionPoint& point) override;
  void after_decision(Time now) override;
  void report(RunMetrics& metrics) const override { metrics.rounds = rounds_; }

 private:
  // Whether this instant holds a round: a round timer fired, or (none pending) it lands exactly
  // on a lease boundary while jobs wait; with lease_s = 0, whenever jobs arrived, completed or
  // failed while jobs wait.
  bool round_due(const DecisionPoint& point);
  void round(Time now);
  void simple_round(int capacity);
  // Keeps running the victims (victims_) that the pass after a fair-share round would restart.
  void spare_restarted_victims(std::span<const double> base_usage);
  void evict_for_arrivals();
  std::optional<Time> next_round(Time now);

  const SimOptions& options_;
  DecisionStages* decision_ = nullptr;
  Host* host_ = nullptr;
  TimerKind timer_ = 0;
  bool evicts_on_arrival_ = false;
  bool round_event_ = false;
  bool round_scheduled_ = false;
  std::uint64_t rounds_ = 0;
  Plan plan_;

  // Scratch reused by rounds (no allocation per event).
  std::vector<std::uint32_t> candidates_;
  std::vector<WalkList> walk_lists_;
  std::vector<std::uint32_t> walk_buckets_;
  std::vector<std::vector<std::uint32_t>> vc_candidates_;
  MergedWalk walk_;
  std::vector<std::uint32_t> admitted_stamp_;
  std::uint32_t round_number_ = 0;
  std::vector<double> round_usage_;
  std::vector<int> type_capacity_;           // a round's GPUs left, by type
  std::vector<int> type_idle_;               // a round's free GPUs not yet claimed, by type
  std::vector<char> type_admitted_;          // a round admitted a waiting job on this type
  std::vector<int> gpu_prefix_;              // simple_round: GPUs of candidates_[0..i)
  std::vector<std::uint32_t> rejected_;      // simple_round: running jobs passed over
  std::vector<std::uint32_t> arrived_;       // this instant's arrivals (preempt_on_arrival)
  std::vector<std::uint32_t> victims_;       // scratch: evict_for_arrivals; a round's stops
  std::vector<double> base_usage_;           // a round's GPUs by VC that it cannot take
  std::vector<double> play_usage_;           // spare_restarted_victims: GPUs by VC as the pass goes
  std::vector<char> vc_blocked_;             // spare_restarted_victims: a VC blocked (strict order)
  std::vector<char> is_victim_;              // spare_restarted_victims: by job, a stop planned
  std::vector<std::uint32_t> play_victims_;  // spare_restarted_victims: by bucket
  // spare_restarted_victims: the victims of each bucket (kept across rounds: no allocation once
  // as many buckets were seen).
  std::vector<std::vector<std::uint32_t>> victim_groups_;
  std::vector<int> freeing_;  // scratch: GPUs being freed, by type
};

}  // namespace clustersim::internal
