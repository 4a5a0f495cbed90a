// The cluster's free resources while the simulation runs, node by node: the resource ledger.
// Placement policies and allocation mechanisms read it; only the engine allocates and releases
// (when it applies a plan, plan.h), and every grant must fit all of a node's resources.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "clustersim/cluster.h"
#include "clustersim/node_index.h"
#include "clustersim/plan.h"

namespace clustersim {

// Resources a job wants, per GPU. A negative per-GPU CPU, memory or storage figure means
// "proportional": the node's CPUs (memory, storage bandwidth) divided by its GPUs; 0 means none
// (the request is placed by GPUs alone).
struct PlacementRequest {
  int gpus = 1;
  int gpu_type = -1;  // -1 = any
  double cpus_per_gpu = -1.0;
  double mem_per_gpu = -1.0;
  double storage_per_gpu = -1.0;
  // Only a placement on the fewest nodes of the type that can hold `gpus` (strict locality).
  bool fewest_nodes = false;
  // The job's position in the workload when the request is for one (-1: none named), for a
  // placement that reads a side table of the workload (its LLM layout).
  std::int64_t job = -1;
  // Every resource at the proportional share: the node index answers for it.
  bool proportional() const {
    return cpus_per_gpu < 0.0 && mem_per_gpu < 0.0 && storage_per_gpu < 0.0;
  }
};

struct NodeShare {
  std::uint32_t node = 0;
  int gpus = 0;
};

// Told of every change of a node's free whole GPUs (the measurement's fragmentation tracker
// keeps its sums up to date in O(1) a change instead of scanning every node at every event).
class FreeGpuObserver {
 public:
  virtual ~FreeGpuObserver() = default;
  virtual void on_free_gpus(std::uint32_t node, int before, int after) = 0;
};

class ClusterState {
 public:
  // A grant of CPU, memory or storage fits when it exceeds what is free by at most this much
  // (rounding of shares; it keeps repeated grants of fractional shares from failing on their
  // last bit).
  static constexpr double kResourceEpsilon = 1e-9;

  struct Node {
    int rack = 0;
    int gpu_type = 0;
    int gpus = 0;
    int free_gpus = 0;
    double cpus = 0.0;  // 0 = not modelled
    double mem_gb = 0.0;
    double free_cpus = 0.0;
    double free_mem_gb = 0.0;
    double storage_mbps = 0.0;  // 0 = not modelled
    double free_storage_mbps = 0.0;
    // The proportional share per GPU of each resource (0 where it is not modelled), and whether
    // any of them is modelled (when none is, a node hosts as many GPUs as it has free).
    double cpus_per_gpu = 0.0;
    double mem_gb_per_gpu = 0.0;
    double storage_mbps_per_gpu = 0.0;
    bool models_resources = false;
    // Its MIG geometry (mig.h; kMigGeometries index), -1: whole GPUs. A node in MIG mode has no
    // free whole GPUs, ever: its GPUs go to MIG slices only.
    std::int8_t mig = -1;
    // Each GPU's memory in MB for GPU shares (0: not modelled).
    std::int32_t gpu_mem_mb = 0;
  };

  explicit ClusterState(const ClusterSpec& spec);

  std::span<const Node> nodes() const { return nodes_; }
  const Node& node(std::uint32_t i) const { return nodes_[i]; }
  int num_racks() const { return num_racks_; }
  int total_gpus() const { return total_gpus_; }
  int free_gpus() const { return free_gpus_; }
  // GPUs of a type (-1 = all types).
  int total_gpus(int gpu_type) const;
  int free_gpus(int gpu_type) const;
  const std::vector<std::string>& gpu_type_names() const { return gpu_type_names_; }
  int find_gpu_type(const std::string& name) const;  // -1 if unknown
  // The type of that name in a partition (NodeGroupSpec::partition; a fleet's cluster), -1 if
  // none; and the partition a type belongs to (0 outside a fleet).
  int find_gpu_type(const std::string& name, int partition) const;
  int gpu_type_partition(int gpu_type) const { return type_partition_[gpu_type]; }
  bool models_cpus() const { return models_cpus_; }
  bool models_mem() const { return models_mem_; }
  double total_cpus() const { return total_cpus_; }
  double total_mem_gb() const { return total_mem_gb_; }
  double total_storage_mbps() const { return total_storage_mbps_; }
  // Held now, summed over nodes (for utilisation).
  double allocated_cpus() const { return allocated_cpus_; }
  double allocated_mem_gb() const { return allocated_mem_gb_; }
  double allocated_storage_mbps() const { return allocated_storage_mbps_; }

