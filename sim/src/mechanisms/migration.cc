#include "mechanisms/migration.h"

#include <algorithm>
#include <climits>
#include <cmath>

#include "decider/decision_stages.h"
#include "mechanisms/keys.h"

namespace clustersim::internal {

namespace {

// Seconds `job` gains from running at `faster` instead of `slower` for the rest of its work.
double time_gained(double remaining, double slower, double faster) {
  return remaining / slower - remaining / faster;
}

}  // namespace

Migration::Migration(const SimOptions& options)
    : options_(options.mechanisms),
      on_demand_(options.mechanisms.migration == MechanismOptions::Migration::kOnDemand) {}

void Migration::attach(Host& host) {
  host_ = &host;
  timer_ = host.add_timer_kind(*this, TimerPhase::kAfterArrivals);
}

void Migration::bind(DecisionStages& stages) {
  decision_ = &stages;
  view_ = &stages.view();
  placement_ = &stages.placement();
  planned_ = std::make_unique<PlannedLedger>(view_->cluster());
}

void Migration::on_timer(const Timer& timer) {
  (void)timer;
  compaction_due_ = true;
  compaction_scheduled_ = false;
}

bool Migration::make_room(std::uint32_t job, Plan& plan) { return make_room_for(job, plan); }

bool Migration::after_pass(Plan& plan) {
  if (decision_->released()) compaction_tried_ = false;
  const double threshold = options_.defrag_threshold;
  const bool fragmented = threshold > 0.0 && !decision_->queue_empty() && !compaction_tried_ &&
                          fragmented_fraction(decision_->head()) > threshold;
  if (!compaction_due_ && !fragmented) return false;
  if (compact(plan)) return true;
  compaction_tried_ = true;
  return false;
}

void Migration::after_decision(Time now) {
  compaction_due_ = false;
  if (options_.migration != MechanismOptions::Migration::kPeriodic || compaction_scheduled_ ||
      view().holders().empty())
    return;
  compaction_scheduled_ = true;
  const double period = options_.defrag_period_s;
  host_->schedule((std::floor(now / period) + 1.0) * period, timer_);
}

bool Migration::movable(std::uint32_t job) const {
  const JobState& state = view().jobs()[job];
  if (state.phase != JobPhase::kRunning || state.grant_count != 1) return false;
  const double left = state.remaining_at(view().now()) / state.rate;
  return left > view().expected_overhead_s(OverheadKind::kMigration, job);
}

double Migration::move_cost(std::uint32_t job) const {
  return view().jobs()[job].gpus * view().expected_overhead_s(OverheadKind::kMigration, job);
}

bool Migration::destination(std::uint32_t job, int type, Grant& to, int max_free) const {
  const Grant& from = view().grants_of(job).front();
  const auto nodes = view().cluster().nodes();
  int best_free = INT_MAX;
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    // The ledger's free GPUs bound what is free after the planned moves: most nodes fail here.
    if (nodes[n].free_gpus < from.gpus || nodes[n].gpu_type != type || excluded_[n] ||
        n == from.node)
      continue;
    const int free = planned_->free_gpus(n);
    if (free < from.gpus || free >= best_free || free > max_free) continue;
    const Grant candidate{n, from.gpus, from.cpus, from.mem_gb, from.storage_mbps};
    if (!planned_->fits(candidate)) continue;
    to = candidate;
    best_free = free;
    if (free == from.gpus) break;  // a tight fit: no node does better
  }
  return best_free != INT_MAX;
}

