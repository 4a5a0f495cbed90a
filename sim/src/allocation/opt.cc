// Opt: the allocation LP (allocation_lp.h) re-solved whenever the set of running jobs changes (a
// job starts; resources are given back). A starting job's GPUs are placed by the placement
// policy on GPUs alone; then every running job's CPU cores and memory come from the LP, rounded
// to a feasible allocation in which no job runs below its proportional-share speed: all jobs
// start from their share, then, largest gain first, each moves to the faster of the LP's mean
// point (whole cores) and its heaviest configuration where its nodes have room. The LP's bound
// and the rounded sum are reported (alloc_lp_bound, alloc_lp_rounded: means over solves); the
// bound is over the convex hull of each job's profile, so it can exceed any real allocation.
//
// Jobs that state their own CPU/memory needs, and jobs in a transition (restoring, re-launching,
// checkpointing), keep what they hold; the LP shares what is left.
#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "allocation/allocation_lp.h"
#include "allocation/demand.h"
#include "allocation/factories.h"

namespace clustersim::allocation {

namespace {

class Opt final : public AllocationMechanism {
 public:
  void bind(AllocationContext& context) override {
    demands_.bind(context);
    const std::size_t nodes = context.cluster().nodes().size();
    lp_nodes_.assign(nodes, {});
    used_cpus_.assign(nodes, 0.0);
    used_mem_.assign(nodes, 0.0);
  }
  void jobs_added(AllocationContext& context) override { demands_.grow(context); }

  bool start(std::uint32_t job, AllocationContext& context, Plan& plan) override {
    return start_then_divide(job, context, plan, shares_,
                             [&] { return solve(context, plan, job); });
  }

  bool rebalances() const override { return true; }
  void rebalance(AllocationContext& context, Plan& plan) override {
    shares_.clear();
    if (!solve(context, plan, kNoJob)) plan.clear();
  }

  void report(RunMetrics& metrics) const override {
    if (solves_ == 0) return;
    metrics.alloc_lp_bound = bound_sum_ / static_cast<double>(solves_);
    metrics.alloc_lp_rounded = rounded_sum_ / static_cast<double>(solves_);
  }

 private:
  static constexpr std::uint32_t kNoJob = 0xffffffffu;

