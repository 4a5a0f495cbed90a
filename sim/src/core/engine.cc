#include "core/engine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "core/scheduler.h"

namespace clustersim::internal {

namespace {

void validate_options(const SimOptions& options) {
  const auto& s = options.scheduler;
  if (!(s.lease_s > 0.0) || !std::isfinite(s.lease_s))
    throw std::invalid_argument("scheduler.lease_s must be > 0");
  if (!(s.checkpoint_s >= 0.0) || !std::isfinite(s.checkpoint_s))
    throw std::invalid_argument("scheduler.checkpoint_s must be >= 0");
  if (!(s.restore_s >= 0.0) || !std::isfinite(s.restore_s))
    throw std::invalid_argument("scheduler.restore_s must be >= 0");
  if (!(s.plan_interval_s >= 0.0) || !std::isfinite(s.plan_interval_s))
    throw std::invalid_argument("scheduler.plan_interval_s must be >= 0");
  if (!(s.realloc_s >= 0.0) || !std::isfinite(s.realloc_s))
    throw std::invalid_argument("scheduler.realloc_s must be >= 0");
  if (!(s.best_demand_tolerance >= 0.0) || !(s.best_demand_tolerance < 1.0))
    throw std::invalid_argument("scheduler.best_demand_tolerance must be in [0, 1)");
  if (!(options.sample_interval_s >= 0.0) || !std::isfinite(options.sample_interval_s))
    throw std::invalid_argument("metrics.sample_interval_s must be >= 0");
}

// Linear interpolation between closest ranks (numpy's default). Selects the two ranks with
// nth_element (linear time; no full sort); `values` is reordered.
double percentile(std::vector<double>& values, double q) {
  if (values.empty()) return 0.0;
  const double position = q * static_cast<double>(values.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const std::size_t upper = std::min(lower + 1, values.size() - 1);
  const auto at = [&](std::size_t k) {
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(k), values.end());
    return values[k];
  };
  const double low = at(lower);
  const double high =
      upper == lower
          ? low
          : *std::min_element(values.begin() + static_cast<std::ptrdiff_t>(upper), values.end());
  return low + (high - low) * (position - static_cast<double>(lower));
}

}  // namespace

Engine::Engine(const SimOptions& options, const std::vector<JobSpec>& specs)
    : options_(options), specs_(specs), cluster_(options.cluster), rng_(options.seed) {
  validate_options(options);
  placement_ = make_placement_policy(options.scheduler.placement, rng_);
  if (placement_->uses_free_gpu_prefix_sums()) cluster_.track_free_gpu_prefix_sums();
  if (options.throughput != nullptr) {
    throughput_ = options.throughput;
  } else {
    owned_throughput_ = make_placement_throughput_model(options.penalty);
    throughput_ = owned_throughput_.get();
  }
  scheduler_ = std::make_unique<Scheduler>(*this, options);
  load_jobs();
}

Engine::~Engine() = default;

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

void Engine::load_jobs() {
  if (specs_.size() >= std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("too many jobs");
  const auto& vcs = options_.cluster.vcs;
  quotas_enforced_ = !vcs.empty();
  for (const auto& vc : vcs) {
    if (vc.gpu_quota <= 0)
      throw std::invalid_argument("cluster: VC '" + vc.name + "' needs a quota > 0");
    if (std::find(vc_names_.begin(), vc_names_.end(), vc.name) != vc_names_.end())
      throw std::invalid_argument("cluster: VC '" + vc.name + "' defined twice");
    vc_names_.push_back(vc.name);
    vc_quota_.push_back(vc.gpu_quota);
  }
  type_count_ = cluster_.gpu_type_names().size();
  type_node_.assign(type_count_, 0);
  for (std::uint32_t i = static_cast<std::uint32_t>(cluster_.nodes().size()); i-- > 0;)
    type_node_[cluster_.node(i).gpu_type] = i;  // the first node of each type

  const std::size_t n = specs_.size();
  if (options_.window && (options_.window->first > options_.window->last ||
                          options_.window->last >= std::max<std::size_t>(n, 1)))
    throw std::invalid_argument("the measurement window [" +
                                std::to_string(options_.window->first) + ", " +
                                std::to_string(options_.window->last) + "] is outside the " +
                                std::to_string(n) + " jobs of the workload");
  jobs_.resize(n);
  records_.resize(n);
  std::vector<int> room_by_type;
  for (std::uint32_t i = 0; i < n; ++i) {
    const JobSpec& spec = specs_[i];
    JobState& job = jobs_[i];
    job.spec = &spec;
    job.index = i;
    job.gpus = spec.num_gpus;
    job.submit = spec.submit_time;
    job.work = job.remaining = spec.duration;
    JobRecord& record = records_[i];
    record.index = i;
    record.submit_time = spec.submit_time;
    record.num_gpus = spec.num_gpus;
    if (!std::isfinite(spec.submit_time) || !(spec.duration > 0.0) ||
        !std::isfinite(spec.duration) || spec.num_gpus < 1 || spec.cpus < 0.0 || spec.mem_gb < 0.0)
      throw std::invalid_argument("job '" + spec.id +
                                  "': invalid submit time, duration, GPUs, CPUs or memory");

    // VC: configured ones are enforced; without configuration, VCs are discovered for fair share.
    auto found = std::find(vc_names_.begin(), vc_names_.end(), spec.vc);
    if (found != vc_names_.end()) {
      job.vc = static_cast<int>(found - vc_names_.begin());
    } else if (!quotas_enforced_) {
      job.vc = static_cast<int>(vc_names_.size());
      vc_names_.push_back(spec.vc);
    } else {
      reject_or_throw(job, "vc", "its VC '" + spec.vc + "' is not defined in [cluster]");
      continue;
    }
    if (!spec.gpu_type.empty()) {
      job.gpu_type = cluster_.find_gpu_type(spec.gpu_type);
      if (job.gpu_type < 0) {
        reject_or_throw(job, "gpu_type", "the cluster has no GPUs of type '" + spec.gpu_type + "'");
        continue;
      }
    }
    // A job never mixes GPU types, so it must fit within one type.
    int room_of_one_type = 0;
    for (int type = 0; type < static_cast<int>(type_count_); ++type)
      if (job.gpu_type < 0 || job.gpu_type == type)
        room_of_one_type = std::max(room_of_one_type, cluster_.total_gpus(type));
    if (job.gpus > room_of_one_type) {
      reject_or_throw(job, "num_gpus",
                      "it needs " + std::to_string(job.gpus) + " GPUs, the cluster has " +
                          std::to_string(room_of_one_type) +
                          (job.gpu_type < 0 ? " of any one type" : ""));
      continue;
    }
    if (quotas_enforced_ && options_.scheduler.vc_quota == VcQuotaMode::kStrict &&
        job.gpus > vc_quota_[job.vc]) {
      reject_or_throw(job, "num_gpus",
                      "it needs " + std::to_string(job.gpus) + " GPUs, above its VC's quota of " +
                          std::to_string(static_cast<int>(vc_quota_[job.vc])));
      continue;
    }
    if (spec.cpus > 0.0 || spec.mem_gb > 0.0) {
      const PlacementRequest request = request_of(i);
      room_by_type.assign(type_count_, 0);
      for (const auto& node : cluster_.nodes())
        room_by_type[node.gpu_type] += cluster_.hostable_when_empty(node, request);
      if (*std::max_element(room_by_type.begin(), room_by_type.end()) < job.gpus) {
        reject_or_throw(job, spec.cpus > 0.0 ? "cpus" : "mem_gb",
                        "no set of nodes has the CPUs and memory it asks for with its GPUs");
        continue;
      }
    }
  }
  node_holders_.resize(cluster_.nodes().size());

  if (vc_names_.size() >= (1u << 24) || type_count_ >= (1u << 15) ||
      cluster_.total_gpus() >= (1 << 24))
    throw std::invalid_argument("more VCs, GPU types or GPUs than the engine indexes");
  if (!quotas_enforced_) vc_quota_.assign(vc_names_.size(), cluster_.total_gpus());
  const double total = cluster_.total_gpus();
  vc_usage_.assign(vc_names_.size(), 0.0);
  vc_weight_.resize(vc_names_.size());
  for (std::size_t v = 0; v < vc_names_.size(); ++v)
    vc_weight_[v] = quotas_enforced_ ? vc_quota_[v] / total : 1.0;

  // The throughput model's per-job lookups (e.g. its profile), once per job and GPU type.
  if (throughput_->resolves()) resolved_.assign(n * type_count_, nullptr);
  for (std::uint32_t i = 0; i < n && !resolved_.empty(); ++i) {
    if (jobs_[i].phase == JobPhase::kRejected) continue;
    for (std::size_t t = 0; t < type_count_; ++t)
      resolved_[i * type_count_ + t] =
          throughput_->resolve(specs_[i], cluster_.gpu_type_names()[t]);
  }

  arrival_order_.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i)
    if (jobs_[i].phase != JobPhase::kRejected) arrival_order_.push_back(i);
  const auto arrives_before = [&](std::uint32_t a, std::uint32_t b) {
    return jobs_[a].submit != jobs_[b].submit ? jobs_[a].submit < jobs_[b].submit : a < b;
  };
  // Traces and generators usually list jobs in submit order already.
  if (!std::is_sorted(arrival_order_.begin(), arrival_order_.end(), arrives_before))
    std::sort(arrival_order_.begin(), arrival_order_.end(), arrives_before);
  if (options_.window) {
    for (std::size_t i = options_.window->first; i <= options_.window->last; ++i)
      if (jobs_[i].phase != JobPhase::kRejected) ++window_left_;
  }

  plan_stamp_.assign(n, 0);
  holder_position_.assign(n, 0);
  int max_gpus = 1;
  for (const auto& job : jobs_) max_gpus = std::max(max_gpus, job.gpus);
  holders_.reserve(static_cast<std::size_t>(cluster_.total_gpus()));
  events_.reserve(static_cast<std::size_t>(cluster_.total_gpus()) * 2 + 16);
  old_grants_.reserve(cluster_.nodes().size());
  scheduler_->load(n, max_gpus, vc_names_.size());
}

// --- What deciders read -----------------------------------------------------------------------

PlacementRequest Engine::request_of(std::uint32_t index) const {
  const JobState& job = jobs_[index];
  PlacementRequest request;
  request.gpus = job.gpus;
  request.gpu_type = job.gpu_type;
  if (job.spec->cpus > 0.0) request.cpus_per_gpu = job.spec->cpus / job.gpus;
  if (job.spec->mem_gb > 0.0) request.mem_per_gpu = job.spec->mem_gb / job.gpus;
  return request;
}

std::span<const int> Engine::types_to_try(std::uint32_t index) {
  const JobState& job = jobs_[index];
  type_order_.clear();
  if (job.gpu_type >= 0 || type_count_ == 1) {
    type_order_.push_back(job.gpu_type >= 0 ? job.gpu_type : 0);
    return type_order_;
  }
  // A job never mixes GPU types: an untyped job goes to one type, the one with most free GPUs
  // first (ties: the type listed first).
  type_order_.resize(type_count_);
  std::iota(type_order_.begin(), type_order_.end(), 0);
  std::sort(type_order_.begin(), type_order_.end(), [&](int a, int b) {
    return cluster_.free_gpus(a) != cluster_.free_gpus(b)
               ? cluster_.free_gpus(a) > cluster_.free_gpus(b)
               : a < b;
  });
  std::size_t keep = 0;
  while (keep < type_order_.size() && cluster_.free_gpus(type_order_[keep]) >= job.gpus) ++keep;
  type_order_.resize(keep);
  return type_order_;
}

bool Engine::place(const PlacementRequest& request, std::vector<NodeShare>& out) {
  return placement_->place(request, cluster_, out);
}

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
  const Allocation allocation = allocation_of(grants);
  const int type = cluster_.node(grants.front().node).gpu_type;
  return throughput_->rate(*jobs_[index].spec, resolved(index, type), allocation);
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
  return throughput_->rate(*job.spec, resolved(index, gpu_type), allocation);
}