bool Migration::clear(std::uint32_t node, int free, double& cost) {
  int deficit = free - planned_->free_gpus(node);
  if (deficit <= 0) return true;
  movers_.clear();
  int movable_gpus = 0;
  for (std::uint32_t job : view().holders_on(node)) {
    if (!movable(job)) continue;
    movers_.push_back(job);
    movable_gpus += view().jobs()[job].gpus;
  }
  if (movable_gpus < deficit) return false;
  // Fewest moves: the largest jobs first (optimal for covering a deficit); then the cheapest.
  std::sort(movers_.begin(), movers_.end(), [&](std::uint32_t a, std::uint32_t b) {
    const int ga = view().jobs()[a].gpus, gb = view().jobs()[b].gpus;
    if (ga != gb) return ga > gb;
    const double ca = move_cost(a), cb = move_cost(b);
    return ca != cb ? ca < cb : a < b;
  });
  const std::size_t moves_before = moves_.size(), taken_before = planned_->mark();
  const double cost_before = cost;
  const int type = view().cluster().node(node).gpu_type;
  for (std::uint32_t job : movers_) {
    if (deficit <= 0) break;
    Grant to;
    if (static_cast<int>(moves_.size()) >= options_.defrag_max_moves ||
        !destination(job, type, to, INT_MAX)) {
      moves_.resize(moves_before);
      planned_->rollback(taken_before);
      cost = cost_before;
      return false;
    }
    planned_->take(to);
    moves_.push_back({job, to});
    cost += move_cost(job);
    deficit -= to.gpus;
  }
  return true;
}

bool Migration::make_room_for(std::uint32_t job, Plan& plan) {
  const JobState& state = view().jobs()[job];
  const ClusterState& cluster = view().cluster();
  if (!placement_->consolidates()) return false;  // it would not use the room
  const int type = placement_->start_type(job);
  if (type < 0 || cluster.free_gpus(type) < state.gpus) return false;
  const auto needed_nodes = static_cast<int>(placement_->fewest_nodes(type, state.gpus));
  PlacementRequest request = placement_->request_of(job);
  request.gpu_type = type;

  // Where it would start now: nothing to do when that is already on the fewest nodes; with
  // strict locality it may not start at all (rate 0: any room made is worth it).
  double split_rate = 0.0;
  if (placement_->place(request, shares_)) {
    if (static_cast<int>(shares_.size()) <= needed_nodes) return false;
    grants_.clear();
    for (const NodeShare& share : shares_)
      grants_.push_back(cluster.grant_for(share.node, request, share.gpus));
    split_rate = view().rate_if(job, grants_);
  }

  const auto nodes = cluster.nodes();
  excluded_.assign(nodes.size(), 0);
  moves_.clear();
  planned_->clear();
  // Candidate target nodes: the emptiest first (they need the fewest moves); a bounded number.
  constexpr std::size_t kTargetsTried = 64;
  nodes_.clear();
  for (std::uint32_t n = 0; n < nodes.size(); ++n)
    if (nodes[n].gpu_type == type && !view().node_offline(n) &&
        (needed_nodes > 1 || nodes[n].gpus >= state.gpus))
      nodes_.push_back(n);
  std::sort(nodes_.begin(), nodes_.end(), [&](std::uint32_t a, std::uint32_t b) {
    const int used_a = nodes[a].gpus - nodes[a].free_gpus,
              used_b = nodes[b].gpus - nodes[b].free_gpus;
    return used_a != used_b ? used_a < used_b : a < b;
  });
  if (nodes_.size() > kTargetsTried) nodes_.resize(kTargetsTried);

  std::vector<std::uint32_t> targets;
  double cost = 0.0;
  if (needed_nodes == 1) {
    // The one node needing the fewest, then cheapest, moves.
    std::vector<Move> best;
    double best_cost = 0.0;
    bool found = false;
    for (std::uint32_t n : nodes_) {
      excluded_[n] = 1;
      moves_.clear();
      planned_->clear();
      double node_cost = 0.0;
      if (clear(n, state.gpus, node_cost) &&
          (!found || moves_.size() < best.size() ||
           (moves_.size() == best.size() && node_cost < best_cost))) {
        best = moves_;
        best_cost = node_cost;
        targets.assign(1, n);
        found = true;
      }
      excluded_[n] = 0;
      if (found && best.size() <= 1 && best_cost == 0.0) break;  // nothing does better
    }
    if (!found) return false;
    moves_ = std::move(best);
    cost = best_cost;
  } else {
    // The nodes cheapest to empty, emptied together.
    struct Option {
      std::uint32_t node;
      std::size_t moves;
      double cost;
    };
    std::vector<Option> options;
    for (std::uint32_t n : nodes_) {
      excluded_[n] = 1;
      moves_.clear();
      planned_->clear();
      double node_cost = 0.0;
      if (clear(n, nodes[n].gpus, node_cost)) options.push_back({n, moves_.size(), node_cost});
      excluded_[n] = 0;
    }
    std::sort(options.begin(), options.end(), [](const Option& a, const Option& b) {
      if (a.moves != b.moves) return a.moves < b.moves;
      return a.cost != b.cost ? a.cost < b.cost : a.node < b.node;
    });
    int room = 0;
    for (const Option& option : options) {
      if (room >= state.gpus) break;
      targets.push_back(option.node);
      room += nodes[option.node].gpus;
    }
    if (room < state.gpus) return false;
    moves_.clear();
    planned_->clear();
    for (std::uint32_t n : targets) excluded_[n] = 1;
    for (std::uint32_t n : targets)
      if (!clear(n, nodes[n].gpus, cost)) return false;
  }
  if (moves_.empty()) return false;

  // Worth it only if the job gains more GPU-time running consolidated than the moves cost.
  grants_.clear();
  int left = state.gpus;
  for (std::uint32_t n : targets) {
    const int gpus = std::min(left, nodes[n].gpus);
    grants_.push_back(cluster.grant_for(n, request, gpus));
    left -= gpus;
  }
  if (split_rate > 0.0) {
    const double consolidated_rate = view().rate_if(job, grants_);
    const double gained = state.gpus * time_gained(state.remaining, split_rate, consolidated_rate);
    if (!(gained > cost)) return false;
  }
  for (const Move& move : moves_) {
    plan.set(move.job);
    plan.add_grant(move.to);
  }
  return true;
}

