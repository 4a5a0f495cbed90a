#include "clustersim/cluster_state.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "clustersim/mig.h"

namespace clustersim {

ClusterState::ClusterState(const ClusterSpec& spec) {
  if (spec.groups.empty()) throw std::invalid_argument("cluster: no nodes");
  if (spec.nodes_per_rack <= 0) throw std::invalid_argument("cluster: nodes_per_rack must be > 0");
  // A partition (a fleet's cluster) starts a new rack and numbers its racks from there.
  int partition = spec.groups.front().partition, partition_rack = 0, partition_node = 0;
  for (const auto& group : spec.groups) {
    if (group.partition != partition) {
      partition = group.partition;
      partition_rack = nodes_.back().rack + 1;
      partition_node = static_cast<int>(nodes_.size());
    }
    if (group.nodes <= 0)
      throw std::invalid_argument("cluster: group '" + group.name + "' has no nodes");
    if (group.gpus_per_node <= 0 || group.gpus_per_node > 64)
      throw std::invalid_argument("cluster: gpus_per_node must be in 1..64");
    if (group.cpus_per_node < 0 || group.mem_gb_per_node < 0 || group.storage_mbps_per_node < 0)
      throw std::invalid_argument("cluster: negative node resources");
    const int mig = group.mig.empty() ? -1 : mig_geometry_id(group.mig);
    if (!group.mig.empty() && mig < 0)
      throw std::invalid_argument("cluster: group '" + group.name + "': unknown MIG geometry '" +
                                  group.mig + "'");
    if (group.gpu_mem_gb < 0.0) throw std::invalid_argument("cluster: negative GPU memory");
    int type = find_gpu_type(group.gpu_type, group.partition);
    if (type < 0) {
      type = static_cast<int>(gpu_type_names_.size());
      gpu_type_names_.push_back(group.gpu_type);
      type_partition_.push_back(group.partition);
      total_by_type_.push_back(0);
    }
    for (int i = 0; i < group.nodes; ++i) {
      Node node;
      node.rack =
          partition_rack + (static_cast<int>(nodes_.size()) - partition_node) / spec.nodes_per_rack;
      node.gpu_type = type;
      node.gpus = node.free_gpus = group.gpus_per_node;
      node.cpus = node.free_cpus = group.cpus_per_node;
      node.mem_gb = node.free_mem_gb = group.mem_gb_per_node;
      node.storage_mbps = node.free_storage_mbps = group.storage_mbps_per_node;
      node.cpus_per_gpu = node.cpus / node.gpus;
      node.mem_gb_per_gpu = node.mem_gb / node.gpus;
      node.storage_mbps_per_gpu = node.storage_mbps / node.gpus;
      node.models_resources = node.cpus > 0.0 || node.mem_gb > 0.0 || node.storage_mbps > 0.0;
      node.mig = static_cast<std::int8_t>(mig);
      node.gpu_mem_mb = gpu_mem_mb(group.gpu_mem_gb);
      if (mig >= 0) {  // no whole GPU is ever free on it
        node.free_gpus = 0;
        mig_gpus_ += node.gpus;
      }
      nodes_.push_back(node);
      total_by_type_[type] += node.gpus;
      total_gpus_ += node.gpus;
      total_cpus_ += node.cpus;
      total_mem_gb_ += node.mem_gb;
      total_storage_mbps_ += node.storage_mbps;
      models_cpus_ = models_cpus_ || node.cpus > 0;
      models_mem_ = models_mem_ || node.mem_gb > 0;
    }
  }
  num_racks_ = nodes_.back().rack + 1;
  free_gpus_ = total_gpus_ - mig_gpus_;
  free_by_type_ = total_by_type_;
  for (const Node& node : nodes_)
    if (node.mig >= 0) free_by_type_[node.gpu_type] -= node.gpus;
  nodes_per_rack_ = spec.nodes_per_rack;
  rack_first_node_.assign(static_cast<std::size_t>(num_racks_) + 1,
                          static_cast<std::uint32_t>(nodes_.size()));
  for (std::size_t i = nodes_.size(); i-- > 0;)
    rack_first_node_[static_cast<std::size_t>(nodes_[i].rack)] = static_cast<std::uint32_t>(i);
  for (const Node& node : nodes_) max_gpus_per_node_ = std::max(max_gpus_per_node_, node.gpus);
  types_.resize(gpu_type_names_.size());
  const auto node_count = static_cast<std::uint32_t>(nodes_.size());
  for (TypeIndex& index : types_) {
    index.by_free.resize(static_cast<std::size_t>(max_gpus_per_node_) + 1);
    for (auto& set : index.by_free) set.resize(node_count);
    index.rack_count.assign(static_cast<std::size_t>(num_racks_) * (max_gpus_per_node_ + 1), 0);
    index.rack_room.assign(static_cast<std::size_t>(num_racks_), 0);
    index.tree.resize(node_count);
  }
  for (const Node& node : nodes_) {
    auto& racks = types_[node.gpu_type].racks;
    if (racks.empty() || racks.back() != node.rack) racks.push_back(node.rack);
  }
  indexed_free_.assign(nodes_.size(), 0);
  counted_inconsistent_.assign(nodes_.size(), 0);
  for (std::uint32_t i = 0; i < node_count; ++i) reindex(i);
  if (mig_gpus_ > 0) {
    index_gpus();
    mig_masks_.assign(static_cast<std::size_t>(total_gpus_), 0);
  }
}

void ClusterState::index_gpus() {
  if (!gpu_base_.empty()) return;
  gpu_base_.resize(nodes_.size());
  std::uint32_t base = 0;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    gpu_base_[i] = base;
    base += static_cast<std::uint32_t>(nodes_[i].gpus);
  }
}

