// DRF: dominant-resource fair division of CPU cores and memory among the running jobs (Ghodsi et
// al., NSDI'11, progressive filling), with GPUs placed by the placement policy on GPUs alone.
// Every job first gets min(best demand, proportional share) per GPU in each dimension (so no job
// is starved of a resource it asks for); what is left on each node is then shared by raising all
// jobs' dominant shares of their remaining demand (best demand minus that floor, measured against
// the cluster's totals) at the same pace, a job stopping when it reaches its best demand or when a
// node it uses runs out. Recomputed whenever a job starts or resources are given back.
// Allocations are continuous (fractions of cores), unlike tune's and opt's.
#include <algorithm>
#include <cmath>
#include <limits>

#include "allocation/demand.h"
#include "allocation/factories.h"

namespace clustersim::allocation {

namespace {

class Drf final : public AllocationMechanism {
 public:
  void bind(AllocationContext& context) override {
    demands_.bind(context);
    const std::size_t nodes = context.cluster().nodes().size();
    left_cpus_.assign(nodes, 0.0);
    left_mem_.assign(nodes, 0.0);
    rate_cpus_.assign(nodes, 0.0);
    rate_mem_.assign(nodes, 0.0);
  }
  void jobs_added(AllocationContext& context) override { demands_.grow(context); }

  bool start(std::uint32_t job, AllocationContext& context, Plan& plan) override {
    return start_then_divide(job, context, plan, shares_,
                             [&] { return divide(context, plan, job); });
  }

  bool rebalances() const override { return true; }
  void rebalance(AllocationContext& context, Plan& plan) override {
    shares_.clear();
    if (!divide(context, plan, kNoJob)) plan.clear();
  }

 private:
  static constexpr std::uint32_t kNoJob = 0xffffffffu;
  struct Member {
    std::uint32_t job;
    std::vector<Grant> grants;  // GPUs per node, then the resources decided here
    Demand floor, extra;        // per GPU
    double share_rate = 0.0;    // dominant share of the whole extra demand
    double level = 0.0;         // fraction of the extra demand granted
    bool frozen = false;
  };

