#include "decider/admission.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "decider/placement_stage.h"

namespace clustersim::internal {

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