void ClusterState::track_free_gpu_prefix_sums() {
  if (prefix_sums_) return;
  prefix_sums_ = true;
  for (std::uint32_t i = 0; i < nodes_.size(); ++i)
    if (indexed_free_[i] > 0) types_[nodes_[i].gpu_type].tree.add(i, indexed_free_[i]);
}

bool ClusterState::consistent(const Node& node) const {
  if (node.free_gpus == 0 || !node.models_resources) return true;
  // The common case without a division: every modelled resource covers the free GPUs' shares.
  const double gpus = node.free_gpus;
  if ((node.cpus <= 0.0 || node.free_cpus + kResourceEpsilon >= node.cpus_per_gpu * gpus) &&
      (node.mem_gb <= 0.0 || node.free_mem_gb + kResourceEpsilon >= node.mem_gb_per_gpu * gpus) &&
      (node.storage_mbps <= 0.0 ||
       node.free_storage_mbps + kResourceEpsilon >= node.storage_mbps_per_gpu * gpus))
    return true;
  return hostable_by_resources(node, PlacementRequest{}) == node.free_gpus;
}

void ClusterState::reindex(std::uint32_t i) {
  const Node& node = nodes_[i];
  TypeIndex& index = types_[node.gpu_type];
  const bool ok = consistent(node);
  const int want = ok ? node.free_gpus : 0;
  const int had = indexed_free_[i];
  if (want != had) {
    const std::size_t row = static_cast<std::size_t>(node.rack) * (max_gpus_per_node_ + 1);
    if (had > 0) {
      index.by_free[had].erase(i);
      --index.rack_count[row + had];
      index.rack_room[node.rack] -= had;
    }
    if (want > 0) {
      index.by_free[want].insert(i);
      ++index.rack_count[row + want];
      index.rack_room[node.rack] += want;
    }
    if (prefix_sums_) index.tree.add(i, want - had);
    indexed_free_[i] = want;
  }
  const char unindexed = !ok && node.free_gpus > 0;
  if (unindexed != counted_inconsistent_[i]) {
    index.inconsistent += unindexed ? 1 : -1;
    counted_inconsistent_[i] = unindexed;
  }
}

