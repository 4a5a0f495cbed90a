// Tune: Synergy's heuristic (Mohan et al., OSDI'22, "Synergy-Tune"). Starting a job:
//   1. its best demand (demand.h), if some placement can host it;
//   2. else its proportional share, if some placement can host that;
//   3. else, on the nodes with free GPUs the placement policy picks, jobs running above their
//      proportional share are brought back to it, those that lose least speed first, until the
//      job's proportional share fits (it always does once every neighbour is at most at its own).
// So no job ever runs slower than at its proportional share, and a job never waits for CPU or
// memory when its GPUs are free. When resources are given back, jobs brought down (or started at
// their proportional share) are raised to their best demand again where it fits (lowest job
// index first).
#include <algorithm>
#include <cmath>

#include "allocation/demand.h"
#include "allocation/factories.h"

namespace clustersim::allocation {

namespace {

constexpr double kEpsilon = 1e-9;

class Tune final : public AllocationMechanism {
 public:
  void bind(AllocationContext& context) override {
    demands_.bind(context);
    at_best_.assign(context.jobs().size(), 0);
    const std::size_t nodes = context.cluster().nodes().size();
    short_cpus_.assign(nodes, 0.0);
    short_mem_.assign(nodes, 0.0);
  }
  void jobs_added(AllocationContext& context) override {
    demands_.grow(context);
    at_best_.resize(context.jobs().size(), 0);
  }

  bool start(std::uint32_t job, AllocationContext& context, Plan& plan) override {
    const ClusterState& cluster = context.cluster();
    const PlacementRequest own = context.request_of(job);
    for (int type : context.types_to_try(job)) {
      PlacementRequest proportional = own;
      proportional.gpu_type = type;
      if (!context.has_own_request(job)) {
        const Demand& best = demands_.best(context, job, type);
        if (context.place(request_at(context, job, type, best), shares_)) {
          plan.set(job);
          for (const NodeShare& share : shares_)
            plan.add_grant(grant_at(cluster, share.node, share.gpus, best));
          at_best_[job] = 1;
          return true;
        }
      }
      at_best_[job] = 0;
      if (context.place(proportional, shares_)) {
        plan.set(job);
        for (const NodeShare& share : shares_)
          plan.add_grant(cluster.grant_for(share.node, proportional, share.gpus));
        return true;
      }
      if (make_room(job, type, proportional, context, plan)) return true;
    }
    return false;
  }

  bool rebalances() const override { return true; }

  // Raises jobs below their best demand to it where their nodes have room.
  void rebalance(AllocationContext& context, Plan& plan) override {
    const ClusterState& cluster = context.cluster();
    raise_.clear();
    for (std::uint32_t job : context.holders())
      if (!at_best_[job] && !context.has_own_request(job) &&
          context.jobs()[job].phase == JobPhase::kRunning)
        raise_.push_back(job);
    std::sort(raise_.begin(), raise_.end());
    touched_.clear();
    for (std::uint32_t job : raise_) {
      const auto held = context.grants_of(job);
      const Demand& best = demands_.best(context, job, cluster.node(held.front().node).gpu_type);
      bool fits = true;
      bool changes = false;
      for (const Grant& grant : held) {
        const Grant want = grant_at(cluster, grant.node, grant.gpus, best);
        changes = changes || std::abs(want.cpus - grant.cpus) > kEpsilon ||
                  std::abs(want.mem_gb - grant.mem_gb) > kEpsilon;
      }
      if (!changes) {
        at_best_[job] = 1;  // its best demand is its proportional share
        continue;
      }
      for (const Grant& grant : held) {
        const Grant want = grant_at(cluster, grant.node, grant.gpus, best);
        const auto& node = cluster.node(grant.node);
        fits = fits &&
               want.cpus - grant.cpus <= node.free_cpus - short_cpus_[grant.node] + kEpsilon &&
               want.mem_gb - grant.mem_gb <= node.free_mem_gb - short_mem_[grant.node] + kEpsilon;
      }
      if (!fits) continue;
      plan.set(job);
      for (const Grant& grant : held) {
        const Grant want = grant_at(cluster, grant.node, grant.gpus, best);
        if (short_cpus_[grant.node] == 0.0 && short_mem_[grant.node] == 0.0)
          touched_.push_back(grant.node);
        short_cpus_[grant.node] += want.cpus - grant.cpus;  // here: taken by earlier raises
        short_mem_[grant.node] += want.mem_gb - grant.mem_gb;
        plan.add_grant(want);
      }
      at_best_[job] = 1;
    }
    for (std::uint32_t node : touched_) short_cpus_[node] = short_mem_[node] = 0.0;
  }