SensitivityAxes Engine::axes(std::uint32_t index, int gpu_type) const {
  return throughput_->axes(resolved(index, gpu_type));
}

// --- Applying a plan --------------------------------------------------------------------------

void Engine::check_change(const Plan& plan, const Plan::Change& change) {
  // Messages are built only on failure: applying a plan must not allocate.
  const auto fail = [&](const char* what) {
    throw std::logic_error("plan: job '" + jobs_[change.job].spec->id + "' " + what);
  };
  if (change.job >= jobs_.size())
    throw std::logic_error("plan: no job " + std::to_string(change.job));
  JobState& job = jobs_[change.job];
  if (plan_stamp_[change.job] == apply_number_) fail("is named twice");
  plan_stamp_[change.job] = apply_number_;
  if (change.grant_count == 0) {
    if (job.phase != JobPhase::kRunning) fail("is stopped but not running");
    return;
  }
  if (job.phase != JobPhase::kWaiting && job.phase != JobPhase::kRunning)
    fail("is changed while it neither waits nor runs");
  const std::size_t slots =
      std::min<std::size_t>(static_cast<std::size_t>(job.gpus), cluster_.nodes().size());
  if (change.grant_count > slots) fail("gets more grants than nodes");
  const auto grants = plan.grants(change);
  int gpus = 0;
  const int type = grants.front().node < cluster_.nodes().size()
                       ? cluster_.node(grants.front().node).gpu_type
                       : -1;
  for (std::size_t g = 0; g < grants.size(); ++g) {
    const Grant& grant = grants[g];
    if (grant.node >= cluster_.nodes().size() || grant.gpus <= 0)
      fail("gets an empty grant or one on no node");
    if (cluster_.node(grant.node).gpu_type != type) fail("would mix GPU types");
    for (std::size_t h = 0; h < g; ++h)
      if (grants[h].node == grant.node) fail("gets one node twice");
    gpus += grant.gpus;
  }
  if (gpus != job.gpus) fail("gets the wrong number of GPUs");
  if (job.gpu_type >= 0 && type != job.gpu_type) fail("gets GPUs of another type than it asks for");
}