void ClusterState::check_index() const {
  for (std::size_t t = 0; t < types_.size(); ++t) {
    const TypeIndex& index = types_[t];
    int inconsistent = 0;
    std::vector<int> room(static_cast<std::size_t>(num_racks_), 0);
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
      const Node& node = nodes_[i];
      if (node.gpu_type != static_cast<int>(t)) continue;
      const bool ok = consistent(node);
      const int want = ok ? node.free_gpus : 0;
      if (indexed_free_[i] != want)
        throw std::logic_error("invariant: node index out of date for node " + std::to_string(i));
      for (int f = 1; f <= max_gpus_per_node_; ++f)
        if ((index.by_free[static_cast<std::size_t>(f)].next(i) == i) != (f == want))
          throw std::logic_error("invariant: node index bucket wrong for node " +
                                 std::to_string(i));
      room[static_cast<std::size_t>(node.rack)] += want;
      if (!ok && node.free_gpus > 0) ++inconsistent;
    }
    if (inconsistent != index.inconsistent)
      throw std::logic_error("invariant: node index's count of unindexed nodes drifted");
    for (int r = 0; r < num_racks_; ++r)
      if (room[static_cast<std::size_t>(r)] != index.rack_room[static_cast<std::size_t>(r)])
        throw std::logic_error("invariant: node index's rack totals drifted");
    // The prefix sums: the k-th free GPU of every indexed node lies on that node.
    if (!prefix_sums_) continue;
    int k = 0;
    for (std::uint32_t i = 0; i < nodes_.size(); ++i) {
      if (nodes_[i].gpu_type != static_cast<int>(t) || indexed_free_[i] == 0) continue;
      int before = 0;
      if (index.tree.find(k, &before) != i || before != k)
        throw std::logic_error("invariant: node index's prefix sums drifted at node " +
                               std::to_string(i));
      k += indexed_free_[i];
    }
  }
  if (!shares_gpus()) return;
  // The shares' room index: partly used GPUs by type and room, and each type's largest room.
  std::vector<int> counts(room_count_.size(), 0);
  for (std::uint32_t i = 0; i < nodes_.size(); ++i)
    for (int g = 0; g < nodes_[i].gpus; ++g)
      if (const int used = used_milli(i, g); used > 0)
        ++counts[static_cast<std::size_t>(nodes_[i].gpu_type) * kMilliPerGpu +
                 static_cast<std::size_t>(kMilliPerGpu - used)];
  if (counts != room_count_) throw std::logic_error("invariant: GPU share room counts drifted");
  for (std::size_t t = 0; t < max_room_.size(); ++t) {
    int max = 0;
    for (int r = kMilliPerGpu - 1; r > 0 && max == 0; --r)
      if (counts[t * kMilliPerGpu + static_cast<std::size_t>(r)] > 0) max = r;
    if (max != max_room_[t]) throw std::logic_error("invariant: GPU share room maximum drifted");
  }
}

int ClusterState::total_gpus(int gpu_type) const {
  return gpu_type < 0 ? total_gpus_ : total_by_type_[gpu_type];
}

int ClusterState::free_gpus(int gpu_type) const {
  return gpu_type < 0 ? free_gpus_ : free_by_type_[gpu_type];
}

int ClusterState::find_gpu_type(const std::string& name) const {
  for (std::size_t i = 0; i < gpu_type_names_.size(); ++i)
    if (gpu_type_names_[i] == name) return static_cast<int>(i);
  return -1;
}

int ClusterState::find_gpu_type(const std::string& name, int partition) const {
  for (std::size_t i = 0; i < gpu_type_names_.size(); ++i)
    if (gpu_type_names_[i] == name && type_partition_[i] == partition) return static_cast<int>(i);
  return -1;
}

namespace {
// GPUs that `free` units of a resource support at `per_gpu` units each (per_gpu <= 0: no limit).
// The multiplication settles the common case (the resource is not what binds) without a division.
int gpus_supported(double free, double per_gpu, int cap) {
  if (per_gpu <= 0.0 || free + ClusterState::kResourceEpsilon >= per_gpu * cap) return cap;
  return std::min(cap,
                  static_cast<int>(std::floor((free + ClusterState::kResourceEpsilon) / per_gpu)));
}

double per_gpu_share(double requested, double node_total, int node_gpus) {
  if (requested >= 0.0) return requested;
  return node_total > 0.0 ? node_total / node_gpus : 0.0;
}
}  // namespace

double ClusterState::cpus_for(const Node& node, const PlacementRequest& request, int gpus) const {
  if (node.cpus <= 0.0) return 0.0;
  return per_gpu_share(request.cpus_per_gpu, node.cpus, node.gpus) * gpus;
}

double ClusterState::mem_for(const Node& node, const PlacementRequest& request, int gpus) const {
  if (node.mem_gb <= 0.0) return 0.0;
  return per_gpu_share(request.mem_per_gpu, node.mem_gb, node.gpus) * gpus;
}

