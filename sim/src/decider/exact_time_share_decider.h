// rounds = "exact": an event-driven realisation of Gavel's allocations (time_share.h), the
// alternative to Gavel's rounds (time_share_decider.h). Private to the simulator; Simulation
// installs it for a time-share policy with [scheduler] rounds = "exact".
//
// The allocation X[j][t] (the fraction of time job j should run on GPUs of type t) is solved
// again at every instant at which jobs arrive or finish (allocation_reset_s does not apply: a
// solve takes milliseconds, and a newcomer has no share until one includes it). It is realised by
// leases:
//  - a job that starts or goes on running on type t holds a lease of X[j][t] x lease_s seconds,
//    so over any lease_s each job is owed exactly its fraction of it (no whole steps, no round);
//  - each job accrues a deficit per type: X[j][t] per second it is active, minus 1 per second it
//    holds a lease there. It persists across new allocations, so a job that got less than its
//    share (it waited for room) catches up later;
//  - whenever GPUs are free or a lease ends (an instant of its own, by a timer), the jobs without
//    a running lease are ranked by deficit, largest first (to the microsecond; then a waiting
//    job before one whose lease just ended, which makes equal shares alternate; then arrival
//    order), each (job, type) with X[j][t] > 0 once. Walking the ranking, a job takes the first
//    type where its GPUs fit in the room (free GPUs plus those of leases that ended); a job
//    behind its share (deficit > 0) that does not fit reserves its type: no job ranked below it
//    takes GPUs of that type now, so a wide job is not starved by narrow ones taking GPUs as
//    they free one by one;
//  - a job whose lease ended and that is picked again on its type renews it in place (no stop,
//    no cost); otherwise it is stopped (a preemption: checkpoint_s, then restore_s at its next
//    start, as in Gavel's rounds) and the jobs picked start at once on the GPUs that are free;
//  - a new allocation cuts a running lease to X_new x lease_s from its start: a job whose share
//    shrank (to 0: it is not in the allocation any more) gives its GPUs up at once.
// A job never runs on a type where it cannot run, nor, with exact_fill = "none" (the default),
// where X[j][t] is 0 (below 1e-6, LP noise). A lease that ends while its job is still restoring
// ends when the restore does (only a running job can be stopped).
//
// exact_fill = "idle": the realisation is work-conserving. After the walk above, GPUs of a type
// still in the room go to fillers: the jobs not picked, waiting or running (a job whose lease
// ended, or a filler), on any type where they can run, reservations aside. Fillers rank by
// holding the type already first (a running filler keeps its GPUs: fillers never displace
// fillers), then deficit on the type, then arrival order, then the faster type, then the
// cluster's order (Gavel's rounds give leftover GPUs to jobs of priority 0, per type by
// deficit, then arrival order). A filler holds its GPUs until a share-holder needs them: at
// every decision a running filler's GPUs count as room for the walk above, as if its lease had
// just ended, so a share-holder never waits for a filler (only, with checkpoint_s > 0, for it to
// save its state) and a filler yields at the first instant at which one could take its GPUs;
// none needs a timer of its own. A filler not kept is stopped: a preemption, checkpoint_s, then
// restore_s at its next start. Filler time is not charged to deficits (a bonus beyond the
// allocation, which keeps the shares' catch-up as it is). It applies under fifo_perf too (there
// it backfills, where Gavel's rounds leave a FIFO job of priority 0 waiting).
#pragma once

#include <cstdint>
#include <vector>

#include "clustersim/decider.h"
#include "decider/placement_stage.h"

namespace clustersim::internal {

class ExactTimeShareDecider final : public Decider, public TimerClient {
 public:
  ExactTimeShareDecider(const SimOptions& options, PlacementStage& placement);

  void attach(Host& host) override;
  void jobs_added() override;
  void on_arrival(std::uint32_t job) override;
  void on_finished(std::uint32_t job) override;
  void decide(const DecisionPoint& point) override;
  // A lease's end: the decision at that instant renews or stops it.
  void on_timer(const Timer& timer) override { (void)timer; }
  std::optional<std::uint32_t> head_of_queue() const override;
  void check_invariants() const override;

 private:
  struct Lease {
    int type = -1;  // -1: no lease (the job waits, or saves its state after a stop)
    Time start = 0.0;
    Time end = 0.0;
    bool fill = false;  // a filler's (exact_fill = "idle"): no end, kept while unneeded
  };
  // A (job, type) the ranking may give GPUs to.
  struct Candidate {
    std::int64_t deficit_us;  // deficit in microseconds: larger first
    bool holds;               // its lease just ended (ranks after a waiting job on a tie)
    std::uint32_t arrival;    // its rank in arrival order
    int type;
    std::uint32_t job;
  };
  // A (job, type) the fill may give GPUs left over by the ranking to.
  struct Filler {
    bool holds;  // it runs there now (ranks first: fillers never displace fillers)
    std::int64_t deficit_us;
    std::uint32_t arrival;
    double speed;  // steps/s there: the faster type first
    int type;
    std::uint32_t job;
  };

  const View& view() const { return *view_; }
  std::size_t cell(std::uint32_t job, int type) const {
    return job * static_cast<std::size_t>(types_) + static_cast<std::size_t>(type);
  }
  double share(std::uint32_t job, int type) const;  // X[j][t], 0 below the noise threshold
  void accrue(Time now);
  void solve(Time now);
  void rank_candidates(Time now);
  void pick();
  void fill();
  void grant_lease(std::uint32_t job, int type, Time now);
  // The waiting `job`'s lease ended at this instant (it moves to another type at once): its start
  // continues that lease, so the stop was no preemption (plan.h, Plan::Lease).
  bool moves_at_once(std::uint32_t job, Time now) const {
    const JobState& state = view().jobs()[job];
    return state.lease_ended && state.phase_since == now;
  }

  const SimOptions& options_;
  PlacementStage& placement_;
  Host* host_ = nullptr;
  const View* view_ = nullptr;
  TimerKind lease_end_ = 0;
  int types_ = 0;
  double lease_s_ = 0.0;
  bool fill_ = false;  // exact_fill = "idle"

  std::vector<std::uint32_t> active_;   // arrived and not finished, in arrival order
  std::vector<std::uint32_t> arrival_;  // by job: its rank in arrival order
  std::uint32_t arrivals_ = 0;
  bool must_solve_ = false;
  Time accrued_until_ = 0.0;
  std::vector<double> allocation_, deficit_;  // by (job, type)
  std::vector<Lease> lease_;                  // by job

  // One decision's scratch: the ranking, the fillers' ranking, the room of each type, the
  // reserved types, each job's picked type (-1: none) and whether it was picked as a filler.
  std::vector<Candidate> candidates_;
  std::vector<Filler> fillers_;
  std::vector<int> room_;
  std::vector<std::uint8_t> reserved_;
  std::vector<int> picked_;
  std::vector<std::uint8_t> filled_;
  std::vector<NodeShare> shares_;
  Plan plan_;
};

}  // namespace clustersim::internal
