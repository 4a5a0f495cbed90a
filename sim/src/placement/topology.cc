// Topology: a job's GPUs on as few scale-up domains, leaves and spine groups of the fabric as it
// can ([fabric]; sim/README.md, "LLM jobs"). An LLM job's tensor-parallel group must sit inside
// one scale-up domain, so a node offers only whole groups: its free GPUs rounded down to a
// multiple of the job's TP size. Then, best fit at each tier: the tightest node that holds the
// whole job; else the leaf needing the fewest nodes (then the least left over); else the spine
// group needing the fewest leaves (then the least left over); else spine groups, leaves and
// nodes with the most room first. A TP group is split across domains only when no placement of
// whole groups exists now (the job then runs at the rate its split layout gives, llm.h).
//
// With scale-up domains larger than a node (fabric.h) a domain takes a node's place: its free
// GPUs together offer whole groups, the tightest domain holds the whole job when one can, and a
// chosen domain's GPUs come from its roomiest nodes.
//
// Without scale-out tiers the cluster's racks are the leaves (one spine group); a job without
// LLM columns has groups of one GPU: the same tier-by-tier packing. O(nodes log nodes) per try
// (a scan and a sort of the candidates), no allocation once its buffers have grown.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "clustersim/fabric.h"
#include "clustersim/simulator.h"
#include "placement/candidates.h"
#include "placement/factories.h"

namespace clustersim::placement {

namespace {

class Topology final : public PlacementPolicy {
 public:
  bool consolidates() const override { return true; }

  void configure(const SimOptions& options, const ClusterState& cluster) override {
    llm_ = options.fabric.llm_jobs;
    scale_up_gpus_ = options.fabric.scale_up_gpus;
    if (options.fabric.contention()) {
      std::vector<int> node_gpus;
      for (const auto& node : cluster.nodes()) node_gpus.push_back(node.gpus);
      const FabricTopology topology = fabric_topology(options.fabric, node_gpus);
      leaf_of_ = topology.leaf_of;
      pod_of_leaf_ = topology.pod_of_leaf;
    } else {
      // No tiers given: a rack is a leaf, all under one spine group.
      for (const auto& node : cluster.nodes())
        leaf_of_.push_back(static_cast<std::uint32_t>(node.rack));
      pod_of_leaf_.assign(static_cast<std::size_t>(cluster.num_racks()), 0);
    }
    std::uint32_t pods = 1;
    for (std::uint32_t pod : pod_of_leaf_) pods = std::max(pods, pod + 1);
    pod_room_.assign(pods, 0);
    configure_domains(cluster);
  }

  bool place(const PlacementRequest& request, const ClusterState& cluster,
             std::vector<NodeShare>& out) override {
    if (leaf_of_.size() < cluster.nodes().size()) configure_racks(cluster);
    out.clear();
    const int group = group_gpus(request, cluster);
    // No layout of whole groups now: split one rather than wait (the rate model prices it).
    if (!place_groups(request, cluster, group, out) &&
        !(group > 1 && place_groups(request, cluster, 1, out)))
      return false;
    if (!domain_of_.empty()) domains_to_nodes(out);
    return true;
  }

 private:
  struct Leaf {
    std::uint32_t leaf;
    int room;
    std::uint32_t begin, end;  // its candidates, most usable first
  };

  // Without configure (a test's bare policy): racks as leaves.
  void configure_racks(const ClusterState& cluster) {
    leaf_of_.clear();
    for (const auto& node : cluster.nodes())
      leaf_of_.push_back(static_cast<std::uint32_t>(node.rack));
    pod_of_leaf_.assign(static_cast<std::size_t>(cluster.num_racks()), 0);
    pod_room_.assign(1, 0);
  }

  // Scale-up domains spanning nodes (fabric.scale_up_gpus above a node's GPUs, fabric.h): then
  // the unit placed is a domain (its free GPUs together), each domain's leaf its first node's.
  void configure_domains(const ClusterState& cluster) {
    domain_of_.clear();
    std::vector<int> node_gpus, node_type;
    for (const auto& node : cluster.nodes()) {
      node_gpus.push_back(node.gpus);
      node_type.push_back(node.gpu_type);
    }
    if (!domains_span_nodes(node_gpus, scale_up_gpus_)) return;
    const std::string wrong = scale_up_domains(node_gpus, node_type, scale_up_gpus_, domain_of_);
    if (!wrong.empty()) throw std::invalid_argument("fabric.scale_up_gpus: " + wrong);
    leaf_of_domain_.assign(domain_of_.back() + 1, 0);
    for (std::size_t node = domain_of_.size(); node-- > 0;)
      leaf_of_domain_[domain_of_[node]] = leaf_of_[node];
    domain_range_.assign(leaf_of_domain_.size(), {0, 0});
  }