int ClusterState::hostable_by_resources(const Node& node, const PlacementRequest& request) const {
  int gpus = node.free_gpus;
  if (node.cpus > 0.0)
    gpus = gpus_supported(node.free_cpus,
                          request.cpus_per_gpu >= 0.0 ? request.cpus_per_gpu : node.cpus_per_gpu,
                          gpus);
  if (node.mem_gb > 0.0)
    gpus = gpus_supported(node.free_mem_gb,
                          request.mem_per_gpu >= 0.0 ? request.mem_per_gpu : node.mem_gb_per_gpu,
                          gpus);
  if (node.storage_mbps > 0.0)
    gpus = gpus_supported(
        node.free_storage_mbps,
        request.storage_per_gpu >= 0.0 ? request.storage_per_gpu : node.storage_mbps_per_gpu, gpus);
  return gpus;
}

bool ClusterState::room_on_nodes(const PlacementRequest& request, std::size_t count) const {
  const int type = request.gpu_type;
  if (count == 0 || free_by_type_[type] < request.gpus) return false;
  int room = 0;
  std::size_t taken = 0;
  if (request.proportional() && index_covers(type)) {
    // The roomiest nodes, from the index: free counts from the most down.
    const auto all = static_cast<std::uint32_t>(nodes_.size());
    for (int free = max_gpus_per_node_; free >= 1 && taken < count; --free)
      for (std::uint32_t n = next_node_with_free(type, free, 0, all);
           n != NodeBitset::kNone && taken < count;
           n = next_node_with_free(type, free, n + 1, all)) {
        room += free;
        ++taken;
      }
    return room >= request.gpus;
  }
  // The `count` largest hostable counts, kept sorted (count is small: a job's fewest nodes).
  std::vector<int> best;
  best.reserve(count + 1);
  for (const Node& node : nodes_) {
    const int hostable_here = hostable(node, request);
    if (hostable_here == 0) continue;
    best.insert(std::upper_bound(best.begin(), best.end(), hostable_here, std::greater<int>()),
                hostable_here);
    if (best.size() > count) best.pop_back();
  }
  for (int h : best) room += h;
  return room >= request.gpus;
}

int ClusterState::hostable_when_empty(const Node& node, const PlacementRequest& request) const {
  if (request.gpu_type >= 0 && node.gpu_type != request.gpu_type) return 0;
  if (node.mig >= 0) return 0;  // its GPUs go to MIG slices only
  int gpus = node.gpus;
  if (node.cpus > 0.0)
    gpus =
        gpus_supported(node.cpus, per_gpu_share(request.cpus_per_gpu, node.cpus, node.gpus), gpus);
  if (node.mem_gb > 0.0)
    gpus = gpus_supported(node.mem_gb, per_gpu_share(request.mem_per_gpu, node.mem_gb, node.gpus),
                          gpus);
  if (node.storage_mbps > 0.0)
    gpus =
        gpus_supported(node.storage_mbps,
                       per_gpu_share(request.storage_per_gpu, node.storage_mbps, node.gpus), gpus);
  return gpus;
}

double ClusterState::storage_for(const Node& node, const PlacementRequest& request,
                                 int gpus) const {
  if (node.storage_mbps <= 0.0) return 0.0;
  // The proportional share as S x g / G (not S / G x g): the formula rates were computed with
  // before storage was a ledger resource, so results stay bit-identical.
  if (request.storage_per_gpu < 0.0) return node.storage_mbps * gpus / node.gpus;
  return request.storage_per_gpu * gpus;
}

Grant ClusterState::grant_for(std::uint32_t index, const PlacementRequest& request,
                              int gpus) const {
  const Node& node = nodes_[index];
  return {index, gpus, cpus_for(node, request, gpus), mem_for(node, request, gpus),
          storage_for(node, request, gpus)};
}

bool ClusterState::fits(const Grant& grant) const {
  const Node& node = nodes_[grant.node];
  int whole = grant.gpus;
  if (grant.milli != 0 || grant.gpus == 0) {  // a share, a MIG slice or a CPU-only grant
    if (grant.gpus != 0) return false;
    if (grant.milli != 0) {
      if (!shares_gpus() || grant.milli < 0 || grant.milli >= kMilliPerGpu || grant.gpu < 0 ||
          grant.gpu >= node.gpus || grant.mig_mask != 0 || node.mig >= 0)
        return false;
      const int used = used_milli(grant.node, grant.gpu);
      if (used + grant.milli > kMilliPerGpu) return false;
      if (grant.gpu_mem_mb < 0 || (grant.gpu_mem_mb > 0 && node.gpu_mem_mb <= 0) ||
          !share_mem_fits(grant.node, grant.gpu, grant.gpu_mem_mb))
        return false;
      if (used == 0) whole = 1;
    } else if (grant.mig_mask != 0) {
      if (node.mig < 0 || grant.gpu < 0 || grant.gpu >= node.gpus || grant.mig_compute <= 0 ||
          grant.mig_compute > kMigComputeSlices ||
          (mig_used(grant.node, grant.gpu) & grant.mig_mask) != 0)
        return false;
    } else if (grant.gpu_mem_mb != 0 || grant.gpu >= 0) {
      return false;
    }
  }
  return grant.gpus >= 0 && whole <= node.free_gpus &&
         grant.cpus <= node.free_cpus + kResourceEpsilon &&
         grant.mem_gb <= node.free_mem_gb + kResourceEpsilon &&
         grant.storage_mbps <= node.free_storage_mbps + kResourceEpsilon;
}