  bool divide(AllocationContext& context, Plan& plan, std::uint32_t starting) {
    const ClusterState& cluster = context.cluster();
    const auto nodes = cluster.nodes();
    for (std::size_t n = 0; n < nodes.size(); ++n) {
      left_cpus_[n] = nodes[n].cpus;
      left_mem_[n] = nodes[n].mem_gb;
    }
    members_.clear();
    const auto add = [&](std::uint32_t job, auto&& shares) {
      Member member;
      member.job = job;
      for (const auto& share : shares) member.grants.push_back({share.node, share.gpus, 0, 0, 0});
      const auto& node = cluster.node(member.grants.front().node);
      const Demand& best = demands_.best(context, job, node.gpu_type);
      const Demand fair = proportional_share(node);
      member.floor = {std::min(best.cpus, fair.cpus), std::min(best.mem_gb, fair.mem_gb), 0};
      member.extra = {best.cpus - member.floor.cpus, best.mem_gb - member.floor.mem_gb, 0};
      const int gpus = context.jobs()[job].gpus;
      member.share_rate = std::max(
          cluster.total_cpus() > 0 ? gpus * member.extra.cpus / cluster.total_cpus() : 0.0,
          cluster.total_mem_gb() > 0 ? gpus * member.extra.mem_gb / cluster.total_mem_gb() : 0.0);
      member.frozen = member.share_rate <= 0.0;
      members_.push_back(std::move(member));
    };
    held_.clear();
    for (std::uint32_t job : context.holders()) {
      if (context.jobs()[job].phase == JobPhase::kRunning && !context.has_own_request(job)) {
        held_.push_back(job);
        continue;
      }
      for (const Grant& grant : context.grants_of(job)) {  // fixed: keeps what it holds
        left_cpus_[grant.node] -= grant.cpus;
        left_mem_[grant.node] -= grant.mem_gb;
      }
    }
    std::sort(held_.begin(), held_.end());
    for (std::uint32_t job : held_) add(job, context.grants_of(job));
    if (starting != kNoJob) add(starting, shares_);
    // The floors.
    for (const Member& member : members_)
      for (const Grant& grant : member.grants) {
        left_cpus_[grant.node] -= grant.gpus * member.floor.cpus;
        left_mem_[grant.node] -= grant.gpus * member.floor.mem_gb;
      }
    for (std::size_t n = 0; n < nodes.size(); ++n)
      if ((nodes[n].cpus > 0 && left_cpus_[n] < -1e-9) ||
          (nodes[n].mem_gb > 0 && left_mem_[n] < -1e-9))
        return false;  // fixed jobs leave too little for the floors
    // Progressive filling: raise the common dominant share t until every job is frozen.
    double t = 0.0;
    for (int guard = 0; guard < static_cast<int>(members_.size() + 2 * nodes.size()) + 2; ++guard) {
      std::fill(rate_cpus_.begin(), rate_cpus_.end(), 0.0);
      std::fill(rate_mem_.begin(), rate_mem_.end(), 0.0);
      double step = std::numeric_limits<double>::infinity();
      bool active = false;
      for (const Member& m : members_) {
        if (m.frozen) continue;
        active = true;
        step = std::min(step, m.share_rate * (1.0 - m.level) / 1.0);  // reaches its best demand
        for (const Grant& grant : m.grants) {
          rate_cpus_[grant.node] += grant.gpus * m.extra.cpus / m.share_rate;
          rate_mem_[grant.node] += grant.gpus * m.extra.mem_gb / m.share_rate;
        }
      }
      if (!active) break;
      for (std::size_t n = 0; n < nodes.size(); ++n) {
        if (nodes[n].cpus > 0 && rate_cpus_[n] > 0)
          step = std::min(step, std::max(0.0, left_cpus_[n]) / rate_cpus_[n]);
        if (nodes[n].mem_gb > 0 && rate_mem_[n] > 0)
          step = std::min(step, std::max(0.0, left_mem_[n]) / rate_mem_[n]);
      }
      t += step;
      for (std::size_t n = 0; n < nodes.size(); ++n) {
        left_cpus_[n] -= rate_cpus_[n] * step;
        left_mem_[n] -= rate_mem_[n] * step;
      }
      for (Member& m : members_) {
        if (m.frozen) continue;
        m.level = std::min(1.0, m.level + step / m.share_rate);
        bool saturated = m.level >= 1.0 - 1e-12;
        for (const Grant& grant : m.grants) {
          const std::uint32_t n = grant.node;
          saturated = saturated ||
                      (nodes[n].cpus > 0 && m.extra.cpus > 0 && left_cpus_[n] <= 1e-9) ||
                      (nodes[n].mem_gb > 0 && m.extra.mem_gb > 0 && left_mem_[n] <= 1e-9);
        }
        m.frozen = saturated;
      }
    }
    (void)t;
    // The plan: jobs whose grants change, and the starting job.
    for (Member& m : members_) {
      for (Grant& grant : m.grants) {
        const Demand per_gpu{m.floor.cpus + m.level * m.extra.cpus,
                             m.floor.mem_gb + m.level * m.extra.mem_gb, 0};
        grant = grant_at(cluster, grant.node, grant.gpus, per_gpu);
      }
      if (m.job != starting) {
        const auto held = context.grants_of(m.job);
        bool same = true;
        for (std::size_t g = 0; g < held.size(); ++g)
          same = same && std::abs(held[g].cpus - m.grants[g].cpus) <= 1e-9 &&
                 std::abs(held[g].mem_gb - m.grants[g].mem_gb) <= 1e-9;
        if (same) continue;
      }
      plan.set(m.job);
      for (const Grant& grant : m.grants) plan.add_grant(grant);
    }
    return true;
  }

  DemandTable demands_;
  std::vector<NodeShare> shares_;
  std::vector<std::uint32_t> held_;
  std::vector<Member> members_;
  std::vector<double> left_cpus_, left_mem_, rate_cpus_, rate_mem_;
};

}  // namespace

std::unique_ptr<AllocationMechanism> make_drf(const SchedulerOptions&) {
  return std::make_unique<Drf>();
}

}  // namespace clustersim::allocation