  // How many GPUs of `node` the request could use right now (0 if the type does not match).
  // Inline: placement calls it for every candidate node.
  int hostable(const Node& node, const PlacementRequest& request) const {
    if (request.gpu_type >= 0 && node.gpu_type != request.gpu_type) return 0;
    if (node.free_gpus == 0 || !node.models_resources) return node.free_gpus;
    return hostable_by_resources(node, request);
  }
  // Whether `nodes` nodes of the request's type (set) can host all of its GPUs together now.
  bool room_on_nodes(const PlacementRequest& request, std::size_t nodes) const;
  // The same on an empty node (used to reject impossible jobs).
  int hostable_when_empty(const Node& node, const PlacementRequest& request) const;
  // GPUs in MIG mode (taken from every whole-GPU figure from the start), and the compute slices
  // jobs hold on them now.
  int mig_gpus() const { return mig_gpus_; }
  int held_mig_compute() const { return held_mig_compute_; }
  // CPU, memory and storage bandwidth a share of `gpus` GPUs on `node` takes for this request.
  double cpus_for(const Node& node, const PlacementRequest& request, int gpus) const;
  double mem_for(const Node& node, const PlacementRequest& request, int gpus) const;
  double storage_for(const Node& node, const PlacementRequest& request, int gpus) const;
  // The grant of `gpus` GPUs of `node` for this request (all of its resources).
  Grant grant_for(std::uint32_t node, const PlacementRequest& request, int gpus) const;
  // Whether `grant` fits what the node has free now.
  bool fits(const Grant& grant) const;
  // Idle GPUs on nodes (of `gpu_type`; -1 = all) whose free count is below what a job of `gpus`
  // GPUs needs from one node, min(gpus, node's GPUs): the fragmentation metric's count.
  int fragmented_gpus(int gpu_type, int gpus) const {
    int fragmented = 0;
    for (const auto& node : nodes_) {
      if (gpu_type >= 0 && node.gpu_type != gpu_type) continue;
      if (node.free_gpus > 0 && node.free_gpus < std::min(gpus, node.gpus))
        fragmented += node.free_gpus;
    }
    return fragmented;
  }

  // Tells `observer` (null: none; not owned) of every change of a node's free whole GPUs.
  void observe_free_gpus(FreeGpuObserver* observer) { free_gpu_observer_.to = observer; }

  // Take or give back a grant. Throw std::logic_error on over-allocation or over-release (a
  // scheduler bug): the ledger never goes negative. A share (Grant::milli > 0) takes its GPU
  // out of the free whole GPUs while any share of it is held.
  void allocate(const Grant& grant);
  void release(const Grant& grant);
  void allocate(const NodeShare& share, double cpus, double mem_gb);
  void release(const NodeShare& share, double cpus, double mem_gb);