void ClusterState::enable_gpu_shares() {
  if (shares_gpus()) return;
  if (free_gpus_ != total_gpus_ - mig_gpus_)
    throw std::logic_error("cluster: GPU shares are enabled before any grant");
  index_gpus();
  used_milli_.assign(static_cast<std::size_t>(total_gpus_), 0);
  for (const Node& node : nodes_)
    if (node.gpu_mem_mb > 0) used_mem_mb_.assign(static_cast<std::size_t>(total_gpus_), 0);
  room_count_.assign(gpu_type_names_.size() * kMilliPerGpu, 0);
  max_room_.assign(gpu_type_names_.size(), 0);
}

void ClusterState::move_room(int gpu_type, int old_used, int new_used) {
  int* counts = room_count_.data() + static_cast<std::size_t>(gpu_type) * kMilliPerGpu;
  int& max = max_room_[static_cast<std::size_t>(gpu_type)];
  if (old_used > 0) --counts[kMilliPerGpu - old_used];
  if (new_used > 0) {
    const int room = kMilliPerGpu - new_used;
    ++counts[room];
    max = std::max(max, room);
  }
  while (max > 0 && counts[max] == 0) --max;
}

int ClusterState::max_share_room(int gpu_type) const {
  if (!shares_gpus()) return 0;
  if (gpu_type >= 0) return max_room_[static_cast<std::size_t>(gpu_type)];
  return *std::max_element(max_room_.begin(), max_room_.end());
}

Grant ClusterState::mig_grant(std::uint32_t node, int gpu, int profile, int start, double cpus,
                              double mem_gb) const {
  const Node& n = nodes_[node];
  const int compute = mig_compute_slices(profile);
  const double share = static_cast<double>(compute) / kMigComputeSlices;
  Grant grant;
  grant.node = node;
  if (n.cpus > 0.0) grant.cpus = cpus > 0.0 ? cpus : n.cpus_per_gpu * share;
  if (n.mem_gb > 0.0) grant.mem_gb = mem_gb > 0.0 ? mem_gb : n.mem_gb_per_gpu * share;
  grant.storage_mbps = n.storage_mbps_per_gpu * share;
  grant.gpu = gpu;
  grant.mig_mask = mig_mask(n.mig, profile, start);
  grant.mig_compute = static_cast<std::uint8_t>(compute);
  return grant;
}

// The whole GPUs a grant takes from (or gives back to) the free count: its own, or the one its
// share is on when it is the first share taken (the last given back) there. Updates the shares.
// (A MIG slice takes none: its GPU is never free.)
int ClusterState::take_share(const Grant& grant) {
  if (grant.milli == 0) {
    if (grant.mig_mask != 0) {
      mig_masks_[gpu_base_[grant.node] + static_cast<std::uint32_t>(grant.gpu)] |= grant.mig_mask;
      held_mig_compute_ += grant.mig_compute;
    }
    return grant.gpus;
  }
  if (grant.gpu_mem_mb != 0)
    used_mem_mb_[gpu_base_[grant.node] + static_cast<std::uint32_t>(grant.gpu)] += grant.gpu_mem_mb;
  std::int16_t& used = used_milli_[gpu_base_[grant.node] + static_cast<std::uint32_t>(grant.gpu)];
  const bool first = used == 0;
  move_room(nodes_[grant.node].gpu_type, used, used + grant.milli);
  used = static_cast<std::int16_t>(used + grant.milli);
  held_milli_ += grant.milli;
  shared_gpus_ += first ? 1 : 0;
  return first ? 1 : 0;
}