void Engine::apply(const Plan& plan) {
  ++apply_number_;
  for (const auto& change : plan.changes()) check_change(plan, change);
  // Free before grant: a stop without checkpoint cost and a change give back what they held.
  const bool checkpoints = options_.scheduler.checkpoint_s > 0.0;
  for (const auto& change : plan.changes()) {
    const JobState& job = jobs_[change.job];
    if (job.phase == JobPhase::kRunning && (change.grant_count > 0 || !checkpoints))
      release_to_ledger(job);
  }
  for (const auto& change : plan.changes())
    for (const Grant& grant : plan.grants(change)) cluster_.allocate(grant);  // throws if over
  for (const auto& change : plan.changes()) {
    JobState& job = jobs_[change.job];
    if (change.grant_count == 0) {
      stop_job(job);
    } else if (job.phase == JobPhase::kWaiting) {
      take_holding(job, plan.grants(change));
      start_job(job);
    } else {
      const auto held = grants_of(job.index);
      old_grants_.assign(held.begin(), held.end());
      drop_holding(job);
      take_holding(job, plan.grants(change));
      change_job(job, old_grants_);
    }
  }
}

void Engine::release_to_ledger(const JobState& job) {
  for (const Grant& grant : grants_of(job.index)) cluster_.release(grant);
}