bool Migration::compact(Plan& plan) {
  const ClusterState& cluster = view().cluster();
  const auto nodes = cluster.nodes();
  excluded_.assign(nodes.size(), 0);
  moves_.clear();
  planned_->clear();
  const Time now = view().now();
  const auto budget_left = [&] {
    return static_cast<int>(moves_.size()) < options_.defrag_max_moves;
  };

  // 1. Running jobs split over nodes although one node could now hold them, when the time they
  // gain exceeds the move's cost. (Jobs are visited in index order: deterministic.)
  movers_.assign(view().holders().begin(), view().holders().end());
  std::sort(movers_.begin(), movers_.end());
  for (std::uint32_t job : movers_) {
    if (!budget_left()) break;
    const JobState& state = view().jobs()[job];
    if (state.phase != JobPhase::kRunning || state.grant_count < 2) continue;
    const int type = view().type_held(job);
    if (placement_->fewest_nodes(type, state.gpus) > 1) continue;
    PlacementRequest request = placement_->request_of(job);
    request.gpu_type = type;
    Grant best{};
    int best_free = INT_MAX;
    for (std::uint32_t n = 0; n < nodes.size(); ++n) {
      if (nodes[n].gpu_type != type || nodes[n].free_gpus < state.gpus || excluded_[n]) continue;
      const int free = planned_->free_gpus(n);
      if (free < state.gpus || free >= best_free) continue;
      const Grant candidate = cluster.grant_for(n, request, state.gpus);
      if (!planned_->fits(candidate)) continue;
      best = candidate;
      best_free = free;
    }
    if (best_free == INT_MAX) continue;
    grants_.assign(1, best);
    const double gained =
        state.gpus * time_gained(state.remaining_at(now), state.rate, view().rate_if(job, grants_));
    if (!(gained > move_cost(job))) continue;
    planned_->take(best);
    moves_.push_back({job, best});
  }

  // 2. Empty the least-used nodes into fuller ones (best fit), whole nodes at a time.
  nodes_.clear();
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    // Partly used, and receiving no job planned above.
    if (nodes[n].free_gpus > 0 && nodes[n].free_gpus < nodes[n].gpus && !view().node_offline(n) &&
        !planned_->touched(n))
      nodes_.push_back(n);
  }
  std::sort(nodes_.begin(), nodes_.end(), [&](std::uint32_t a, std::uint32_t b) {
    const int used_a = nodes[a].gpus - nodes[a].free_gpus,
              used_b = nodes[b].gpus - nodes[b].free_gpus;
    return used_a != used_b ? used_a < used_b : a < b;
  });
  for (std::uint32_t n : nodes_) {
    const auto holders = view().holders_on(n);
    if (static_cast<int>(moves_.size() + holders.size()) > options_.defrag_max_moves) continue;
    bool all_movable = !holders.empty();
    for (std::uint32_t job : holders) all_movable = all_movable && movable(job);
    if (!all_movable) continue;
    const std::size_t moves_before = moves_.size(), taken_before = planned_->mark();
    excluded_[n] = 1;
    const int free_here = nodes[n].free_gpus;
    bool placed = true;
    for (std::uint32_t job : holders) {
      Grant to;
      // Only onto nodes at least as full as this one: compaction never spreads jobs out.
      if (!destination(job, nodes[n].gpu_type, to, free_here)) {
        placed = false;
        break;
      }
      planned_->take(to);
      moves_.push_back({job, to});
    }
    if (!placed) {
      moves_.resize(moves_before);
      planned_->rollback(taken_before);
      excluded_[n] = 0;
    }
  }
  if (moves_.empty()) return false;
  for (const Move& move : moves_) {
    plan.set(move.job);
    plan.add_grant(move.to);
  }
  return true;
}