int ClusterState::give_back_share(const Grant& grant) {
  if (grant.milli == 0) {
    if (grant.mig_mask != 0) {
      mig_masks_[gpu_base_[grant.node] + static_cast<std::uint32_t>(grant.gpu)] &=
          static_cast<std::uint8_t>(~grant.mig_mask);
      held_mig_compute_ -= grant.mig_compute;
    }
    return grant.gpus;
  }
  if (grant.gpu_mem_mb != 0)
    used_mem_mb_[gpu_base_[grant.node] + static_cast<std::uint32_t>(grant.gpu)] -= grant.gpu_mem_mb;
  std::int16_t& used = used_milli_[gpu_base_[grant.node] + static_cast<std::uint32_t>(grant.gpu)];
  move_room(nodes_[grant.node].gpu_type, used, used - grant.milli);
  used = static_cast<std::int16_t>(used - grant.milli);
  held_milli_ -= grant.milli;
  const bool last = used == 0;
  shared_gpus_ -= last ? 1 : 0;
  return last ? 1 : 0;
}

void ClusterState::allocate(const Grant& grant) {
  if (grant.node >= nodes_.size() || !fits(grant) || grant.cpus < 0.0 || grant.mem_gb < 0.0 ||
      grant.storage_mbps < 0.0)
    throw std::logic_error("cluster: over-allocation of node " + std::to_string(grant.node));
  Node& node = nodes_[grant.node];
  const int gpus = take_share(grant);
  if (free_gpu_observer_.to && gpus != 0)
    free_gpu_observer_.to->on_free_gpus(grant.node, node.free_gpus, node.free_gpus - gpus);
  node.free_gpus -= gpus;
  node.free_cpus = std::max(0.0, node.free_cpus - grant.cpus);
  node.free_mem_gb = std::max(0.0, node.free_mem_gb - grant.mem_gb);
  node.free_storage_mbps = std::max(0.0, node.free_storage_mbps - grant.storage_mbps);
  free_gpus_ -= gpus;
  free_by_type_[node.gpu_type] -= gpus;
  allocated_cpus_ += grant.cpus;
  allocated_mem_gb_ += grant.mem_gb;
  allocated_storage_mbps_ += grant.storage_mbps;
  reindex(grant.node);
}

void ClusterState::release(const Grant& grant) {
  if (grant.node >= nodes_.size() || grant.gpus < 0 ||
      nodes_[grant.node].free_gpus + grant.gpus > nodes_[grant.node].gpus ||
      (grant.milli != 0 &&
       (!shares_gpus() || grant.gpus != 0 || grant.gpu < 0 ||
        grant.gpu >= nodes_[grant.node].gpus || used_milli(grant.node, grant.gpu) < grant.milli ||
        (grant.gpu_mem_mb != 0 &&
         (!shares_gpu_mem() || used_mem_mb(grant.node, grant.gpu) < grant.gpu_mem_mb)))) ||
      (grant.mig_mask != 0 &&
       (nodes_[grant.node].mig < 0 || grant.gpu < 0 || grant.gpu >= nodes_[grant.node].gpus ||
        (mig_used(grant.node, grant.gpu) & grant.mig_mask) != grant.mig_mask)))
    throw std::logic_error("cluster: release of unallocated GPUs on node " +
                           std::to_string(grant.node));
  Node& node = nodes_[grant.node];
  const int gpus = give_back_share(grant);
  if (free_gpu_observer_.to && gpus != 0)
    free_gpu_observer_.to->on_free_gpus(grant.node, node.free_gpus, node.free_gpus + gpus);
  node.free_gpus += gpus;
  node.free_cpus = std::min(node.cpus, node.free_cpus + grant.cpus);
  node.free_mem_gb = std::min(node.mem_gb, node.free_mem_gb + grant.mem_gb);
  node.free_storage_mbps = std::min(node.storage_mbps, node.free_storage_mbps + grant.storage_mbps);
  free_gpus_ += gpus;
  free_by_type_[node.gpu_type] += gpus;
  allocated_cpus_ -= grant.cpus;
  allocated_mem_gb_ -= grant.mem_gb;
  allocated_storage_mbps_ -= grant.storage_mbps;
  reindex(grant.node);
}

void ClusterState::allocate(const NodeShare& share, double cpus, double mem_gb) {
  allocate(Grant{share.node, share.gpus, cpus, mem_gb, 0.0});
}

void ClusterState::release(const NodeShare& share, double cpus, double mem_gb) {
  release(Grant{share.node, share.gpus, cpus, mem_gb, 0.0});
}

}  // namespace clustersim
