#include "decider/placement_stage.h"

#include <algorithm>
#include <bit>
#include <stdexcept>

#include "clustersim/mig.h"
#include "decider/type_choice.h"
#include "options/declare.h"

namespace clustersim::internal {

PlacementStage::PlacementStage(const SimOptions& options, const View& view)
    : view_(view), options_(options.scheduler), rng_(options.seed) {
  set_tables(view.tables());
  placement_ = make_placement_policy(options.scheduler.placement, rng_);
  placement_->configure(options, view.cluster());
  if (options.scheduler.strict_locality && !placement_->consolidates())
    throw std::invalid_argument(
        "scheduler.strict_locality needs a placement that keeps jobs on the fewest nodes "
        "(consolidate), not " +
        options.scheduler.placement);
  const ClusterState& cluster = view.cluster();
  if (options_.type_choice == "fastest") {
    choice_ = Choice::kFastest;
  } else if (options_.type_choice == "speedup") {
    choice_ = Choice::kSpeedup;
  } else if (options_.type_choice != "most_free") {
    throw std::invalid_argument("scheduler.type_choice: unknown rule '" + options_.type_choice +
                                "' (most_free, fastest, speedup)");
  }
  relative_speed_sum_.assign(cluster.gpu_type_names().size(), 0.0);
  type_gpus_per_node_.assign(cluster.gpu_type_names().size(), 1);
  for (const auto& node : cluster.nodes())
    if (node.mig < 0)  // (GPUs in MIG mode take no whole-GPU job)
      type_gpus_per_node_[static_cast<std::size_t>(node.gpu_type)] =
          std::max(type_gpus_per_node_[static_cast<std::size_t>(node.gpu_type)], node.gpus);
}

PlacementRequest PlacementStage::base_request(const JobState& job) {
  PlacementRequest request;
  request.gpus = job.gpus;
  request.gpu_type = job.gpu_type;
  if (!job.own_request) return request;  // proportional: no need to read the spec
  // Per GPU of its request: an elastic job keeps the same share per GPU at any size.
  if (job.spec->cpus > 0.0) request.cpus_per_gpu = job.spec->cpus / job.spec->num_gpus;
  if (job.spec->mem_gb > 0.0) request.mem_per_gpu = job.spec->mem_gb / job.spec->num_gpus;
  return request;
}

PlacementRequest PlacementStage::request_of(std::uint32_t index) const {
  const JobState& job = jobs()[index];
  PlacementRequest request = base_request(job);
  request.job = index;
  request.fewest_nodes =
      options_.strict_locality && job.phase == JobPhase::kWaiting &&
      (options_.locality_relax_s <= 0.0 || now() - job.phase_since < options_.locality_relax_s);
  return request;
}

std::span<const int> PlacementStage::types_to_try(std::uint32_t index) {
  const JobState& job = jobs()[index];
  const ClusterState& cluster = this->cluster();
  const int types = static_cast<int>(cluster.gpu_type_names().size());
  type_order_.clear();
  if (job.gpu_type >= 0 || types == 1) {
    type_order_.push_back(job.gpu_type >= 0 ? job.gpu_type : 0);
    return type_order_;
  }
  const auto room = [&](int type) { return cluster.free_gpus(type); };
  if (!view_.typed_speeds() && choice_ == Choice::kMostFree) {
    types_with_room(types, room, job.gpus, type_order_);
    return type_order_;
  }
  const auto speed = [&](int type) { return view_.type_speed(index, type); };
  switch (choice_) {
    case Choice::kMostFree:
      types_by_score(
          types, room, [&](int t) { return speed(t) > 0.0 ? 1.0 : 0.0; }, job.gpus, type_order_);
      break;
    case Choice::kFastest:
      types_by_score(types, room, speed, job.gpus, type_order_);
      break;
    case Choice::kSpeedup: {
      double best = 0.0;
      for (int t = 0; t < types; ++t) best = std::max(best, speed(t));
      types_by_score(
          types, room,
          [&](int t) {
            const double typical = relative_speed_sum_[static_cast<std::size_t>(t)];
            return typical > 0.0 ? speed(t) / best / (typical / static_cast<double>(arrived_))
                                 : speed(t) / best;
          },
          job.gpus, type_order_);
      break;
    }
  }
  return type_order_;
}

void PlacementStage::arrived(std::uint32_t job) {
  const int types = static_cast<int>(relative_speed_sum_.size());
  double best = 0.0;
  for (int t = 0; t < types; ++t) best = std::max(best, view_.type_speed(job, t));
  if (best <= 0.0) return;
  for (int t = 0; t < types; ++t)
    relative_speed_sum_[static_cast<std::size_t>(t)] += view_.type_speed(job, t) / best;
  ++arrived_;
}

int PlacementStage::start_type(std::uint32_t job) {
  const JobState& state = jobs()[job];
  if (state.gpu_type >= 0) return state.gpu_type;
  if (cluster().gpu_type_names().size() == 1) return 0;
  const auto types = types_to_try(job);
  return types.empty() ? -1 : types.front();
}

bool PlacementStage::place(const PlacementRequest& request, std::vector<NodeShare>& out) {
  if (!placement_->place(request, cluster(), out)) return false;
  return !request.fewest_nodes || out.size() <= fewest_nodes(request.gpu_type, request.gpus);
}

bool PlacementStage::room_on_fewest_nodes(std::uint32_t job) {
  PlacementRequest request = request_of(job);
  for (int type : types_to_try(job)) {
    request.gpu_type = type;
    if (cluster().room_on_nodes(request, fewest_nodes(type, request.gpus))) return true;
  }
  return false;
}

// A share goes to the partly used GPU it fits most tightly (the most thousandths used; ties: the
// lowest node, then GPU), else to a free GPU of the node with the fewest free GPUs (ties: the
// lowest node), keeping whole GPUs free for whole-GPU jobs; where GPU memory is modelled, only
// GPUs with its memory free count. A CPU-only job goes to the first node (of its type) with its
// CPUs and memory free. O(nodes x GPUs) per attempt.
bool PlacementStage::start_small(std::uint32_t index, Plan& plan) const {
  const JobState& job = jobs()[index];
  if (job.mig != 0) return start_mig(index, plan);
  const ClusterState& cluster = this->cluster();
  const int milli = job.milli;
  const double gpu_mem_gb = job.spec->gpu_mem_gb;
  // GPU memory counts only where a node models it (share_grant leaves it 0 elsewhere).
  const std::int32_t mem_mb = gpu_mem_gb > 0.0 ? ClusterState::gpu_mem_mb(gpu_mem_gb) : 0;
  std::uint32_t best_node = NodeBitset::kNone;
  int best_gpu = -1, best_used = 0, best_free = 0;
  // Whether a partly used GPU has room for it (else only nodes with a free GPU can take it).
  const bool shared_room = milli > 0 && cluster.max_share_room(job.gpu_type) >= milli;
  for (std::uint32_t i = 0; i < cluster.nodes().size(); ++i) {
    const auto& node = cluster.node(i);
    if (job.gpu_type >= 0 && node.gpu_type != job.gpu_type) continue;
    if (milli == 0 && node.cpus <= 0.0) continue;  // a CPU-only job needs modelled CPUs
    if (milli > 0 && !shared_room && node.free_gpus == 0) continue;
    const Grant grant = cluster.share_grant(i, milli, 0, job.spec->cpus, job.spec->mem_gb);
    constexpr double kEpsilon = ClusterState::kResourceEpsilon;
    if (grant.cpus > node.free_cpus + kEpsilon || grant.mem_gb > node.free_mem_gb + kEpsilon ||
        grant.storage_mbps > node.free_storage_mbps + kEpsilon)
      continue;
    if (milli == 0) {
      plan.set(index);
      plan.add_grant(grant);
      return true;
    }
    if (node.mig >= 0) continue;  // a share takes no GPU in MIG mode
    const std::int32_t mem = node.gpu_mem_mb > 0 ? mem_mb : 0;
    if (mem > node.gpu_mem_mb && node.gpu_mem_mb > 0) continue;
    int free_gpu = -1;
    for (int g = 0; g < node.gpus; ++g) {
      const int used = cluster.used_milli(i, g);
      if (used == 0) {
        if (free_gpu < 0) free_gpu = g;
      } else if (used + milli <= ClusterState::kMilliPerGpu && used > best_used &&
                 (mem == 0 || cluster.share_mem_fits(i, g, mem))) {
        best_node = i;
        best_gpu = g;
        best_used = used;
      }
    }
    if (best_used + milli == ClusterState::kMilliPerGpu) break;  // an exact fit: none is tighter
    if (best_used == 0 && node.free_gpus > 0 &&
        (best_node == NodeBitset::kNone || node.free_gpus < best_free)) {
      best_node = i;
      best_gpu = free_gpu;
      best_free = node.free_gpus;
    }
  }
  if (best_node == NodeBitset::kNone) return false;
  plan.set(index);
  plan.add_grant(cluster.share_grant(best_node, milli, best_gpu, job.spec->cpus, job.spec->mem_gb,
                                     gpu_mem_gb));
  return true;
}

// A MIG slice goes to the GPU in MIG mode (of its type, whose geometry offers its profile, on a
// node with its CPUs and memory free) with the most memory slices taken where the profile has a
// free allowed start (ties: the lowest node, then GPU), at the lowest such start, keeping empty
// GPUs for the large profiles. O(MIG nodes x GPUs) per attempt.
bool PlacementStage::start_mig(std::uint32_t index, Plan& plan) const {
  const JobState& job = jobs()[index];
  const ClusterState& cluster = this->cluster();
  std::uint32_t best_node = NodeBitset::kNone;
  int best_gpu = -1, best_start = -1, best_used = -1;
  for (std::uint32_t i = 0; i < cluster.nodes().size(); ++i) {
    const auto& node = cluster.node(i);
    if (node.mig < 0 || (job.gpu_type >= 0 && node.gpu_type != job.gpu_type) ||
        mig_slice(node.mig, job.mig).size == 0)
      continue;
    const Grant grant = cluster.mig_grant(i, 0, job.mig, 0, job.spec->cpus, job.spec->mem_gb);
    constexpr double kEpsilon = ClusterState::kResourceEpsilon;
    if (grant.cpus > node.free_cpus + kEpsilon || grant.mem_gb > node.free_mem_gb + kEpsilon ||
        grant.storage_mbps > node.free_storage_mbps + kEpsilon)
      continue;
    for (int g = 0; g < node.gpus; ++g) {
      const std::uint8_t used = cluster.mig_used(i, g);
      const int taken = std::popcount(used);
      if (taken <= best_used) continue;
      const int start = mig_first_start(node.mig, job.mig, used);
      if (start < 0) continue;
      best_node = i;
      best_gpu = g;
      best_start = start;
      best_used = taken;
    }
  }
  if (best_node == NodeBitset::kNone) return false;
  plan.set(index);
  plan.add_grant(cluster.mig_grant(best_node, best_gpu, job.mig, best_start, job.spec->cpus,
                                   job.spec->mem_gb));
  return true;
}

std::size_t PlacementStage::fewest_nodes(int gpu_type, int gpus) const {
  const int per_node = type_gpus_per_node_[static_cast<std::size_t>(gpu_type)];
  return static_cast<std::size_t>((gpus + per_node - 1) / per_node);
}

}  // namespace clustersim::internal

