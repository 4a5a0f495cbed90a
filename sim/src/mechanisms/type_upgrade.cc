#include "mechanisms/type_upgrade.h"

#include "decider/decision_stages.h"
#include "mechanisms/keys.h"

namespace clustersim::internal {

void TypeUpgrade::bind(DecisionStages& stages) {
  decision_ = &stages;
  view_ = &stages.view();
  placement_ = &stages.placement();
}

bool TypeUpgrade::best_upgrade(Upgrade& best) const {
  const ClusterState& cluster = view().cluster();
  const int types = static_cast<int>(cluster.gpu_type_names().size());
  const Time now = view().now();
  best = Upgrade{};
  for (std::uint32_t job : view().holders()) {
    const JobState& state = view().jobs()[job];
    if (tried_[job] || state.phase != JobPhase::kRunning || state.gpu_type >= 0 ||
        state.requested_gpus == 0 || state.gpus != state.requested_gpus)
      continue;
    const int from = view().type_held(job);
    const double speed_here = view().type_speed(job, from);
    const double left_s = state.remaining_at(now) / state.rate;
    const double cost_s = view().expected_overhead_s(OverheadKind::kMigration, job);
    for (int t = 0; t < types; ++t) {
      const double speed_there = view().type_speed(job, t);
      if (speed_there <= speed_here || cluster.free_gpus(t) < state.gpus) continue;
      const double gain_s = left_s - (cost_s + left_s * speed_here / speed_there);
      if (gain_s > best.gain_s) best = {job, t, gain_s};
    }
  }
  return best.type >= 0;
}

bool TypeUpgrade::move(const Upgrade& upgrade) {
  const JobState& state = view().jobs()[upgrade.job];
  PlacementRequest request = PlacementStage::base_request(state);
  request.job = upgrade.job;
  request.gpu_type = upgrade.type;
  if (!placement_->place(request, shares_)) return false;
  move_.clear();
  move_.set(upgrade.job);
  for (const NodeShare& share : shares_)
    move_.add_grant(view().cluster().grant_for(share.node, request, share.gpus));
  // The gain again at the rate the placement gives (a split placement may be slower).
  const auto grants = move_.grants(move_.changes().front());
  const double left_s = state.remaining_at(view().now()) / state.rate;
  const double cost_s = view().expected_overhead_s(OverheadKind::kMigration, upgrade.job);
  if (!(left_s > cost_s + state.remaining_at(view().now()) / view().rate_if(upgrade.job, grants)))
    return false;
  decision_->apply(move_);
  return true;
}

bool TypeUpgrade::after_pass(Plan& plan) {
  (void)plan;
  tried_.assign(view().jobs().size(), 0);
  bool moved = false;
  Upgrade upgrade;
  while (best_upgrade(upgrade)) {
    moved = move(upgrade) || moved;
    tried_[upgrade.job] = 1;  // at most one try per job and decision
  }
  return moved;
}

}  // namespace clustersim::internal

namespace clustersim::options {

void declare_type_upgrade_keys(KeyRegistry& keys) {
  mechanism_key(
      keys, "upgrade_type", "upgrade_type",
      [](auto& o) -> auto& { return o.mechanisms.upgrade_type; })
      .doc(
          "With per-type speeds (`[throughput] model = \"table\"`) and the built-in decider: "
          "after each pass, a running job that names no GPU type moves to a faster type with "
          "free GPUs when that finishes it sooner net of `migration_cost` (largest gain first) "
          "([`sim/README.md`](sim/README.md#placement)).");
}

}  // namespace clustersim::options