  // Each domain's free GPUs as one candidate (its nodes' candidates kept in node_candidates_,
  // by domain in domain_range_).
  void gather_domains() {
    node_candidates_.swap(candidates_);
    candidates_.clear();
    for (std::uint32_t begin = 0; begin < node_candidates_.size();) {
      const std::uint32_t domain = domain_of_[node_candidates_[begin].node];
      std::uint32_t end = begin;
      int room = 0;
      for (; end < node_candidates_.size() && domain_of_[node_candidates_[end].node] == domain;
           ++end)
        room += node_candidates_[end].hostable;
      domain_range_[domain] = {begin, end};
      candidates_.push_back({domain, room});
      begin = end;
    }
  }

  // `out` names domains: each one's GPUs from its nodes, the roomiest first (fewest nodes).
  void domains_to_nodes(std::vector<NodeShare>& out) {
    domain_shares_.swap(out);
    out.clear();
    for (const NodeShare& share : domain_shares_) {
      const auto [begin, end] = domain_range_[share.node];
      domain_nodes_.assign(node_candidates_.begin() + begin, node_candidates_.begin() + end);
      std::sort(domain_nodes_.begin(), domain_nodes_.end(),
                [](const Candidate& a, const Candidate& b) {
                  return a.hostable != b.hostable ? a.hostable > b.hostable : a.node < b.node;
                });
      int left = share.gpus;
      for (std::size_t i = 0; i < domain_nodes_.size() && left > 0; ++i) {
        const int gpus = std::min(domain_nodes_[i].hostable, left);
        out.push_back({domain_nodes_[i].node, gpus});
        left -= gpus;
      }
    }
  }

  // GPUs that must share a scale-up domain: the job's TP size when a domain can hold it and its
  // GPUs are whole groups, else 1.
  int group_gpus(const PlacementRequest& request, const ClusterState& cluster) const {
    if (!llm_ || request.job < 0) return 1;
    const auto at =
        std::lower_bound(llm_->begin(), llm_->end(), static_cast<std::uint32_t>(request.job),
                         [](const std::pair<std::uint32_t, LlmJob>& entry, std::uint32_t job) {
                           return entry.first < job;
                         });
    if (at == llm_->end() || at->first != static_cast<std::uint32_t>(request.job)) return 1;
    const int tp = at->second.tp;
    const int domain = !domain_of_.empty()  ? scale_up_gpus_
                       : scale_up_gpus_ > 0 ? std::min(scale_up_gpus_, cluster.max_gpus_per_node())
                                            : cluster.max_gpus_per_node();
    return tp > 1 && tp <= domain && request.gpus % tp == 0 ? tp : 1;
  }

