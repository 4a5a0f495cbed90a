#include "decider/admission.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "clustersim/mig.h"
#include "decider/placement_stage.h"

namespace clustersim::internal {

namespace {

// The GPU memory a job states (gpu_mem_gb) against the GPUs it may use: "" if it fits (or the
// cluster models no GPU memory there), else why not. A share's GPU is checked at placement, so
// one GPU with room is enough; a whole GPU gives its job all of its memory, but whole-GPU
// placement does not look at memory, so every GPU a whole-GPU job may get must hold it. A MIG
// slice has its profile's memory.
std::string gpu_mem_refusal(const JobState& job, const ClusterState& cluster) {
  const double need = job.spec->gpu_mem_gb;
  if (!(need > 0.0) || (job.requested_gpus == 0 && job.milli == 0 && job.mig == 0)) return "";
  const auto gb = [](double value) {
    std::string text = std::to_string(value);
    text.erase(text.find_last_not_of('0') + 1);
    if (text.back() == '.') text.pop_back();
    return text + " GB";
  };
  if (job.mig != 0) {
    double most = 0.0;
    for (const auto& node : cluster.nodes())
      if (node.mig >= 0 && (job.gpu_type < 0 || node.gpu_type == job.gpu_type))
        most = std::max(most, mig_slice(node.mig, job.mig).mem_gb);
    if (most == 0.0 || need <= most) return "";  // (no node offers it: refused for that)
    return "needs " + gb(need) + " of GPU memory; its MIG profile " +
           std::string(mig_profile_name(job.mig)) + " has " + gb(most);
  }
  const std::int32_t need_mb = ClusterState::gpu_mem_mb(need);
  std::int32_t most = 0, least = std::numeric_limits<std::int32_t>::max();
  bool unmodelled = false;
  for (const auto& node : cluster.nodes()) {
    if (node.mig >= 0 || (job.gpu_type >= 0 && node.gpu_type != job.gpu_type)) continue;
    unmodelled = unmodelled || node.gpu_mem_mb <= 0;
    if (node.gpu_mem_mb <= 0) continue;
    most = std::max(most, node.gpu_mem_mb);
    least = std::min(least, node.gpu_mem_mb);
  }
  if (most == 0) return "";  // not modelled on its GPUs
  if (need_mb > most && !unmodelled)
    return "needs " + gb(need) + " of GPU memory per GPU; the largest GPU" +
           (job.gpu_type >= 0 ? " of its type" : "") + " has " + gb(most / 1000.0);
  if (job.milli == 0 && (need_mb > least || unmodelled))
    return "needs " + gb(need) + " of GPU memory per GPU, and some GPUs it may be placed on have " +
           (unmodelled ? "no modelled memory" : gb(least / 1000.0)) +
           ": whole-GPU placement does not check GPU memory (name a gpu_type whose GPUs hold it)";
  return "";
}

bool fits_an_empty_node(const JobState& job, const ClusterState& cluster) {
  constexpr double kEpsilon = ClusterState::kResourceEpsilon;
  for (std::uint32_t i = 0; i < cluster.nodes().size(); ++i) {
    const auto& node = cluster.node(i);
    if (job.gpu_type >= 0 && node.gpu_type != job.gpu_type) continue;
    if (job.mig != 0 && (node.mig < 0 || mig_slice(node.mig, job.mig).size == 0)) continue;
    if (job.milli != 0 && node.mig >= 0) continue;  // a share takes no MIG GPU
    const Grant grant =
        job.mig != 0 ? cluster.mig_grant(i, 0, job.mig, mig_first_start(node.mig, job.mig, 0),
                                         job.spec->cpus, job.spec->mem_gb)
                     : cluster.share_grant(i, job.milli, 0, job.spec->cpus, job.spec->mem_gb,
                                           job.spec->gpu_mem_gb);
    if (job.milli == 0 && job.mig == 0 && node.cpus <= 0.0)
      continue;  // a CPU-only job needs modelled CPUs
    if (grant.cpus <= node.cpus + kEpsilon && grant.mem_gb <= node.mem_gb + kEpsilon &&
        grant.storage_mbps <= node.storage_mbps + kEpsilon &&
        (node.gpu_mem_mb <= 0 || grant.gpu_mem_mb <= node.gpu_mem_mb))
      return true;
  }
  return false;
}

}  // namespace

Admission::Admission(const SimOptions& options, const ClusterState& cluster)
    : cluster_(cluster),
      vcs_(options.cluster.vcs),
      mode_(options.scheduler.vc_quota),
      quotas_enforced_(!options.cluster.vcs.empty()) {
  // Whole GPUs by type: GPUs in MIG mode ([cluster] mig) go to MIG slices only.
  whole_gpus_.assign(cluster.gpu_type_names().size(), 0);
  for (const auto& node : cluster.nodes())
    if (node.mig < 0) whole_gpus_[static_cast<std::size_t>(node.gpu_type)] += node.gpus;
  for (int gpus : whole_gpus_) most_gpus_of_one_type_ = std::max(most_gpus_of_one_type_, gpus);
}

std::optional<JobAdmission::Rejection> Admission::check(const JobState& job, const View& view) {
  (void)view;
  const JobSpec& spec = *job.spec;
  if (job.vc < 0) return Rejection{"vc", "its VC '" + spec.vc + "' is not defined in [cluster]"};
  if (!spec.gpu_type.empty() && job.gpu_type < 0)
    return Rejection{"gpu_type", "the cluster has no GPUs of type '" + spec.gpu_type + "'"};
  // A job never mixes GPU types, so it must fit within one type.
  const int types = static_cast<int>(cluster_.gpu_type_names().size());
  const int room_of_one_type = job.gpu_type < 0
                                   ? most_gpus_of_one_type_
                                   : whole_gpus_[static_cast<std::size_t>(job.gpu_type)];
  if (job.gpus > room_of_one_type)
    return Rejection{"num_gpus", "it needs " + std::to_string(job.gpus) +
                                     " GPUs, the cluster has " + std::to_string(room_of_one_type) +
                                     (job.gpu_type < 0 ? " of any one type" : "")};
  if (quotas_enforced_ && mode_ == VcQuotaMode::kStrict &&
      job.gpus > vcs_[static_cast<std::size_t>(job.vc)].gpu_quota)
    return Rejection{"num_gpus",
                     "it needs " + std::to_string(job.gpus) + " GPUs, above its VC's quota of " +
                         std::to_string(vcs_[static_cast<std::size_t>(job.vc)].gpu_quota)};
  if (spec.cpus > 0.0 || spec.mem_gb > 0.0) {
    const PlacementRequest request = PlacementStage::base_request(job);
    room_by_type_.assign(static_cast<std::size_t>(types), 0);
    for (const auto& node : cluster_.nodes())
      room_by_type_[static_cast<std::size_t>(node.gpu_type)] +=
          cluster_.hostable_when_empty(node, request);
    if (*std::max_element(room_by_type_.begin(), room_by_type_.end()) < job.gpus)
      return Rejection{spec.cpus > 0.0 ? "cpus" : "mem_gb",
                       "no set of nodes has the CPUs and memory it asks for with its GPUs"};
  }
  // What the GPUs and nodes physically offer, whatever the decider: GPU memory, a MIG slice's
  // profile, and for CPU-only jobs and shares the CPUs and memory of one node.
  if (spec.gpu_mem_gb > 0.0)  // (most jobs state none: no empty answer built for each)
    if (std::string why = gpu_mem_refusal(job, cluster_); !why.empty())
      return Rejection{"gpu_mem_gb", std::move(why)};
  if (job.mig != 0 && !fits_an_empty_node(job, cluster_))
    return Rejection{"mig_profile", "no MIG node (of its GPU type; [cluster] mig) offers profile " +
                                        std::string(mig_profile_name(spec.mig_profile)) +
                                        " with the CPUs and memory it asks for"};
  if (job.requested_gpus == 0 && !fits_an_empty_node(job, cluster_))
    return Rejection{spec.num_gpus == 0 ? "cpus" : "gpu_milli",
                     "no node (of its GPU type) has the CPUs and memory it asks for" +
                         std::string(spec.num_gpus == 0 && !cluster_.models_cpus()
                                         ? " (the cluster models no CPUs: set cpus_per_node)"
                                         : "")};
  return std::nullopt;
}

void Admission::vcs_known(std::size_t vcs) {
  const double total = cluster_.total_gpus();
  quota_.resize(vcs);
  weight_.resize(vcs);
  for (std::size_t v = 0; v < vcs; ++v) {
    quota_[v] = quotas_enforced_ ? vcs_[v].gpu_quota : total;
    weight_[v] = quotas_enforced_ ? quota_[v] / total : 1.0;
  }
}

void Admission::check_invariants(const View& view) const {
  if (!strict()) return;
  std::vector<double> held(quota_.size(), 0.0);
  for (std::uint32_t index : view.holders()) held[view.jobs()[index].vc] += view.jobs()[index].gpus;
  for (std::size_t v = 0; v < held.size(); ++v)
    if (held[v] > quota_[v])
      throw std::logic_error("invariant: VC '" + view.vc_names()[v] + "' above its quota");
}

}  // namespace clustersim::internal