void Engine::take_holding(JobState& job, std::span<const Grant> grants) {
  job.grant_count = static_cast<std::uint32_t>(grants.size());
  job.grant_begin = grants_.allocate(job.grant_count);
  std::copy(grants.begin(), grants.end(), grants_.data() + job.grant_begin);
  for (const Grant& grant : grants) node_holders_[grant.node].push_back(job.index);
  records_[job.index].nodes = static_cast<int>(grants.size());
  vc_usage_[job.vc] += job.gpus;
  holder_position_[job.index] = static_cast<std::uint32_t>(holders_.size());
  holders_.push_back(job.index);
}

// Takes the job out of the holders' indexes (the ledger is handled by the caller).
void Engine::drop_holding(JobState& job) {
  for (const Grant& grant : grants_of(job.index)) {
    auto& list = node_holders_[grant.node];
    auto at = std::find(list.begin(), list.end(), job.index);
    *at = list.back();
    list.pop_back();
  }
  grants_.release(job.grant_begin, job.grant_count);
  job.grant_count = 0;
  vc_usage_[job.vc] -= job.gpus;
  const std::uint32_t position = holder_position_[job.index];
  holders_[position] = holders_.back();
  holder_position_[holders_[position]] = position;
  holders_.pop_back();
}

void Engine::set_rate(JobState& job) {
  job.rate = rate_if(job.index, grants_of(job.index));
  if (!(job.rate > 0.0) || !std::isfinite(job.rate))
    throw std::logic_error("throughput model returned a non-positive rate for job '" +
                           job.spec->id + "'");
}