 private:
  // Step 3: bring neighbours back to their proportional share until `job`'s fits.
  bool make_room(std::uint32_t job, int type, const PlacementRequest& proportional,
                 AllocationContext& context, Plan& plan) {
    const ClusterState& cluster = context.cluster();
    PlacementRequest gpus_only = proportional;
    gpus_only.cpus_per_gpu = gpus_only.mem_per_gpu = 0.0;
    (void)type;
    if (!context.place(gpus_only, shares_)) return false;
    // What is missing on each chosen node.
    touched_.clear();
    for (const NodeShare& share : shares_) {
      const Grant want = cluster.grant_for(share.node, proportional, share.gpus);
      const auto& node = cluster.node(share.node);
      short_cpus_[share.node] = std::max(0.0, want.cpus - node.free_cpus);
      short_mem_[share.node] = std::max(0.0, want.mem_gb - node.free_mem_gb);
      touched_.push_back(share.node);
    }
    // Neighbours above their proportional share, those that lose least first.
    peers_.clear();
    for (const NodeShare& share : shares_)
      for (std::uint32_t peer : context.holders_on(share.node)) {
        if (!at_best_[peer] || context.jobs()[peer].phase != JobPhase::kRunning) continue;
        if (std::find_if(peers_.begin(), peers_.end(),
                         [&](const Peer& p) { return p.job == peer; }) != peers_.end())
          continue;
        const double now = context.rate_if(peer, context.grants_of(peer));
        proportional_grants(peer, context, scratch_);
        const double fair = context.rate_if(peer, scratch_);
        peers_.push_back({peer, (now - fair) / fair});
      }
    std::sort(peers_.begin(), peers_.end(), [](const Peer& a, const Peer& b) {
      return a.loss != b.loss ? a.loss < b.loss : a.job < b.job;
    });
    chosen_.clear();
    const auto short_anywhere = [&] {
      for (std::uint32_t node : touched_)
        if (short_cpus_[node] > kEpsilon || short_mem_[node] > kEpsilon) return true;
      return false;
    };
    for (const Peer& peer : peers_) {
      if (!short_anywhere()) break;
      proportional_grants(peer.job, context, scratch_);
      const auto held = context.grants_of(peer.job);
      bool helps = false;
      for (std::size_t g = 0; g < held.size(); ++g) {
        const std::uint32_t node = held[g].node;
        helps = helps || (short_cpus_[node] > kEpsilon && held[g].cpus > scratch_[g].cpus) ||
                (short_mem_[node] > kEpsilon && held[g].mem_gb > scratch_[g].mem_gb);
      }
      if (!helps) continue;
      for (std::size_t g = 0; g < held.size(); ++g) {
        short_cpus_[held[g].node] -= held[g].cpus - scratch_[g].cpus;
        short_mem_[held[g].node] -= held[g].mem_gb - scratch_[g].mem_gb;
      }
      chosen_.push_back(peer.job);
    }
    const bool room = !short_anywhere();
    for (std::uint32_t node : touched_) short_cpus_[node] = short_mem_[node] = 0.0;
    for (const Peer& peer : peers_)
      for (const Grant& grant : context.grants_of(peer.job))
        short_cpus_[grant.node] = short_mem_[grant.node] = 0.0;
    if (!room) return false;
    for (std::uint32_t peer : chosen_) {
      proportional_grants(peer, context, scratch_);
      plan.set(peer);
      for (const Grant& grant : scratch_) plan.add_grant(grant);
      at_best_[peer] = 0;
    }
    plan.set(job);
    for (const NodeShare& share : shares_)
      plan.add_grant(cluster.grant_for(share.node, proportional, share.gpus));
    return true;
  }

  // The job's grants at its proportional share, on the nodes and GPUs it holds.
  static void proportional_grants(std::uint32_t job, const AllocationContext& context,
                                  std::vector<Grant>& out) {
    out.clear();
    const PlacementRequest request = context.request_of(job);
    for (const Grant& grant : context.grants_of(job))
      out.push_back(context.cluster().grant_for(grant.node, request, grant.gpus));
  }

  struct Peer {
    std::uint32_t job;
    double loss;  // relative speed lost going back to the proportional share
  };

  DemandTable demands_;
  std::vector<char> at_best_;  // by job: holds its best demand (else its proportional share)
  std::vector<NodeShare> shares_;
  std::vector<double> short_cpus_, short_mem_;  // by node; zero outside a call
  std::vector<std::uint32_t> touched_;
  std::vector<Peer> peers_;
  std::vector<std::uint32_t> chosen_, raise_;
  std::vector<Grant> scratch_;
};
}  // namespace

std::unique_ptr<AllocationMechanism> make_tune(const SchedulerOptions&) {
  return std::make_unique<Tune>();
}

}  // namespace clustersim::allocation
