// Migration and defragmentation ([mechanisms] migration): a decision mechanism of the built-in
// decider (decision_mechanism.h) that moves running jobs to other GPUs. Private to the
// simulator; the engine applies what it plans (each move pauses the job for its migration cost,
// OverheadKind::kMigration).
//
// Three moves, each made only when it pays for itself or is asked for:
//   make_room  before a waiting job starts split over more nodes than it needs: the fewest, then
//              cheapest, moves of single-node jobs that free a node (or the fewest nodes) for it,
//              if the time it gains by running consolidated exceeds what the moves cost;
//   compact    (fragmentation above the threshold, or periodically) first re-consolidates running
//              jobs that are split although a node could now hold them, when that pays; then
//              empties the least-used nodes into fuller ones, so that whole nodes come free.
// Only running single-node jobs are moved to make room or to compact (a paused job is not, and
// a job about to finish is not worth moving). At most defrag_max_moves moves per call.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "clustersim/plan.h"
#include "clustersim/simulator.h"
#include "decider/decision_mechanism.h"
#include "decider/placement_stage.h"
#include "mechanisms/planned_ledger.h"

namespace clustersim::internal {

class Migration final : public DecisionMechanism {
 public:
  explicit Migration(const SimOptions& options);

  std::string_view name() const override { return "migration"; }
  // On demand: make room for a job the pass would start split (make_room); after the pass,
  // compact when fragmentation is above the threshold or a periodic compaction is due.
  void attach(Host& host) override;
  void bind(DecisionStages& stages) override;
  void on_timer(const Timer& timer) override;  // a periodic compaction is due
  unsigned hooks() const override {
    return (on_demand_ ? kMakeRoom : 0u) | kAfterPass | kAfterDecision;
  }
  bool make_room(std::uint32_t job, Plan& plan) override;
  bool after_pass(Plan& plan) override;
  void after_decision(Time now) override;

  // Fills `plan` with moves that let waiting `job` start on the fewest nodes it can use; false
  // (plan untouched) when it already can, cannot, or the moves would cost more than it gains.
  bool make_room_for(std::uint32_t job, Plan& plan);
  // Fills `plan` with compaction moves; false when there is nothing worth moving.
  bool compact(Plan& plan);
  // Fraction of the cluster's GPUs that are idle on nodes that cannot host `job` alone from
  // what is free there (the fragmentation metric's numerator, over all GPUs).
  double fragmented_fraction(std::uint32_t job) const;

 private:
  struct Move {
    std::uint32_t job;
    Grant to;
  };
  // A job worth moving: running, on one node, with more time left than a move takes.
  bool movable(std::uint32_t job) const;
  double move_cost(std::uint32_t job) const;  // expected GPU-seconds of moving it
  // The best-fit destination (fewest free GPUs that hold it, after planned moves, and at most
  // `max_free`) for `job`'s grant, among nodes of `type` not excluded; false if none.
  bool destination(std::uint32_t job, int type, Grant& to, int max_free) const;
  // Plans moving single-node jobs off `node` until it has `free` free GPUs: fewest moves (the
  // largest jobs first), then cheapest. Appends to moves_; false (moves_ as before) if it cannot.
  bool clear(std::uint32_t node, int free, double& cost);
  const View& view() const { return *view_; }

  const MechanismOptions& options_;
  bool on_demand_ = false;
  DecisionStages* decision_ = nullptr;
  const View* view_ = nullptr;
  PlacementStage* placement_ = nullptr;
  Host* host_ = nullptr;
  TimerKind timer_ = 0;
  bool compaction_due_ = false;        // a periodic compaction's timer fired this instant
  bool compaction_scheduled_ = false;  // the next periodic compaction is scheduled
  bool compaction_tried_ = false;      // a compaction found nothing; retried once resources free
  std::vector<Move> moves_;
  std::unique_ptr<PlannedLedger> planned_;  // what the moves planned so far take
  std::vector<char> excluded_;              // by node: a target (nothing moves onto it)
  std::vector<std::uint32_t> movers_, nodes_;
  std::vector<NodeShare> shares_;
  std::vector<Grant> grants_;
};

}  // namespace clustersim::internal