void Engine::start_job(JobState& job) {
  set_rate(job);
  JobRecord& record = records_[job.index];
  record.queue_delay += now_ - job.phase_since;
  if (record.start_time < 0.0) record.start_time = now_;
  job.held_since = now_;
  if (record.preemptions > 0 && options_.scheduler.restore_s > 0.0) {
    job.phase = JobPhase::kRestoring;
    job.phase_since = now_;
    ++job.epoch;
    events_.push(now_ + options_.scheduler.restore_s, EventKind::kRestoreDone, job.index,
                 job.epoch);
  } else {
    begin_running(job.index);
  }
}

void Engine::stop_job(JobState& job) {
  job.remaining = std::max(0.0, job.remaining_at(now_));
  job.attained_time = job.attained_at(now_);
  job.progress_since = now_;
  job.phase = JobPhase::kCheckpointing;
  job.phase_since = now_;
  ++job.epoch;
  ++records_[job.index].preemptions;
  if (options_.scheduler.checkpoint_s > 0.0) {
    events_.push(now_ + options_.scheduler.checkpoint_s, EventKind::kCheckpointDone, job.index,
                 job.epoch);
  } else {
    // The ledger already has the resources back (apply frees before it grants).
    records_[job.index].overhead_gpu_seconds += job.gpus * (now_ - job.phase_since);
    records_[job.index].gpu_seconds += job.gpus * (now_ - job.held_since);
    drop_holding(job);
    job.phase = JobPhase::kWaiting;
    job.phase_since = now_;
    ++job.epoch;
    scheduler_->enqueue(job.index, now_);
  }
}

void Engine::change_job(JobState& job, std::span<const Grant> old_grants) {
  // Same GPUs on the same nodes: a re-allocation of CPU, memory or storage.
  bool same_gpus = old_grants.size() == job.grant_count;
  const auto now_held = grants_of(job.index);
  for (const Grant& old : old_grants) {
    bool found = false;
    for (const Grant& grant : now_held)
      found = found || (grant.node == old.node && grant.gpus == old.gpus);
    same_gpus = same_gpus && found;
  }
  if (!same_gpus)
    throw std::logic_error("plan: job '" + job.spec->id +
                           "' would move GPUs; migration is not modelled by this engine");
  job.remaining = std::max(0.0, job.remaining_at(now_));
  job.attained_time = job.attained_at(now_);
  job.progress_since = now_;
  ++reallocations_;
  set_rate(job);
  if (options_.scheduler.realloc_s > 0.0) {
    job.phase = JobPhase::kRestoring;
    job.phase_since = now_;
    ++job.epoch;
    events_.push(now_ + options_.scheduler.realloc_s, EventKind::kRestoreDone, job.index,
                 job.epoch);
  } else {
    begin_running(job.index);
  }
}

// --- Event handlers ---------------------------------------------------------------------------

void Engine::complete(std::uint32_t index) {
  JobState& job = jobs_[index];
  job.attained_time = job.attained_at(now_);
  job.remaining = 0.0;
  records_[index].finish_time = now_;
  release_to_ledger(job);
  records_[index].gpu_seconds += job.gpus * (now_ - job.held_since);
  drop_holding(job);
  job.phase = JobPhase::kFinished;
  ++job.epoch;
  --active_jobs_;
  scheduler_->note_released();
  if (options_.window && index >= options_.window->first && index <= options_.window->last) {
    --window_left_;
    window_end_ = now_;
  }
}

void Engine::finish_checkpoint(std::uint32_t index) {
  JobState& job = jobs_[index];
  records_[index].overhead_gpu_seconds += job.gpus * (now_ - job.phase_since);
  release_to_ledger(job);
  records_[index].gpu_seconds += job.gpus * (now_ - job.held_since);
  drop_holding(job);
  job.phase = JobPhase::kWaiting;
  job.phase_since = now_;
  ++job.epoch;
  scheduler_->enqueue(index, now_);
  scheduler_->note_released();
}

