// Rates: what a job's speed is for what it holds. The throughput model's rate (JobSpeed:
// profile, GPU type, locality, elastic scaling), as deciders ask for it (the View's rate_if,
// rate_per_gpu, axes), and as the engine sets it: that base times every rate model's factor
// (rate_model.h), re-rating the jobs the models name after each change of holdings.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "clustersim/mig.h"
#include "core/engine.h"

namespace clustersim::internal {

Allocation Engine::allocation_of(std::span<const Grant> grants) const {
  Allocation allocation;
  allocation.nodes = static_cast<int>(grants.size());
  allocation.gpu_type = &cluster_.gpu_type_names()[cluster_.node(grants.front().node).gpu_type];
  int first_rack = -1;
  bool multi_rack = false;
  for (const Grant& grant : grants) {
    const auto& node = cluster_.node(grant.node);
    allocation.gpus += grant.gpus;
    allocation.cpus += grant.cpus;
    allocation.mem_gb += grant.mem_gb;
    allocation.storage_mbps += grant.storage_mbps;
    if (first_rack < 0) first_rack = node.rack;
    multi_rack = multi_rack || node.rack != first_rack;
  }
  allocation.racks = multi_rack ? 2 : 1;
  return allocation;
}

double Engine::rate_if(std::uint32_t index, std::span<const Grant> grants) const {
  const int type = cluster_.node(grants.front().node).gpu_type;
  const JobState& job = jobs_[index];
  return speed_.rate(*job.spec, job.requested_gpus, resolved(index, type), allocation_of(grants));
}

double Engine::rate_per_gpu(std::uint32_t index, int gpu_type, const PerGpu& per_gpu) const {
  const JobState& job = jobs_[index];
  const auto& node = cluster_.node(type_node_[gpu_type]);
  const auto share = [&](double value, double node_total) {
    if (node_total <= 0.0) return 0.0;  // not modelled
    return (value < 0.0 ? node_total / node.gpus : value) * job.gpus;
  };
  Allocation allocation;
  allocation.gpus = job.gpus;
  allocation.nodes = allocation.racks = 1;
  allocation.cpus = share(per_gpu.cpus, node.cpus);
  allocation.mem_gb = share(per_gpu.mem_gb, node.mem_gb);
  allocation.storage_mbps = share(per_gpu.storage_mbps, node.storage_mbps);
  allocation.gpu_type = &cluster_.gpu_type_names()[gpu_type];
  return speed_.model().rate(*job.spec, resolved(index, gpu_type), allocation);
}

SensitivityAxes Engine::axes(std::uint32_t index, int gpu_type) const {
  return speed_.model().axes(resolved(index, gpu_type));
}

// A job's rate: its base rate (the throughput model's for what it holds; 1 for a CPU-only job or
// a GPU share, a MIG slice's compute slices of 7) times every rate model's factor.
double Engine::rate_now(const JobState& job) {
  double rate;
  if (job.requested_gpus == 0) {
    rate =
        job.mig == 0 ? 1.0 : static_cast<double>(mig_compute_slices(job.mig)) / kMigComputeSlices;
  } else {
    rate = rate_if(job.index, grants_of(job.index));
    if (!(rate > 0.0) || !std::isfinite(rate))
      throw std::logic_error("throughput model returned a non-positive rate for job '" +
                             job.spec->id + "'");
  }
  for (RateModel* model : rate_models_) rate *= model->factor(job.index);
  return rate;
}

// The jobs the rate models name get their rates anew: a running job's progress is folded at its
// old rate and its completion is rescheduled (the old event is stale by its epoch).
void Engine::rerate_affected() {
  affected_.clear();
  for (RateModel* model : rate_models_) model->take_affected(affected_);
  for (std::uint32_t index : affected_) {
    JobState& job = jobs_[index];
    if (job.grant_count == 0) continue;
    const double rate = rate_now(job);
    if (rate == job.rate) continue;
    if (job.phase != JobPhase::kRunning) {
      job.rate = rate;
      continue;
    }
    fold_progress(job);
    job.rate = rate;
    ++job.epoch;
    events_.push(now_ + std::max(0.0, job.remaining) / job.rate, kCompletionRank, index, job.epoch);
  }
}

}  // namespace clustersim::internal
