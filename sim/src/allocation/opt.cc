// Opt: the allocation LP (allocation_lp.h) re-solved whenever the set of running jobs or what it
// holds changes (a job starts; resources are given back). A starting job's GPUs are placed by
// the placement policy on GPUs alone; then every running job's CPU cores and memory come from
// the LP, rounded to a feasible allocation: whole cores per node (rounded down), memory slightly
// below the LP's value, and a job that rounding left below its proportional-share speed raised
// back to its proportional share where its nodes have room. The LP's bound and the rounded sum
// are reported per solve (alloc_lp_bound, alloc_lp_rounded: means over solves).
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

  bool start(std::uint32_t job, AllocationContext& context, Plan& plan) override {
    const ClusterState& cluster = context.cluster();
    for (int type : context.types_to_try(job)) {
      PlacementRequest request = context.request_of(job);
      request.gpu_type = type;
      if (!context.has_own_request(job)) {
        PlacementRequest gpus_only = request;
        gpus_only.cpus_per_gpu = gpus_only.mem_per_gpu = 0.0;
        if (context.place(gpus_only, shares_) && solve(context, plan, job)) return true;
        plan.clear();
      }
      // A job with its own needs, or an LP that cannot be solved: the job's own request or
      // proportional share, where it fits as things are.
      if (context.place(request, shares_)) {
        plan.set(job);
        for (const NodeShare& share : shares_)
          plan.add_grant(cluster.grant_for(share.node, request, share.gpus));
        return true;
      }
    }
    return false;
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

    // Round: whole cores per node, memory a hair below the LP's value.
    grants_.assign(members_.size(), {});
    for (std::size_t n = 0; n < nodes.size(); ++n) used_cpus_[n] = used_mem_[n] = 0.0;
    for (std::size_t j = 0; j < members_.size(); ++j) {
      for (const LpJob::Share& share : lp_jobs_[j].shares) {
        const auto& node = nodes[share.node];
        Grant grant = cluster.grant_for(share.node, PlacementRequest{}, share.gpus);
        grant.cpus =
            node.cpus > 0.0 ? std::floor(solution.cpus_per_gpu[j] * share.gpus + 1e-6) : 0.0;
        grant.mem_gb =
            node.mem_gb > 0.0 ? solution.mem_gb_per_gpu[j] * share.gpus * (1.0 - 1e-7) : 0.0;
        used_cpus_[share.node] += grant.cpus;
        used_mem_[share.node] += grant.mem_gb;
        grants_[j].push_back(grant);
      }
    }
    // The LP's tolerance may leave a node a hair over: scale that node's memory grants down.
    for (std::size_t j = 0; j < members_.size(); ++j)
      for (Grant& grant : grants_[j]) {
        const LpNode& cap = lp_nodes_[grant.node];
        if (cap.models_mem && used_mem_[grant.node] > cap.mem_gb)
          grant.mem_gb *= std::max(0.0, cap.mem_gb) / used_mem_[grant.node];
      }
    for (std::size_t n = 0; n < nodes.size(); ++n)
      if (lp_nodes_[n].models_mem && used_mem_[n] > lp_nodes_[n].mem_gb)
        used_mem_[n] = std::max(0.0, lp_nodes_[n].mem_gb);
    // No job below its proportional-share speed where its nodes have room to raise it.
    double rounded = 0.0;
    for (std::size_t j = 0; j < members_.size(); ++j) {
      const std::uint32_t job = members_[j];
      fair_.clear();
      const PlacementRequest request = context.request_of(job);
      for (const Grant& grant : grants_[j])
        fair_.push_back(cluster.grant_for(grant.node, request, grant.gpus));
      const double fair_rate = context.rate_if(job, fair_);
      double rate = context.rate_if(job, grants_[j]);
      if (rate < fair_rate * (1.0 - 1e-9)) {
        bool room = true;
        for (std::size_t g = 0; g < fair_.size(); ++g) {
          const std::uint32_t node = fair_[g].node;
          const double more_cpus = std::max(0.0, fair_[g].cpus - grants_[j][g].cpus);
          const double more_mem = std::max(0.0, fair_[g].mem_gb - grants_[j][g].mem_gb);
          room = room &&
                 (!lp_nodes_[node].models_cpus ||
                  used_cpus_[node] + more_cpus <= lp_nodes_[node].cpus + 1e-9) &&
                 (!lp_nodes_[node].models_mem ||
                  used_mem_[node] + more_mem <= lp_nodes_[node].mem_gb + 1e-9);
        }
        if (room) {
          for (std::size_t g = 0; g < fair_.size(); ++g) {
            Grant& grant = grants_[j][g];
            used_cpus_[grant.node] += std::max(0.0, fair_[g].cpus - grant.cpus);
            used_mem_[grant.node] += std::max(0.0, fair_[g].mem_gb - grant.mem_gb);
            grant.cpus = std::max(grant.cpus, fair_[g].cpus);
            grant.mem_gb = std::max(grant.mem_gb, fair_[g].mem_gb);
          }
          rate = context.rate_if(job, grants_[j]);
        }
      }
      rounded += rate / fair_rate;
    }
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
  std::vector<Grant> fair_;
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