  // ---- GPU shares (fractional jobs, [sharing]): a per-GPU ledger in thousandths ---------------
  // Kept only once enabled (before any grant). A GPU with any share held is not free: it counts
  // as one GPU taken in every whole-GPU figure (free_gpus, the node index), so whole-GPU jobs
  // never see it.
  static constexpr int kMilliPerGpu = 1000;
  void enable_gpu_shares();
  bool shares_gpus() const { return !used_milli_.empty(); }
  // GPU memory in the share ledger, counted in whole MB (GB x 1000, rounded).
  static std::int32_t gpu_mem_mb(double gb) {
    return static_cast<std::int32_t>(std::llround(gb * 1000.0));
  }
  // Whether shares are kept in memory too (some node models GPU memory), and what shares hold.
  bool shares_gpu_mem() const { return !used_mem_mb_.empty(); }
  std::int32_t used_mem_mb(std::uint32_t node, int gpu) const {
    return used_mem_mb_[gpu_base_[node] + static_cast<std::uint32_t>(gpu)];
  }
  // Whether `mem_mb` more of GPU memory fits on GPU `gpu` of `node` (always where not modelled).
  bool share_mem_fits(std::uint32_t node, int gpu, std::int32_t mem_mb) const {
    const std::int32_t capacity = nodes_[node].gpu_mem_mb;
    return capacity <= 0 || mem_mb <= 0 ||
           (shares_gpu_mem() ? used_mem_mb(node, gpu) : 0) + mem_mb <= capacity;
  }
  // Thousandths of GPU `gpu` of `node` held by shares.
  int used_milli(std::uint32_t node, int gpu) const {
    return used_milli_[gpu_base_[node] + static_cast<std::uint32_t>(gpu)];
  }
  // The grant of a CPU-only job (milli 0) or of a share of `milli` thousandths of GPU `gpu` on
  // `node`: CPUs and memory as asked (> 0), else the share of the node's proportional amounts
  // (none for a CPU-only job); storage bandwidth the share of the node's; 0 of what the node does
  // not model.
  // GPU memory: `gpu_mem_gb` of the share's GPU where the node models it.
  Grant share_grant(std::uint32_t node, int milli, int gpu, double cpus, double mem_gb,
                    double gpu_mem_gb = 0.0) const {
    const Node& n = nodes_[node];
    const double share = static_cast<double>(milli) / kMilliPerGpu;
    Grant grant;
    grant.node = node;
    if (n.cpus > 0.0) grant.cpus = cpus > 0.0 ? cpus : n.cpus_per_gpu * share;
    if (n.mem_gb > 0.0) grant.mem_gb = mem_gb > 0.0 ? mem_gb : n.mem_gb_per_gpu * share;
    grant.storage_mbps = n.storage_mbps_per_gpu * share;
    grant.milli = milli;
    grant.gpu = milli > 0 ? gpu : -1;
    if (milli > 0 && n.gpu_mem_mb > 0) grant.gpu_mem_mb = gpu_mem_mb(gpu_mem_gb);
    return grant;
  }
  // ---- MIG slices (mig.h) --------------------------------------------------------------------
  // The memory slices taken on GPU `gpu` of a MIG node (bit i: slice i).
  std::uint8_t mig_used(std::uint32_t node, int gpu) const {
    return mig_masks_[gpu_base_[node] + static_cast<std::uint32_t>(gpu)];
  }
  // The grant of MIG `profile` (mig.h id) at memory slice `start` of GPU `gpu` of `node`: CPUs
  // and memory as asked (> 0), else its compute slices / 7 of the node's per-GPU amounts; storage
  // bandwidth that share of the node's.
  Grant mig_grant(std::uint32_t node, int gpu, int profile, int start, double cpus,
                  double mem_gb) const;
  // The most thousandths free on one partly used GPU of `gpu_type` (-1: any type); 0 if none.
  int max_share_room(int gpu_type) const;
  // Whether a share of `milli` thousandths could find a GPU of `gpu_type` (-1: any) now, CPUs
  // and memory aside: a free GPU, or a partly used one with room. O(1) for one type.
  bool share_may_fit(int milli, int gpu_type) const {
    return free_gpus(gpu_type) > 0 || max_share_room(gpu_type) >= milli;
  }
  int shared_gpus() const { return shared_gpus_; }         // GPUs taken by shares now
  std::int64_t held_milli() const { return held_milli_; }  // thousandths held by shares now

  // ---- The node index (internal/node_index.h), for placement policies ----------------------
  // Whether the index covers every node of `gpu_type` with free GPUs for proportional requests
  // (no node's free cores, memory or storage fall short of its free GPUs' shares).
  bool index_covers(int gpu_type) const { return types_[gpu_type].inconsistent == 0; }
  int max_gpus_per_node() const { return max_gpus_per_node_; }
  int nodes_per_rack() const { return nodes_per_rack_; }
  // The lowest indexed node of the type with exactly `free` free GPUs, at or after `from` and
  // before `end`; NodeBitset::kNone if none.
  std::uint32_t next_node_with_free(int gpu_type, int free, std::uint32_t from,
                                    std::uint32_t end) const {
    const std::uint32_t node = types_[gpu_type].by_free[free].next(from);
    return node < end ? node : NodeBitset::kNone;
  }
  // Racks holding nodes of the type (ascending); a rack's indexed nodes with `free` free GPUs
  // and its free GPUs on indexed nodes.
  const std::vector<int>& racks_of_type(int gpu_type) const { return types_[gpu_type].racks; }
  int rack_nodes_with_free(int gpu_type, int rack, int free) const {
    return types_[gpu_type].rack_count[static_cast<std::size_t>(rack) * (max_gpus_per_node_ + 1) +
                                       static_cast<std::size_t>(free)];
  }
  int rack_free_gpus(int gpu_type, int rack) const { return types_[gpu_type].rack_room[rack]; }
  // A rack's nodes: [rack_begin, rack_end) (a table: a fleet's partitions restart racks).
  std::uint32_t rack_begin(int rack) const { return rack_first_node_[rack]; }
  std::uint32_t rack_end(int rack) const { return rack_first_node_[rack + 1]; }
  // The node holding the k-th free GPU of the type in node order (indexed nodes), and the free
  // GPUs before that node.
  std::uint32_t node_with_free_gpu(int gpu_type, int k, int* before) const {
    return types_[gpu_type].tree.find(k, before);
  }
  // Adjusts the prefix sums only (placements simulating GPUs they have picked; undo after).
  void adjust_free_gpu_tree(int gpu_type, std::uint32_t node, int delta) const {
    types_[gpu_type].tree.add(node, delta);
  }
  // Keeps the prefix sums of free GPUs from now on (off by default: only random placement reads
  // them).
  void track_free_gpu_prefix_sums();
  bool tracks_free_gpu_prefix_sums() const { return prefix_sums_; }
  // Rebuilds the index from the nodes and compares: throws std::logic_error on any difference.
  void check_index() const;