void Engine::begin_running(std::uint32_t index) {
  JobState& job = jobs_[index];
  if (job.phase == JobPhase::kRestoring)
    records_[index].overhead_gpu_seconds += job.gpus * (now_ - job.phase_since);
  job.phase = JobPhase::kRunning;
  job.phase_since = job.progress_since = now_;
  ++job.epoch;
  events_.push(now_ + std::max(0.0, job.remaining) / job.rate, EventKind::kCompletion, index,
               job.epoch);
}

// --- Main loop --------------------------------------------------------------------------------

void Engine::integrate_until(Time now) {
  const double waiting = static_cast<double>(scheduler_->waiting());
  queue_length_integral_ += waiting * (now - last_batch_time_);
  const Time from = std::max(last_batch_time_, measure_from_);
  if (now > from) {
    const double dt = now - from;
    busy_gpu_integral_ += (cluster_.total_gpus() - cluster_.free_gpus()) * dt;
    cpu_integral_ += cluster_.allocated_cpus() * dt;
    mem_integral_ += cluster_.allocated_mem_gb() * dt;
    storage_integral_ += cluster_.allocated_storage_mbps() * dt;
    window_queue_integral_ += waiting * dt;
  }
  last_batch_time_ = now;
}

RunResult Engine::run() {
  if (arrival_order_.empty()) return collect_results();
  first_submit_ = last_batch_time_ = jobs_[arrival_order_.front()].submit;
  measure_from_ = first_submit_;
  if (options_.window) {
    measure_from_ = std::numeric_limits<double>::infinity();
    for (std::size_t i = options_.window->first; i <= options_.window->last; ++i)
      if (jobs_[i].phase != JobPhase::kRejected)
        measure_from_ = std::min(measure_from_, jobs_[i].submit);
    if (window_left_ == 0) return collect_results();
  }
  const double sample_interval = options_.sample_interval_s;
  if (sample_interval > 0.0) events_.push(first_submit_, EventKind::kSample);

  while (next_arrival_ < arrival_order_.size() || !events_.empty()) {
    Time now = events_.empty() ? jobs_[arrival_order_[next_arrival_]].submit : events_.top().time;
    if (next_arrival_ < arrival_order_.size())
      now = std::min(now, jobs_[arrival_order_[next_arrival_]].submit);
    integrate_until(now);
    now_ = now;

    bool sample_due = false;
    bool round_event = false;
    bool plan_event = false;
    // Events before arrivals (completions and overheads), then arrivals, then rounds/samples.
    while (!events_.empty() && events_.top().time == now &&
           events_.top().kind < EventKind::kArrival) {
      const Event event = events_.pop();
      ++events_processed_;
      if (event.epoch != jobs_[event.job].epoch) continue;  // superseded by a change of plan
      switch (event.kind) {
        case EventKind::kCompletion:
          complete(event.job);
          break;
        case EventKind::kCheckpointDone:
          finish_checkpoint(event.job);
          break;
        case EventKind::kRestoreDone:
          begin_running(event.job);
          break;
        default:
          break;
      }
    }
    while (next_arrival_ < arrival_order_.size() &&
           jobs_[arrival_order_[next_arrival_]].submit == now) {
      const std::uint32_t index = arrival_order_[next_arrival_++];
      ++active_jobs_;
      JobState& job = jobs_[index];
      job.phase = JobPhase::kWaiting;
      job.phase_since = now;
      ++job.epoch;
      scheduler_->enqueue(index, now);
      ++events_processed_;
    }
    while (!events_.empty() && events_.top().time == now) {
      const Event event = events_.pop();
      ++events_processed_;
      if (event.kind == EventKind::kRound) round_event = true;
      if (event.kind == EventKind::kPlan) plan_event = true;
      if (event.kind == EventKind::kSample) sample_due = true;
    }
    if (options_.window && window_left_ == 0) {
      window_outlived_arrivals_ = next_arrival_ == arrival_order_.size();
      break;  // the window has drained: steady-state metrics are complete
    }
    scheduler_->plan(now, scheduler_->round_due(now, round_event), plan_event);
    if (auto round = scheduler_->next_round(now)) events_.push(*round, EventKind::kRound);
    if (auto plan = scheduler_->next_plan(now)) events_.push(*plan, EventKind::kPlan);
    if (options_.check_invariants) check_invariants();
    if (options_.observer) options_.observer(*this);
    if (sample_due) {
      take_sample();
      if (active_jobs_ > 0 || next_arrival_ < arrival_order_.size())
        events_.push(now + sample_interval, EventKind::kSample);
    }
    if (holders_.empty() && next_arrival_ == arrival_order_.size() && scheduler_->waiting() > 0 &&
        !scheduler_->plan_pending())
      throw std::logic_error("simulation stalled: jobs wait but nothing can ever free resources");
  }
  return collect_results();
}