  // Solves for every running job (plus `starting`, placed on shares_) and writes the changes.
  bool solve(AllocationContext& context, Plan& plan, std::uint32_t starting) {
    const ClusterState& cluster = context.cluster();
    const auto nodes = cluster.nodes();
    // Capacity the LP may hand out: each node's total less what fixed jobs hold.
    for (std::size_t n = 0; n < nodes.size(); ++n)
      lp_nodes_[n] = {nodes[n].cpus, nodes[n].mem_gb, nodes[n].cpus > 0.0, nodes[n].mem_gb > 0.0};
    members_.clear();
    for (std::uint32_t job : context.holders()) {
      if (context.jobs()[job].phase == JobPhase::kRunning && !context.has_own_request(job)) {
        members_.push_back(job);
        continue;
      }
      for (const Grant& grant : context.grants_of(job)) {
        lp_nodes_[grant.node].cpus -= grant.cpus;
        lp_nodes_[grant.node].mem_gb -= grant.mem_gb;
      }
    }
    std::sort(members_.begin(), members_.end());
    if (starting != kNoJob) members_.push_back(starting);
    if (members_.empty()) return true;
    lp_jobs_.resize(members_.size());
    for (std::size_t j = 0; j < members_.size(); ++j) {
      const std::uint32_t job = members_[j];
      LpJob& lp = lp_jobs_[j];
      lp.shares.clear();
      if (job == starting) {
        for (const NodeShare& share : shares_) lp.shares.push_back({share.node, share.gpus});
      } else {
        for (const Grant& grant : context.grants_of(job))
          lp.shares.push_back({grant.node, grant.gpus});
      }
      lp.configs = configs(context, job, cluster.node(lp.shares.front().node).gpu_type);
    }
    const LpSolution solution = solve_allocation_lp(lp_jobs_, lp_nodes_);
    if (!solution.optimal) return false;

    // Round, keeping every job at or above its proportional-share speed. Start from what the
    // jobs hold (fair: each got there by this rounding) and, for a starting job, its share;
    // where that overfills a node, jobs above their share there go back to it, largest excess
    // first (if even that is not enough, the job cannot start now). Then each job moves to the
    // best of its share, the LP's heaviest configuration and the LP's mean point (whole cores),
    // among those at least as fast as its share, where its nodes have room: moves that give
    // resources back first, then the largest gains. (The LP's speeds are each profile's concave
    // hull, so its mean point alone may be slower than the share.)
    for (std::size_t n = 0; n < nodes.size(); ++n) used_cpus_[n] = used_mem_[n] = 0.0;
    grants_.assign(members_.size(), {});
    for (std::size_t j = 0; j < members_.size(); ++j) {
      const std::uint32_t job = members_[j];
      if (job == starting) {
        const PlacementRequest request = context.request_of(job);
        for (const LpJob::Share& share : lp_jobs_[j].shares)
          grants_[j].push_back(cluster.grant_for(share.node, request, share.gpus));
      } else {
        const auto held = context.grants_of(job);
        grants_[j].assign(held.begin(), held.end());
      }
      for (const Grant& grant : grants_[j]) {
        used_cpus_[grant.node] += grant.cpus;
        used_mem_[grant.node] += grant.mem_gb;
      }
    }
    const auto over = [&](std::uint32_t n) {
      return (lp_nodes_[n].models_cpus && used_cpus_[n] > lp_nodes_[n].cpus + 1e-9) ||
             (lp_nodes_[n].models_mem && used_mem_[n] > lp_nodes_[n].mem_gb + 1e-9);
    };
    if (starting != kNoJob) {
      for (const LpJob::Share& share : lp_jobs_[members_.size() - 1].shares) {
        while (over(share.node)) {
          // The member on this node furthest above its share goes back to it.
          std::size_t pick = members_.size();
          double pick_excess = 0.0;
          for (std::size_t j = 0; j + 1 < members_.size(); ++j) {
            const PlacementRequest request = context.request_of(members_[j]);
            for (const Grant& grant : grants_[j]) {
              if (grant.node != share.node) continue;
              const Grant fair = cluster.grant_for(grant.node, request, grant.gpus);
              const double excess =
                  std::max(0.0, grant.cpus - fair.cpus) / std::max(1.0, fair.cpus) +
                  std::max(0.0, grant.mem_gb - fair.mem_gb) / std::max(1.0, fair.mem_gb);
              if (excess > pick_excess + 1e-12) pick = j, pick_excess = excess;
            }
          }
          if (pick == members_.size()) return false;  // nobody is above its share here
          // Exactly its share (not the lesser of each: that could be slower than the share);
          // a member is picked at most once, since it then has no excess.
          const PlacementRequest request = context.request_of(members_[pick]);
          for (Grant& grant : grants_[pick]) {
            const Grant fair = cluster.grant_for(grant.node, request, grant.gpus);
            used_cpus_[grant.node] += fair.cpus - grant.cpus;
            used_mem_[grant.node] += fair.mem_gb - grant.mem_gb;
            grant = fair;
          }
        }
      }
    }
    targets_.assign(members_.size(), {});
    for (std::size_t j = 0; j < members_.size(); ++j) {
      const std::uint32_t job = members_[j];
      Target& target = targets_[j];
      const PlacementRequest request = context.request_of(job);
      fair_.clear();
      for (const Grant& grant : grants_[j])
        fair_.push_back(cluster.grant_for(grant.node, request, grant.gpus));
      target.fair_rate = context.rate_if(job, fair_);
      target.start_rate = target.rate = context.rate_if(job, grants_[j]);
      const auto cost_of = [](const std::vector<Grant>& grants) {
        double cost = 0.0;
        for (const Grant& g : grants) cost += g.cpus + g.mem_gb;
        return cost;
      };
      target.cost = cost_of(grants_[j]);
      const auto consider = [&](const std::vector<Grant>& candidate, double rate) {
        if (rate < target.fair_rate * (1.0 - 1e-12)) return;  // never below the share
        const double cost = cost_of(candidate);
        const bool start_is_fair =
            target.grants.empty() && target.start_rate >= target.fair_rate * (1.0 - 1e-12);
        const double best = target.grants.empty() && !start_is_fair ? 0.0 : target.rate;
        if (rate > best * (1.0 + 1e-12) || (rate >= best * (1.0 - 1e-12) && cost < target.cost)) {
          target.rate = rate;
          target.cost = cost;
          target.grants = candidate;
        }
      };
      consider(fair_, target.fair_rate);
      const auto& configs = lp_jobs_[j].configs;
      const double* weights = solution.weights.data() + solution.first_column[j];
      std::size_t heaviest = 0;
      for (std::size_t k = 1; k < configs.size(); ++k)
        if (weights[k] > weights[heaviest]) heaviest = k;
      scratch_.clear();
      for (const Grant& grant : grants_[j]) {
        Grant g = grant;
        if (nodes[g.node].cpus > 0.0) g.cpus = configs[heaviest].cpus_per_gpu * g.gpus;
        if (nodes[g.node].mem_gb > 0.0) g.mem_gb = configs[heaviest].mem_gb_per_gpu * g.gpus;
        scratch_.push_back(g);
      }
      consider(scratch_, context.rate_if(job, scratch_));
      scratch_.clear();
      for (const Grant& grant : grants_[j]) {
        Grant g = grant;
        if (nodes[g.node].cpus > 0.0) g.cpus = std::floor(solution.cpus_per_gpu[j] * g.gpus + 1e-6);
        if (nodes[g.node].mem_gb > 0.0)
          g.mem_gb = solution.mem_gb_per_gpu[j] * g.gpus * (1.0 - 1e-7);
        scratch_.push_back(g);
      }
      consider(scratch_, context.rate_if(job, scratch_));
      target.frees = true;
      for (std::size_t g = 0; g < target.grants.size(); ++g)
        target.frees = target.frees && target.grants[g].cpus <= grants_[j][g].cpus + 1e-12 &&
                       target.grants[g].mem_gb <= grants_[j][g].mem_gb + 1e-12;
    }
    order_.resize(members_.size());
    for (std::size_t j = 0; j < order_.size(); ++j) order_[j] = j;
    std::sort(order_.begin(), order_.end(), [&](std::size_t a, std::size_t b) {
      const Target& x = targets_[a];
      const Target& y = targets_[b];
      if (x.frees != y.frees) return x.frees;
      const bool repair_x = x.start_rate < x.fair_rate, repair_y = y.start_rate < y.fair_rate;
      if (repair_x != repair_y) return repair_x;
      const double gain_x = x.rate / x.start_rate, gain_y = y.rate / y.start_rate;
      return gain_x != gain_y ? gain_x > gain_y : members_[a] < members_[b];
    });
    for (std::size_t j : order_) {
      Target& target = targets_[j];
      if (target.grants.empty()) continue;
      bool room = true;
      for (std::size_t g = 0; g < target.grants.size(); ++g) {
        const std::uint32_t node = target.grants[g].node;
        room = room &&
               (!lp_nodes_[node].models_cpus ||
                used_cpus_[node] + target.grants[g].cpus - grants_[j][g].cpus <=
                    lp_nodes_[node].cpus + 1e-9) &&
               (!lp_nodes_[node].models_mem ||
                used_mem_[node] + target.grants[g].mem_gb - grants_[j][g].mem_gb <=
                    lp_nodes_[node].mem_gb + 1e-9);
      }
      if (!room) {
        target.rate = target.start_rate;
        continue;
      }
      for (std::size_t g = 0; g < target.grants.size(); ++g) {
        used_cpus_[target.grants[g].node] += target.grants[g].cpus - grants_[j][g].cpus;
        used_mem_[target.grants[g].node] += target.grants[g].mem_gb - grants_[j][g].mem_gb;
        grants_[j][g] = target.grants[g];
      }
    }
    double rounded = 0.0;
    for (const Target& target : targets_) rounded += target.rate / target.fair_rate;
    ++solves_;
    bound_sum_ += solution.bound;
    rounded_sum_ += rounded;

    // The plan: every job whose grants change, and the starting job.
    for (std::size_t j = 0; j < members_.size(); ++j) {
      const std::uint32_t job = members_[j];
      if (job != starting) {
        const auto held = context.grants_of(job);
        bool same = true;
        for (std::size_t g = 0; g < held.size(); ++g)
          same = same && std::abs(held[g].cpus - grants_[j][g].cpus) <= 1e-9 &&
                 std::abs(held[g].mem_gb - grants_[j][g].mem_gb) <= 1e-9;
        if (same) continue;
      }
      plan.set(job);
      for (const Grant& grant : grants_[j]) plan.add_grant(grant);
    }
    return true;
  }

