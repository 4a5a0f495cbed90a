// Admission: which jobs can ever run, and the VC quotas every later decision respects. Part of
// the built-in decider's stages; the simulation also applies it at load for any decider.
//
// A job is rejected (or reported, unless reject_impossible) at load when it can never start: its
// VC is not one the cluster defines, its GPU type does not exist, it needs more GPUs than one
// GPU type has (a job never mixes types) or, with strict quotas, than its VC's quota, or no set
// of nodes has the CPUs and memory it asks for with its GPUs; or what the hardware offers rules
// it out: the GPU memory it states (gpu_mem_gb), its MIG profile, or for a CPU-only job or a GPU
// share, the CPUs and memory of any one node.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "clustersim/simulator.h"
#include "clustersim/view.h"
#include "core/engine.h"

namespace clustersim::internal {

class Admission final : public JobAdmission {
 public:
  Admission(const SimOptions& options, const ClusterState& cluster);

  std::optional<Rejection> check(const JobState& job, const View& view) override;
  // Once the jobs are loaded (and whenever more VCs appear): quotas and fair-share weights for
  // `vcs` VCs.
  void vcs_known(std::size_t vcs);

  // The cluster defines VCs with quotas; a VC's quota (total GPUs without quotas), and its
  // fair-share weight (its quota's share of the GPUs, or 1).
  bool quotas_enforced() const { return quotas_enforced_; }
  bool strict() const { return quotas_enforced_ && mode_ == VcQuotaMode::kStrict; }
  // Idle quota is lent: jobs within quota go first, borrowers take what is left.
  bool lends() const { return quotas_enforced_ && mode_ == VcQuotaMode::kLend; }
  std::span<const double> quota() const { return quota_; }
  std::span<const double> weight() const { return weight_; }
  // Whether the job fits its VC's quota given the GPUs each VC holds in `usage`.
  bool within_quota(const JobState& job, std::span<const double> usage) const {
    return !quotas_enforced_ || usage[job.vc] + job.gpus <= quota_[job.vc];
  }
  // Strict quotas are never exceeded.
  void check_invariants(const View& view) const;

 private:
  const ClusterState& cluster_;
  const std::vector<VcSpec>& vcs_;
  VcQuotaMode mode_;
  bool quotas_enforced_;
  std::vector<double> quota_, weight_;
  std::vector<int> whole_gpus_;    // by type, GPUs in MIG mode left out
  int most_gpus_of_one_type_ = 0;  // an untyped job's limit (a job never mixes types)
  std::vector<int> room_by_type_;  // scratch
};

}  // namespace clustersim::internal