// --- Measurement ------------------------------------------------------------------------------

void Engine::take_sample() {
  Sample sample;
  sample.time = now_;
  sample.idle_gpus = cluster_.free_gpus();
  sample.busy_gpus = cluster_.total_gpus() - sample.idle_gpus;
  sample.queue_length = static_cast<int>(scheduler_->waiting());
  sample.running_jobs = static_cast<int>(holders_.size());
  if (scheduler_->waiting() > 0) {
    // Fragmented: idle GPUs on nodes (of a type the head-of-queue job may use) whose idle count
    // is below what that job would need from one node.
    const JobState& head = jobs_[scheduler_->head_of_queue()];
    for (const auto& node : cluster_.nodes()) {
      if (head.gpu_type >= 0 && node.gpu_type != head.gpu_type) continue;
      if (node.free_gpus > 0 && node.free_gpus < std::min(head.gpus, node.gpus))
        sample.fragmented_gpus += node.free_gpus;
    }
  }
  if (now_ >= measure_from_) {
    fragmented_sum_ += sample.fragmented_gpus;
    ++sample_count_;
  }
  if (options_.record_samples) samples_.push_back(sample);
}

void Engine::check_invariants() const {
  const auto nodes = cluster_.nodes();
  std::vector<int> used(nodes.size(), 0);
  std::vector<double> cpus(nodes.size(), 0.0), mem(nodes.size(), 0.0), storage(nodes.size(), 0.0);
  std::vector<std::size_t> listed(nodes.size(), 0);
  std::vector<double> vc(vc_names_.size(), 0.0);
  for (std::uint32_t index : holders_) {
    const JobState& job = jobs_[index];
    if (!job.holds_gpus()) throw std::logic_error("invariant: a holder does not hold GPUs");
    int gpus = 0;
    for (const Grant& grant : grants_of(index)) {
      used[grant.node] += grant.gpus;
      cpus[grant.node] += grant.cpus;
      mem[grant.node] += grant.mem_gb;
      storage[grant.node] += grant.storage_mbps;
      gpus += grant.gpus;
      const auto& list = node_holders_[grant.node];
      if (std::count(list.begin(), list.end(), index) != 1)
        throw std::logic_error("invariant: the node index lost a holder");
      ++listed[grant.node];
    }
    if (gpus != job.gpus) throw std::logic_error("invariant: job holds the wrong number of GPUs");
    vc[job.vc] += job.gpus;
  }
  int free = 0;
  constexpr double kTolerance = 1e-6;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& node = nodes[i];
    if (node.free_gpus < 0 || used[i] + node.free_gpus != node.gpus)
      throw std::logic_error("invariant: GPUs of node " + std::to_string(i) +
                             " over-allocated or leaked");
    const auto over = [&](double held, double total, double left) {
      return total > 0.0 && (held > total * (1 + kTolerance) + kTolerance ||
                             std::abs(held + left - total) > kTolerance * (1 + total));
    };
    if (node.free_cpus < -kTolerance || node.free_mem_gb < -kTolerance ||
        node.free_storage_mbps < -kTolerance || over(cpus[i], node.cpus, node.free_cpus) ||
        over(mem[i], node.mem_gb, node.free_mem_gb) ||
        over(storage[i], node.storage_mbps, node.free_storage_mbps))
      throw std::logic_error("invariant: CPU, memory or storage of node " + std::to_string(i) +
                             " over-allocated or leaked");
    if (listed[i] != node_holders_[i].size())
      throw std::logic_error("invariant: the node index lists a job that holds nothing there");
    free += node.free_gpus;
  }
  if (free != cluster_.free_gpus()) throw std::logic_error("invariant: free GPU count drifted");
  cluster_.check_index();
  for (std::size_t v = 0; v < vc.size(); ++v) {
    if (vc[v] != vc_usage_[v]) throw std::logic_error("invariant: VC usage drifted");
    if (quotas_enforced_ && options_.scheduler.vc_quota == VcQuotaMode::kStrict &&
        vc[v] > vc_quota_[v])
      throw std::logic_error("invariant: VC '" + vc_names_[v] + "' above its quota");
  }
  scheduler_->check_invariants();
}