  // The job's LP configurations on a GPU type: its profile grid (plus the proportional share)
  // with each point's throughput relative to the proportional share's. Shared by the jobs with
  // the same profile, GPU count and type.
  const std::vector<LpConfig>& configs(AllocationContext& context, std::uint32_t job, int type) {
    const SensitivityAxes axes = context.axes(job, type);
    const auto key = std::make_tuple(static_cast<const void*>(axes.cpus_per_gpu),
                                     context.jobs()[job].gpus, type);
    if (axes.cpus_per_gpu != nullptr)
      if (auto found = configs_.find(key); found != configs_.end()) return found->second;
    const auto& node = demands_.reference_node(context, type);
    const Demand fair = proportional_share(node);
    const auto values = [](const std::vector<double>* axis, double total, double share) {
      if (total <= 0.0) return std::vector<double>{0.0};
      std::vector<double> v{share};
      if (axis != nullptr) v.insert(v.end(), axis->begin(), axis->end());
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
      return v;
    };
    std::vector<LpConfig> out;
    const double fair_rate = context.rate_per_gpu(job, type, {fair.cpus, fair.mem_gb, -1.0});
    if (axes.cpus_per_gpu == nullptr && axes.mem_gb_per_gpu == nullptr) {
      out.push_back({fair.cpus, fair.mem_gb, 1.0});
    } else {
      for (double c : values(axes.cpus_per_gpu, node.cpus, fair.cpus))
        for (double m : values(axes.mem_gb_per_gpu, node.mem_gb, fair.mem_gb))
          out.push_back({c, m, context.rate_per_gpu(job, type, {c, m, -1.0}) / fair_rate});
    }
    // Drop dominated configurations (another is at least as fast with no more of either
    // resource): the LP never needs them, and profiles are flat over much of their grid.
    std::vector<LpConfig> kept;
    for (std::size_t a = 0; a < out.size(); ++a) {
      bool dominated = false;
      for (std::size_t b = 0; b < out.size() && !dominated; ++b) {
        if (a == b) continue;
        const bool no_worse = out[b].normalised_rate >= out[a].normalised_rate &&
                              out[b].cpus_per_gpu <= out[a].cpus_per_gpu &&
                              out[b].mem_gb_per_gpu <= out[a].mem_gb_per_gpu;
        const bool better = out[b].normalised_rate > out[a].normalised_rate ||
                            out[b].cpus_per_gpu < out[a].cpus_per_gpu ||
                            out[b].mem_gb_per_gpu < out[a].mem_gb_per_gpu;
        // Among identical configurations keep the first.
        dominated = no_worse && (better || b < a);
      }
      if (!dominated) kept.push_back(out[a]);
    }
    out = std::move(kept);
    if (axes.cpus_per_gpu == nullptr) {
      uncached_ = std::move(out);
      return uncached_;
    }
    return configs_.emplace(key, std::move(out)).first->second;
  }

  DemandTable demands_;
  std::vector<NodeShare> shares_;
  std::vector<std::uint32_t> members_;
  std::vector<LpJob> lp_jobs_;
  std::vector<LpNode> lp_nodes_;
  std::vector<std::vector<Grant>> grants_;
  struct Target {
    double fair_rate = 0.0, rate = 0.0;  // at the proportional share; at the target
    double start_rate = 0.0;             // at the LP's mean point
    double cost = 0.0;                   // cores + GB of the target
    bool frees = false;                  // the target takes no more than the share
    std::vector<Grant> grants;           // the target's grants (empty: stay at the share)
  };
  std::vector<Target> targets_;
  std::vector<std::size_t> order_;
  std::vector<Grant> fair_, scratch_;
  std::vector<double> used_cpus_, used_mem_;
  std::map<std::tuple<const void*, int, int>, std::vector<LpConfig>> configs_;
  std::vector<LpConfig> uncached_;
  std::uint64_t solves_ = 0;
  double bound_sum_ = 0.0;
  double rounded_sum_ = 0.0;
};

}  // namespace

std::unique_ptr<AllocationMechanism> make_opt(const SchedulerOptions&) {
  return std::make_unique<Opt>();
}

}  // namespace clustersim::allocation
