// Loading jobs into the engine: each job's state and record built where they stay, its VC and
// GPU type resolved, and the admission asked whether it can ever run (core/job_admission.h).
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "clustersim/engine_limits.h"
#include "clustersim/mig.h"
#include "core/engine.h"
#include "core/huge_pages.h"

namespace clustersim::internal {

// --- Loading jobs ------------------------------------------------------------------------------

void Engine::reject_or_throw(JobState& job, const char* field, const std::string& why) {
  if (!options_.reject_impossible) {
    const JobSpec& spec = *job.spec;
    std::string where =
        spec.source_line > 0 ? " (trace line " + std::to_string(spec.source_line) + ")" : "";
    throw ImpossibleJobError(job.index, spec.source_line, field,
                             "job '" + spec.id + "'" + where + " can never run: " + why);
  }
  job.phase = JobPhase::kRejected;
  records_[job.index].rejected = true;
  ++rejected_;
}

void Engine::load(std::span<const JobSpec> specs, JobAdmission& admission) {
  const bool first = !loaded_;
  loaded_ = true;
  const std::size_t before = jobs_.size();
  if (specs.size() >= std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("too many jobs");
  if (specs.size() < before) throw std::logic_error("a workload only grows");
  if (first) {
    for (const auto& vc : options_.cluster.vcs) {
      if (vc.gpu_quota <= 0)
        throw std::invalid_argument("cluster: VC '" + vc.name + "' needs a quota > 0");
      if (std::find(vc_names_.begin(), vc_names_.end(), vc.name) != vc_names_.end())
        throw std::invalid_argument("cluster: VC '" + vc.name + "' defined twice");
      vc_names_.push_back(vc.name);
    }
    type_count_ = cluster_.gpu_type_names().size();
    for (const std::string& name : cluster_.gpu_type_names()) {
      const auto slot = std::find(type_slot_names_.begin(), type_slot_names_.end(), name);
      type_name_slot_.push_back(static_cast<std::uint16_t>(slot - type_slot_names_.begin()));
      if (slot == type_slot_names_.end()) type_slot_names_.push_back(name);
    }
    type_node_.assign(type_count_, 0);
    for (std::uint32_t i = static_cast<std::uint32_t>(cluster_.nodes().size()); i-- > 0;)
      type_node_[cluster_.node(i).gpu_type] = i;  // the first node of each type
    if (options_.window && (options_.window->first > options_.window->last ||
                            options_.window->last >= std::max<std::size_t>(specs.size(), 1)))
      throw std::invalid_argument("the measurement window [" +
                                  std::to_string(options_.window->first) + ", " +
                                  std::to_string(options_.window->last) + "] is outside the " +
                                  std::to_string(specs.size()) + " jobs of the workload");
  }
  specs_ = specs;
  const std::size_t n = specs.size();
  for (std::size_t i = 0; i < before; ++i) jobs_[i].spec = &specs[i];  // the same jobs, moved
  // Each job's state and record are built where they stay, one job at a time (one pass over
  // their memory, not a zeroing pass and then a filling one).
  reserve_on_huge_pages(jobs_, n);
  reserve_on_huge_pages(records_, n);
  // Arrivals in (submit, index) order, listed as the jobs load (their states are still in
  // cache: a second pass over a million cold states cost 2% of a run); jobs not yet arrived are
  // re-sorted with the new ones only when they are out of order (traces and generators usually
  // list jobs in submit order already).
  const auto arrives_before = [&](std::uint32_t a, std::uint32_t b) {
    return jobs_[a].submit != jobs_[b].submit ? jobs_[a].submit < jobs_[b].submit : a < b;
  };
  reserve_on_huge_pages(arrival_order_, n);
  bool arrivals_sorted = true;
  for (std::size_t i = before; i < n; ++i) {
    jobs_.emplace_back();
    records_.emplace_back();
    const auto index = static_cast<std::uint32_t>(i);
    load_job(index, admission);
    measurement_.count_shape(jobs_[i]);
    if (jobs_[i].phase == JobPhase::kRejected) continue;
    if (arrival_order_.size() > next_arrival_ && !arrives_before(arrival_order_.back(), index))
      arrivals_sorted = false;
    arrival_order_.push_back(index);
  }
  if (first) {
    node_holders_.resize(cluster_.nodes().size());
    down_count_.assign(cluster_.nodes().size(), 0);
    offline_grant_.assign(cluster_.nodes().size(), Grant{});
    held_gpus_.assign(cluster_.nodes().size(), 0);
    node_marks_.assign(cluster_.nodes().size(), 0u);
  }
  overheads_.load(n);
  if (options_.mechanisms.checkpoint_write == MechanismOptions::CheckpointWrite::kAsync)
    writes_.resize(n);

  // (The config reader refuses a cluster of more GPUs first, naming its key; this guards the
  // engine's API and traces with more VCs.)
  if (vc_names_.size() >= (1u << 24) || type_count_ >= (1u << 15) ||
      cluster_.total_gpus() > kMaxClusterGpus)
    throw std::invalid_argument(
        "more VCs, GPU types or GPUs than the engine indexes: " + std::to_string(vc_names_.size()) +
        " VCs (at most " + std::to_string((1u << 24) - 1) + "), " + std::to_string(type_count_) +
        " GPU types (at most " + std::to_string((1u << 15) - 1) + "), " +
        std::to_string(cluster_.total_gpus()) + " GPUs (at most " +
        std::to_string(kMaxClusterGpus) + ")");
  vc_usage_.resize(vc_names_.size(), 0.0);

  // The throughput model's per-job lookups (e.g. its profile), once per job and GPU type.
  const ThroughputModel& model = speed_.model();
  if (model.resolves()) resolved_.resize(n * type_count_, nullptr);
  for (std::size_t i = before; i < n && !resolved_.empty(); ++i) {
    if (jobs_[i].phase == JobPhase::kRejected) continue;
    for (std::size_t t = 0; t < type_count_; ++t)
      resolved_[i * type_count_ + t] = model.resolve(specs[i], cluster_.gpu_type_names()[t]);
  }
  // A typed model: each job's speed on each type (0 where it cannot run); a job that can run on
  // no type that could hold it can never run.
  std::size_t model_rejected = 0;
  if (model.typed()) {
    type_speeds_.resize(n * type_count_, 0.0);
    for (std::size_t i = before; i < n; ++i) {
      JobState& job = jobs_[i];
      if (job.phase == JobPhase::kRejected || job.requested_gpus == 0) continue;
      int room = 0;
      for (std::size_t t = 0; t < type_count_; ++t) {
        const void* lookup = resolved_.empty() ? nullptr : resolved_[i * type_count_ + t];
        if (!model.can_run(lookup)) continue;
        type_speeds_[i * type_count_ + t] =
            rate_per_gpu(static_cast<std::uint32_t>(i), static_cast<int>(t), PerGpu{});
        if (job.gpu_type < 0 || job.gpu_type == static_cast<int>(t))
          room = std::max(room, cluster_.total_gpus(static_cast<int>(t)));
      }
      if (room < job.gpus) {
        ++model_rejected;
        reject_or_throw(job, "model",
                        room == 0
                            ? "its model cannot run on any GPU type it may use (throughput "
                              "model)"
                            : "it needs " + std::to_string(job.gpus) + " GPUs, the cluster has " +
                                  std::to_string(room) + " of any one type it can run on");
      }
    }
  }

  // Jobs the typed model rejected leave the arrivals; the rest arrive in order.
  const auto pending = arrival_order_.begin() + static_cast<std::ptrdiff_t>(next_arrival_);
  if (model_rejected > 0)
    arrival_order_.erase(
        std::remove_if(pending, arrival_order_.end(),
                       [&](std::uint32_t i) { return jobs_[i].phase == JobPhase::kRejected; }),
        arrival_order_.end());
  if (!arrivals_sorted) std::sort(pending, arrival_order_.end(), arrives_before);
  if (first && options_.window) {
    for (std::size_t i = options_.window->first; i <= options_.window->last; ++i)
      if (jobs_[i].phase != JobPhase::kRejected) ++window_left_;
  }

  if (type_slot_names_.size() > 1) type_gpu_seconds_.resize(n * type_slot_names_.size(), 0.0);
  resize_on_huge_pages(plan_stamp_, n, 0u);
  measurement_.resize(n);
  for (RateModel* model : rate_models_) model->jobs_loaded(before);
  resize_on_huge_pages(list_position_, n, 0u);
  if (first) {
    holders_.reserve(static_cast<std::size_t>(cluster_.total_gpus()));
    events_.reserve(static_cast<std::size_t>(cluster_.total_gpus()) * 2 + 16);
    old_grants_.reserve(cluster_.nodes().size());
  }
}

void Engine::load_job(std::uint32_t i, JobAdmission& admission) {
  const JobSpec& spec = specs_[i];
  JobState& job = jobs_[i];
  job.spec = &spec;
  job.index = i;
  job.gpus = job.requested_gpus = spec.num_gpus;
  if (spec.mig_profile != 0) {  // a MIG slice: 0 whole GPUs
    const int profile = spec.mig_profile;
    if (profile > static_cast<int>(kMigProfileNames.size()))
      throw std::invalid_argument("job '" + spec.id + "': mig_profile " + std::to_string(profile) +
                                  " is no profile of mig.h");
    if (spec.num_gpus != 1 || spec.gpu_milli != ClusterState::kMilliPerGpu)
      throw std::invalid_argument("job '" + spec.id +
                                  "': a MIG slice is one GPU's (num_gpus 1, no share)");
    job.mig = static_cast<std::uint8_t>(profile);
    job.gpus = job.requested_gpus = 0;
    ++small_jobs_;
  }
  // A share of one GPU runs as a share only with sharing on; else on a whole GPU (as before).
  if (options_.sharing.enabled() && spec.num_gpus == 1 && spec.gpu_milli >= 1 &&
      spec.gpu_milli < ClusterState::kMilliPerGpu) {
    job.milli = static_cast<std::int16_t>(spec.gpu_milli);
    job.gpus = job.requested_gpus = 0;
    ++small_jobs_;
  }
  if (spec.num_gpus == 0) ++small_jobs_;
  job.own_request = spec.cpus > 0.0 || spec.mem_gb > 0.0;
  job.submit = spec.submit_time;
  job.work = job.remaining = job.saved_remaining = spec.duration;
  JobRecord& record = records_[i];
  record.index = i;
  record.submit_time = spec.submit_time;
  record.num_gpus = spec.num_gpus;
  if (!std::isfinite(spec.submit_time) || !(spec.duration > 0.0) || !std::isfinite(spec.duration) ||
      spec.num_gpus < 0 || spec.cpus < 0.0 || spec.mem_gb < 0.0 || !(spec.gpu_mem_gb >= 0.0) ||
      !std::isfinite(spec.gpu_mem_gb))
    throw std::invalid_argument("job '" + spec.id +
                                "': invalid submit time, duration, GPUs, CPUs or memory");
  if (spec.gpu_milli < 1 || spec.gpu_milli > ClusterState::kMilliPerGpu)
    throw std::invalid_argument("job '" + spec.id + "': gpu_milli must be in 1..1000, got " +
                                std::to_string(spec.gpu_milli));
  if (spec.num_gpus == 0 && !(spec.cpus > 0.0))
    throw std::invalid_argument("job '" + spec.id + "': a job of 0 GPUs (CPU-only) needs cpus > 0");
  if (job.requested_gpus == 0 && (spec.min_gpus != 0 || spec.max_gpus != 0))
    throw std::invalid_argument("job '" + spec.id +
                                "': a CPU-only or fractional job cannot be elastic");
  if ((spec.min_gpus != 0 || spec.max_gpus != 0) &&
      (spec.min_gpus < 1 || spec.min_gpus > spec.num_gpus || spec.max_gpus < spec.num_gpus))
    throw std::invalid_argument("job '" + spec.id +
                                "': needs 1 <= min_gpus <= num_gpus <= max_gpus");
  if (!(spec.checkpoint_interval_s >= 0.0) || !std::isfinite(spec.checkpoint_interval_s))
    throw std::invalid_argument("job '" + spec.id + "': checkpoint_interval_s must be >= 0");
  any_job_checkpoint_interval_ = any_job_checkpoint_interval_ || spec.checkpoint_interval_s > 0.0;

  // Its VC: the cluster's VCs when it defines some (-1: not one of them), else discovered.
  auto found = std::find(vc_names_.begin(), vc_names_.end(), spec.vc);
  if (found != vc_names_.end()) {
    job.vc = static_cast<int>(found - vc_names_.begin());
  } else if (options_.cluster.vcs.empty()) {
    job.vc = static_cast<int>(vc_names_.size());
    vc_names_.push_back(spec.vc);
  } else {
    job.vc = -1;
  }
  if (job.vc >= 0 && !spec.gpu_type.empty()) {
    job.gpu_type = cluster_.find_gpu_type(spec.gpu_type);
    // A fleet (arrival_binder.h): the job gets its cluster's type as it arrives; until then the
    // largest type of that name, so that the load's checks ask whether any cluster could hold it.
    if (binder_)
      for (std::size_t t = 0; t < type_count_; ++t)
        if (cluster_.gpu_type_names()[t] == spec.gpu_type &&
            cluster_.total_gpus(static_cast<int>(t)) > cluster_.total_gpus(job.gpu_type))
          job.gpu_type = static_cast<int>(t);
  }
  if (auto rejection = admission.check(job, *this)) {
    if (job.vc < 0) job.vc = 0;
    reject_or_throw(job, rejection->field, rejection->why);
  }
}

}  // namespace clustersim::internal