RunResult Engine::collect_results() {
  RunResult result;
  result.samples = std::move(samples_);
  result.window_outlived_arrivals = window_outlived_arrivals_;
  std::vector<double> jcts, queues;
  jcts.reserve(jobs_.size());
  queues.reserve(jobs_.size());
  RunMetrics& m = result.metrics;
  Time last_finish = first_submit_;
  const bool windowed = options_.window.has_value();
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    JobRecord& record = records_[i];
    if (jobs_[i].phase != JobPhase::kFinished) {
      // What a job that did not finish accumulated is not reported (as if it never ran).
      record.start_time = record.finish_time = -1.0;
      record.queue_delay = record.gpu_seconds = record.overhead_gpu_seconds = 0.0;
      record.preemptions = record.nodes = 0;
      continue;
    }
    record.jct = record.finish_time - record.submit_time;
    if (windowed && (i < options_.window->first || i > options_.window->last)) continue;
    jcts.push_back(record.jct);
    queues.push_back(record.queue_delay);
    m.gpu_seconds += record.gpu_seconds;
    m.overhead_gpu_seconds += record.overhead_gpu_seconds;
    m.preemptions += static_cast<std::size_t>(record.preemptions);
    last_finish = std::max(last_finish, record.finish_time);
  }
  m.jobs = jcts.size();
  m.rejected = rejected_;
  m.window_jobs = windowed ? options_.window->last - options_.window->first + 1 : jobs_.size();
  if (!jcts.empty()) {
    m.jct_mean = std::accumulate(jcts.begin(), jcts.end(), 0.0) / static_cast<double>(jcts.size());
    m.queue_mean =
        std::accumulate(queues.begin(), queues.end(), 0.0) / static_cast<double>(queues.size());
    m.jct_p50 = percentile(jcts, 0.50);
    m.jct_p95 = percentile(jcts, 0.95);
    m.jct_p99 = percentile(jcts, 0.99);
    m.jct_max = *std::max_element(jcts.begin(), jcts.end());
    m.queue_p50 = percentile(queues, 0.50);
    m.queue_p99 = percentile(queues, 0.99);
    // Without a window: the whole run. With one: from the window's first submit to its last
    // finish, and utilisation from what the whole cluster held over that span.
    const Time end = windowed ? window_end_ : last_finish;
    m.makespan = end - measure_from_;
    if (m.makespan > 0.0) {
      const auto util = [&](double integral, double total) {
        return total > 0.0 ? integral / (total * m.makespan) : 0.0;
      };
      m.gpu_util = windowed ? util(busy_gpu_integral_, cluster_.total_gpus())
                            : m.gpu_seconds / (cluster_.total_gpus() * m.makespan);
      m.queue_len_mean = (windowed ? window_queue_integral_ : queue_length_integral_) / m.makespan;
      m.cpu_util = util(cpu_integral_, cluster_.total_cpus());
      m.mem_util = util(mem_integral_, cluster_.total_mem_gb());
      m.storage_util = util(storage_integral_, cluster_.total_storage_mbps());
    }
  }
  if (sample_count_ > 0) m.frag_mean = fragmented_sum_ / static_cast<double>(sample_count_);
  m.events = events_processed_;
  m.rounds = scheduler_->rounds();
  m.reallocations = reallocations_;
  m.window_overloaded = window_outlived_arrivals_ ? 1 : 0;
  scheduler_->report(m);
  result.jobs = std::move(records_);  // no second copy of the per-job state
  return result;
}

}  // namespace clustersim::internal