 private:
  int hostable_by_resources(const Node& node, const PlacementRequest& request) const;

 public:
 private:
  struct TypeIndex {
    std::vector<NodeBitset> by_free;  // [f]: indexed nodes with f free GPUs
    std::vector<int> rack_count;      // [rack * (max + 1) + f]
    std::vector<int> rack_room;       // [rack]: free GPUs of indexed nodes
    mutable FreeGpuTree tree;         // free GPUs of indexed nodes, by node
    int inconsistent = 0;             // nodes with free GPUs not indexed
    std::vector<int> racks;           // racks with nodes of this type
  };
  void reindex(std::uint32_t node);
  int take_share(const Grant& grant);
  int give_back_share(const Grant& grant);
  bool consistent(const Node& node) const;

  std::vector<Node> nodes_;
  std::vector<TypeIndex> types_;
  std::vector<int> indexed_free_;           // by node: the free count it is indexed under (0: not)
  std::vector<char> counted_inconsistent_;  // by node
  int max_gpus_per_node_ = 0;
  int nodes_per_rack_ = 1;
  std::vector<std::uint32_t> rack_first_node_;  // by rack, then the node count
  bool prefix_sums_ = false;
  std::vector<std::string> gpu_type_names_;
  std::vector<int> type_partition_;  // by type: its groups' NodeGroupSpec::partition
  std::vector<int> total_by_type_;
  std::vector<int> free_by_type_;
  int num_racks_ = 0;
  int total_gpus_ = 0;
  int free_gpus_ = 0;
  double total_cpus_ = 0.0;
  double total_mem_gb_ = 0.0;
  double total_storage_mbps_ = 0.0;
  double allocated_cpus_ = 0.0;
  double allocated_mem_gb_ = 0.0;
  double allocated_storage_mbps_ = 0.0;
  bool models_cpus_ = false;
  bool models_mem_ = false;
  // A copy of the ledger (a what-if scratch copy) tells no one: its changes are not the run's.
  struct ObserverSlot {
    FreeGpuObserver* to = nullptr;
    ObserverSlot() = default;
    ObserverSlot(const ObserverSlot&) {}
    ObserverSlot& operator=(const ObserverSlot&) { return *this; }
  };
  ObserverSlot free_gpu_observer_;
  void index_gpus();
  std::vector<std::uint32_t> gpu_base_;    // by node: its first GPU in the per-GPU vectors below
  std::vector<std::int16_t> used_milli_;   // by GPU (shares only)
  std::vector<std::int32_t> used_mem_mb_;  // by GPU (shares, where GPU memory is modelled)
  std::vector<std::uint8_t> mig_masks_;    // by GPU (MIG nodes only)
  int mig_gpus_ = 0;
  int held_mig_compute_ = 0;
  // Partly used GPUs by type and room: [type * 1000 + room] (room = 1000 - used, 0..999), and
  // each type's largest room with a GPU (0: none).
  std::vector<int> room_count_;
  std::vector<int> max_room_;
  void move_room(int gpu_type, int old_used, int new_used);
  int shared_gpus_ = 0;
  std::int64_t held_milli_ = 0;
};

}  // namespace clustersim
