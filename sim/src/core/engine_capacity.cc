// Capacity changes (plan.h, Plan::CapacityAction): nodes going down and up, whole GPUs held
// outside jobs (a mixed run's serving pool). They are plans like any other: checked whole with
// the plan's jobs' changes before anything changes (check_capacity), applied after those, in
// order (apply_capacity). Host's capacity verbs are one-change plans.
#include <string>

#include "core/engine.h"

namespace clustersim::internal {

void Engine::node_down(std::uint32_t node) {
  one_change_.clear();
  one_change_.node_down(node);
  apply(one_change_);
}

void Engine::node_up(std::uint32_t node) {
  one_change_.clear();
  one_change_.node_up(node);
  apply(one_change_);
}

void Engine::hold_gpus(std::uint32_t node, int gpus) {
  one_change_.clear();
  one_change_.hold_gpus(node, gpus);
  apply(one_change_);
}

void Engine::release_gpus(std::uint32_t node, int gpus) {
  one_change_.clear();
  one_change_.release_gpus(node, gpus);
  apply(one_change_);
}

// Each change is checked against the ledger as the changes before it leave it. Where a job's
// change and a capacity change touch one node the check is conservative: GPUs the plan grants to
// jobs there count as taken, GPUs the plan's jobs give back there do not count as free (hold
// them in a later plan). A node may go down in the plan that fails its jobs.
void Engine::check_capacity(const Plan& plan) {
  capacity_deltas_.clear();
  const auto delta_of = [&](std::uint32_t node) -> CapacityDelta& {
    for (CapacityDelta& delta : capacity_deltas_)
      if (delta.node == node) return delta;
    capacity_deltas_.push_back({node});
    return capacity_deltas_.back();
  };
  for (const Plan::CapacityChange& change : plan.capacity_changes()) {
    const std::uint32_t node = change.node;
    // Messages are built only on failure: applying a plan must not allocate.
    const auto where = [node] { return "node " + std::to_string(node); };
    if (node >= cluster_.nodes().size()) {
      const char* verb = change.action == Plan::CapacityAction::kNodeDown   ? "node_down"
                         : change.action == Plan::CapacityAction::kNodeUp   ? "node_up"
                         : change.action == Plan::CapacityAction::kHoldGpus ? "hold_gpus"
                                                                            : "release_gpus";
      throw PlanError(std::string(verb) + ": no node " + std::to_string(node));
    }
    CapacityDelta& delta = delta_of(node);
    const int down = static_cast<int>(down_count_[node]) + delta.down;
    switch (change.action) {
      case Plan::CapacityAction::kNodeDown:
        if (down == 0)
          for (std::uint32_t holder : node_holders_[node]) {
            bool failed_here = false;
            for (const Plan::Change& job_change : plan.changes()) {
              if (job_change.job != holder || job_change.action != Plan::Action::kFail) continue;
              failed_here = true;  // unless it shrinks on failure to a grant here
              for (const Grant& grant : plan.grants(job_change))
                failed_here = failed_here && grant.node != node;
            }
            if (!failed_here)
              throw PlanError("node_down: " + where() +
                              " still hosts jobs (stop them first, e.g. with Plan::fail)");
          }
        ++delta.down;
        break;
      case Plan::CapacityAction::kNodeUp:
        if (down == 0) throw PlanError("node_up: " + where() + " is not down");
        --delta.down;
        break;
      case Plan::CapacityAction::kHoldGpus: {
        int free = down > 0 ? 0 : cluster_.node(node).free_gpus - delta.held;
        for (const Plan::Change& job_change : plan.changes())
          for (const Grant& grant : plan.grants(job_change))
            if (grant.node == node) free -= grant.gpus;
        if (change.gpus <= 0 || free < change.gpus)
          throw PlanError("hold_gpus: " + where() + " has not " + std::to_string(change.gpus) +
                          " free GPUs");
        delta.held += change.gpus;
        break;
      }
      case Plan::CapacityAction::kReleaseGpus:
        if (change.gpus <= 0 || held_gpus_[node] + delta.held < change.gpus)
          throw PlanError("release_gpus: " + where() + " holds fewer than " +
                          std::to_string(change.gpus) + " GPUs outside jobs");
        delta.held -= change.gpus;
        break;
    }
  }
}

void Engine::sum_offline_held() {
  offline_held_ = Grant{};
  for (std::size_t i = 0; i < offline_grant_.size(); ++i) {
    if (down_count_[i] == 0) continue;
    offline_held_.cpus += offline_grant_[i].cpus;
    offline_held_.mem_gb += offline_grant_[i].mem_gb;
    offline_held_.storage_mbps += offline_grant_[i].storage_mbps;
  }
}

void Engine::apply_capacity(const Plan::CapacityChange& change) {
  const std::uint32_t node = change.node;
  switch (change.action) {
    case Plan::CapacityAction::kNodeDown: {
      jobs_came_or_went_ = true;
      if (down_count_[node]++ > 0) return;  // already down: this outage extends the one under way
      // Down: the node's resources are held by no job until it is back.
      const auto& n = cluster_.node(node);
      offline_grant_[node] =
          Grant{node, n.free_gpus, n.free_cpus, n.free_mem_gb, n.free_storage_mbps};
      cluster_.allocate(offline_grant_[node]);
      ++offline_nodes_;
      offline_gpus_ += n.gpus;
      held_offline_gpus_ += held_gpus_[node];  // GPUs held outside jobs stay held, now offline
      sum_offline_held();
      return;
    }
    case Plan::CapacityAction::kNodeUp:
      jobs_came_or_went_ = true;
      if (--down_count_[node] > 0) return;
      cluster_.release(offline_grant_[node]);
      --offline_nodes_;
      offline_gpus_ -= cluster_.node(node).gpus;
      held_offline_gpus_ -= held_gpus_[node];
      sum_offline_held();
      if (decider_) decider_->on_released();
      return;
    case Plan::CapacityAction::kHoldGpus:
      cluster_.allocate(Grant{node, change.gpus});
      held_gpus_[node] += change.gpus;
      held_gpus_total_ += change.gpus;
      return;
    case Plan::CapacityAction::kReleaseGpus:
      held_gpus_[node] -= change.gpus;
      held_gpus_total_ -= change.gpus;
      if (down_count_[node] > 0) {
        // Given back while the node is down: the outage holds them until it is up.
        offline_grant_[node].gpus += change.gpus;
        held_offline_gpus_ -= change.gpus;
        return;
      }
      cluster_.release(Grant{node, change.gpus});
      jobs_came_or_went_ = true;
      if (decider_) decider_->on_released();
      return;
  }
}

}  // namespace clustersim::internal