namespace clustersim::options {

void declare_type_choice_keys(KeyRegistry& keys) {
  field<SimOptions>(
      keys, "scheduler.type_choice", [](auto& o) -> auto& { return o.scheduler.type_choice; })
      .choices({"most_free", "fastest", "speedup"})
      .component("scheduler")
      .training_only()
      .doc(
          "GPU type of a job that names none, when it starts: the type with most free GPUs, the "
          "job's fastest type with room (speeds from the throughput model: `[throughput] model = "
          "\"table\"`), or the type where its relative speed-up beats the arrived jobs' most. A "
          "job never starts on a type it cannot run on.");
}

void declare_sharing_keys(KeyRegistry& keys) {
  choice<SimOptions>(
      keys, "sharing.interference", [](auto& o) -> auto& { return o.sharing.interference; },
      std::vector<std::pair<std::string, Interference>>{{"none", Interference::kNone},
                                                        {"constant", Interference::kConstant},
                                                        {"table", Interference::kTable}})
      .component("sharing")
      .training_only()
      .default_note("unset: no sharing")
      .check_target<SimOptions>([](const SimOptions& o) -> std::string {
        const SharingOptions& sharing = o.sharing;
        if (sharing.interference == Interference::kConstant && !sharing.constant_factor)
          return "\"constant\" needs sharing.constant_factor";
        if (sharing.interference == Interference::kTable && sharing.table.empty() &&
            sharing.pairs.empty())
          return "\"table\" needs sharing.table";
        return "";
      })
      .doc(
          "Set: jobs asking for a share of one GPU (`gpu_milli` < 1000 in openb, `num_gpus` < 1 in "
          "the CSV format) share GPUs while their shares fit, slowed by co-located jobs: `none`, "
          "`constant` (`constant_factor`) or `table` (a pair table). Unset: a share runs on a "
          "whole "
          "GPU ([`sim/README.md`](sim/README.md#gpu-sharing-and-cpu-only-jobs)).");
  field<SimOptions>(
      keys, "sharing.constant_factor", [](auto& o) -> auto& { return o.sharing.constant_factor; })
      .range(0.0, 1.0)
      .check([](const OptionValue& value) -> std::string {
        return std::get<double>(value) > 0.0 ? "" : "must be in (0, 1], got 0";
      })
      .when("sharing.interference", {"constant"})
      .component("sharing")
      .training_only()
      .default_note("—")
      .doc(
          "`interference = \"constant\"`: each job sharing a job's GPU multiplies its rate by "
          "this (two jobs on a GPU: each at this rate; three: its square).");
  field<SimOptions>(
      keys, "sharing.table", [](auto& o) -> auto& { return o.sharing.table; })
      .path()
      .when("sharing.interference", {"table"})
      .component("sharing")
      .training_only()
      .default_note("—")
      .doc(
          "`interference = \"table\"`: a CSV file `model,other,factor`: the rate factor of a "
          "job of `model` for each job of `other` sharing its GPU (`*`: any model; the most "
          "specific row applies). Each pair's factor is in (0, 1].");
}

}  // namespace clustersim::options