double Migration::fragmented_fraction(std::uint32_t job) const {
  const JobState& head = view().jobs()[job];
  const ClusterState& cluster = view().cluster();
  return cluster.total_gpus() > 0
             ? static_cast<double>(cluster.fragmented_gpus(head.gpu_type, head.gpus)) /
                   cluster.total_gpus()
             : 0.0;
}

}  // namespace clustersim::internal

namespace clustersim::options {

// ---- Migration and defragmentation ----
void declare_migration_keys(KeyRegistry& keys) {
  using Migration = MechanismOptions::Migration;
  choice<SimOptions>(
      keys, "mechanisms.migration", [](auto& o) -> auto& { return o.mechanisms.migration; },
      std::vector<std::pair<std::string, Migration>>{{"off", Migration::kOff},
                                                     {"on_demand", Migration::kOnDemand},
                                                     {"periodic", Migration::kPeriodic}})
      .component("mechanism migration")
      .training_only()
      .doc(
          "`on_demand`: move running jobs when the queue's head fits only after moves, and "
          "compact when more than `defrag_threshold` of the GPUs are fragmented; `periodic`: "
          "also compact every `defrag_period_s`. Fewest, then cheapest, moves "
          "([`sim/README.md`](sim/README.md#mechanisms)).");
  mechanism_key(
      keys, "migration", "defrag_threshold",
      [](auto& o) -> auto& { return o.mechanisms.defrag_threshold; })
      .range(0.0, 1.0)
      .doc(
          "Compact when more than this fraction of the cluster's GPUs are fragmented (0: only "
          "for a blocked queue head).");
  mechanism_key(
      keys, "migration", "defrag_period_s",
      [](auto& o) -> auto& { return o.mechanisms.defrag_period_s; })
      .range(1e-3, 1e12)
      .doc("With `migration = \"periodic\"`: compact every this many seconds.");
  mechanism_key(
      keys, "migration", "defrag_max_moves",
      [](auto& o) -> auto& { return o.mechanisms.defrag_max_moves; })
      .range(1, 1 << 20)
      .doc("At most this many moves per defragmentation pass.");
}

}  // namespace clustersim::options