  bool place_groups(const PlacementRequest& request, const ClusterState& cluster, int group,
                    std::vector<NodeShare>& out) {
    out.clear();
    const int gpus = request.gpus;
    collect_candidates(request, cluster, candidates_);
    if (!domain_of_.empty()) gather_domains();
    // A candidate is a node, or a domain when domains span nodes.
    const std::vector<std::uint32_t>& leaf_of = domain_of_.empty() ? leaf_of_ : leaf_of_domain_;
    int total = 0;
    std::size_t kept = 0;
    for (Candidate candidate : candidates_) {
      candidate.hostable -= candidate.hostable % group;  // whole groups only
      total += candidate.hostable;
      if (candidate.hostable > 0) candidates_[kept++] = candidate;
    }
    candidates_.resize(kept);
    if (total < gpus) return false;
    if (const Candidate* node = tightest_single_node(candidates_, gpus)) {
      out.push_back({node->node, gpus});
      return true;
    }
    // Each leaf's candidates together, most usable first.
    std::sort(candidates_.begin(), candidates_.end(), [&](const Candidate& a, const Candidate& b) {
      const std::uint32_t leaf_a = leaf_of[a.node], leaf_b = leaf_of[b.node];
      if (leaf_a != leaf_b) return leaf_a < leaf_b;
      if (a.hostable != b.hostable) return a.hostable > b.hostable;
      return a.node < b.node;
    });
    leaves_.clear();
    for (std::uint32_t begin = 0; begin < candidates_.size();) {
      const std::uint32_t leaf = leaf_of[candidates_[begin].node];
      std::uint32_t end = begin;
      int room = 0;
      for (; end < candidates_.size() && leaf_of[candidates_[end].node] == leaf; ++end)
        room += candidates_[end].hostable;
      leaves_.push_back({leaf, room, begin, end});
      begin = end;
    }
    // One leaf: the fewest nodes, then the least left over.
    const Leaf* best_leaf = nullptr;
    int best_nodes = 0;
    for (const Leaf& leaf : leaves_) {
      if (leaf.room < gpus) continue;
      int nodes = 0;
      for (int left = gpus; left > 0; ++nodes) left -= candidates_[leaf.begin + nodes].hostable;
      if (!best_leaf || nodes < best_nodes ||
          (nodes == best_nodes && leaf.room < best_leaf->room)) {
        best_leaf = &leaf;
        best_nodes = nodes;
      }
    }
    int left = gpus;
    if (best_leaf) {
      take(*best_leaf, left, out);
      return true;
    }
    // One spine group: its roomiest leaves first; the fewest leaves, then the least left over.
    for (const Leaf& leaf : leaves_) pod_room_[pod_of_leaf_[leaf.leaf]] += leaf.room;
    std::sort(leaves_.begin(), leaves_.end(), [&](const Leaf& a, const Leaf& b) {
      const std::uint32_t pod_a = pod_of_leaf_[a.leaf], pod_b = pod_of_leaf_[b.leaf];
      if (pod_a != pod_b)
        return pod_room_[pod_a] != pod_room_[pod_b] ? pod_room_[pod_a] > pod_room_[pod_b]
                                                    : pod_a < pod_b;
      return a.room != b.room ? a.room > b.room : a.leaf < b.leaf;
    });
    std::size_t best_begin = leaves_.size(), best_count = 0;
    int best_room = 0;
    for (std::size_t begin = 0; begin < leaves_.size();) {
      const std::uint32_t pod = pod_of_leaf_[leaves_[begin].leaf];
      std::size_t end = begin, needed = 0;
      for (int rest = gpus; end < leaves_.size() && pod_of_leaf_[leaves_[end].leaf] == pod; ++end)
        if (rest > 0) {
          rest -= leaves_[end].room;
          ++needed;
        }
      const int room = pod_room_[pod];
      if (room >= gpus && (best_begin == leaves_.size() || needed < best_count ||
                           (needed == best_count && room < best_room))) {
        best_begin = begin;
        best_count = needed;
        best_room = room;
      }
      begin = end;
    }
    // Across spine groups: the leaves in the order above (roomiest groups first).
    const std::size_t first = best_begin < leaves_.size() ? best_begin : 0;
    for (std::size_t i = first; i < leaves_.size() && left > 0; ++i) take(leaves_[i], left, out);
    for (const Leaf& leaf : leaves_) pod_room_[pod_of_leaf_[leaf.leaf]] = 0;
    return true;
  }

  // Takes GPUs from `leaf`'s nodes, most usable first, until `left` is 0.
  void take(const Leaf& leaf, int& left, std::vector<NodeShare>& out) const {
    for (std::uint32_t i = leaf.begin; i < leaf.end && left > 0; ++i) {
      const int gpus = std::min(candidates_[i].hostable, left);
      out.push_back({candidates_[i].node, gpus});
      left -= gpus;
    }
  }

  std::shared_ptr<const LlmJobTable> llm_;
  int scale_up_gpus_ = 0;
  std::vector<std::uint32_t> leaf_of_;      // by node
  std::vector<std::uint32_t> pod_of_leaf_;  // by leaf
  std::vector<int> pod_room_;               // by spine group: scratch, 0 between placements
  std::vector<Candidate> candidates_;       // reused: no allocation per placement
  // Domains spanning nodes: by node its domain (empty: a node is a domain), by domain its leaf
  // and its nodes' range in node_candidates_; scratch for the shares.
  std::vector<std::uint32_t> domain_of_, leaf_of_domain_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> domain_range_;
  std::vector<Candidate> node_candidates_, domain_nodes_;
  std::vector<NodeShare> domain_shares_;
  std::vector<Leaf> leaves_;
};

}  // namespace

std::unique_ptr<PlacementPolicy> make_topology(Rng&) { return std::make_unique<Topology>(); }

}  // namespace clustersim::placement
