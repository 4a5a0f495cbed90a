// Moving running jobs to a faster GPU type ([mechanisms] upgrade_type = true): a decision
// mechanism of the built-in decider (decision_mechanism.h). Where the throughput model makes a
// job's speed depend on the GPU type (View::type_speed, e.g. [throughput] model = "table"), a job
// placed on a slow type because the fast one was full stays there under the type choice alone
// (type_choice.h chooses at a start). After each scheduling pass, GPUs of a faster type that
// are still free (no waiting job could start on them) take running jobs that gain from the move:
// a job moves when the time it would still run where it is exceeds the migration's cost
// ([mechanisms] migration_cost: a save plus a restore unless set) plus the time it runs on the
// faster GPUs. The engine applies a move as migration does (the job pauses for the cost,
// OverheadKind::kMigration, counted in `migrations`). Largest gain first, one move at a time
// (the placement sees each); then the decider passes again, so waiting jobs may take the GPUs
// the moved jobs gave back. Only jobs that name no GPU type move, to a strictly faster type, so
// a job never moves back. Private to the simulator.
#pragma once

#include <cstdint>
#include <vector>

#include "clustersim/plan.h"
#include "decider/decision_mechanism.h"
#include "decider/placement_stage.h"

namespace clustersim::internal {

class TypeUpgrade final : public DecisionMechanism {
 public:
  TypeUpgrade() = default;

  std::string_view name() const override { return "upgrade_type"; }
  unsigned hooks() const override { return kAfterPass; }
  void attach(Host& host) override { (void)host; }
  void bind(DecisionStages& stages) override;
  // Applies the moves itself (each one changes what the placement sees); `plan` stays empty.
  // True when a job moved: the decider passes again.
  bool after_pass(Plan& plan) override;

 private:
  struct Upgrade {
    std::uint32_t job = 0;
    int type = -1;
    double gain_s = 0.0;  // seconds it finishes sooner, net of the move's cost
  };
  // The best move now: the largest gain over running untyped jobs and faster types with enough
  // free GPUs (by the type's speed; the placement is checked when it is applied).
  bool best_upgrade(Upgrade& best) const;
  bool move(const Upgrade& upgrade);
  const View& view() const { return *view_; }

  DecisionStages* decision_ = nullptr;
  const View* view_ = nullptr;
  PlacementStage* placement_ = nullptr;
  std::vector<std::uint8_t> tried_;  // by job: a move failed this pass (placement, or no gain)
  std::vector<NodeShare> shares_;
  Plan move_;
};

}  // namespace clustersim::internal
