#include "core/engine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "clustersim/profile.h"
#include "core/scheduler.h"
#include "core/summary_stats.h"

namespace clustersim::internal {

namespace {

void validate_options(const SimOptions& options) {
  const auto& s = options.scheduler;
  if (!(s.lease_s >= 0.0) || !std::isfinite(s.lease_s))
    throw std::invalid_argument("scheduler.lease_s must be >= 0");
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
  const auto& m = options.mechanisms;
  if (!(m.defrag_threshold >= 0.0) || !(m.defrag_threshold <= 1.0))
    throw std::invalid_argument("mechanisms.defrag_threshold must be in [0, 1]");
  if (!(m.defrag_period_s > 0.0) || !std::isfinite(m.defrag_period_s))
    throw std::invalid_argument("mechanisms.defrag_period_s must be > 0");
  if (m.defrag_max_moves < 1)
    throw std::invalid_argument("mechanisms.defrag_max_moves must be >= 1");
  if (!(m.parallel_fraction >= 0.0) || !(m.parallel_fraction <= 1.0))
    throw std::invalid_argument("mechanisms.parallel_fraction must be in [0, 1]");
  for (const auto& [model, points] : m.scaling) {
    for (std::size_t i = 0; i < points.size(); ++i)
      if (points[i].first < 1 || !(points[i].second > 0.0) ||
          (i > 0 && points[i].first <= points[i - 1].first))
        throw std::invalid_argument("mechanisms.scaling." + model +
                                    ": expected [GPUs, speed-up] pairs, GPUs ascending, "
                                    "speed-ups > 0");
    if (points.empty()) throw std::invalid_argument("mechanisms.scaling." + model + " is empty");
  }
  if (!(m.checkpoint_interval_s >= 0.0) || !std::isfinite(m.checkpoint_interval_s))
    throw std::invalid_argument("mechanisms.checkpoint_interval_s must be >= 0");
  if (!(m.mtbf_h >= 0.0) || !std::isfinite(m.mtbf_h))
    throw std::invalid_argument("mechanisms.mtbf_h must be >= 0");
  const auto nodes = static_cast<std::uint32_t>(options.cluster.total_nodes());
  for (const NodeOutage& outage : m.failure_trace)
    if (outage.node >= nodes || !(outage.down >= 0.0) || !(outage.up > outage.down) ||
        !std::isfinite(outage.up))
      throw std::invalid_argument(
          "mechanisms.failure_trace: an outage needs a node of the "
          "cluster and 0 <= down < up");
}

// Picks a stream of its own for each mechanism's randomness from the run's seed, so that turning
// one on leaves every other draw as it was.
std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t salt) {
  std::uint64_t state = seed ^ salt;
  return splitmix64(state);
}

}  // namespace

Engine::Engine(const SimOptions& options, const std::vector<JobSpec>& specs)
    : options_(options),
      specs_(specs),
      cluster_(options.cluster),
      rng_(options.seed),
      overheads_(options, stream_seed(options.seed, 0x0e7e4eadULL)) {
  validate_options(options);
  elastic_ = options.mechanisms.elastic;
  if (options.mechanisms.mtbf_h > 0.0)
    failures_ = std::make_unique<FailureProcess>(options.mechanisms, cluster_.nodes().size(),
                                                 stream_seed(options.seed, 0xfa11ed0dULL));
  stop_when_idle_ = options.mechanisms.fails();
  placement_ = make_placement_policy(options.scheduler.placement, rng_);
  if (options.scheduler.strict_locality && !placement_->consolidates())
    throw std::invalid_argument(
        "scheduler.strict_locality needs a placement that keeps jobs on the fewest nodes "
        "(consolidate), not " +
        options.scheduler.placement);
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
  type_gpus_per_node_.assign(type_count_, 1);
  for (std::uint32_t i = static_cast<std::uint32_t>(cluster_.nodes().size()); i-- > 0;) {
    const auto& node = cluster_.node(i);
    type_node_[node.gpu_type] = i;  // the first node of each type
    type_gpus_per_node_[node.gpu_type] = std::max(type_gpus_per_node_[node.gpu_type], node.gpus);
  }

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
    job.work = job.remaining = job.saved_remaining = spec.duration;
    JobRecord& record = records_[i];
    record.index = i;
    record.submit_time = spec.submit_time;
    record.num_gpus = spec.num_gpus;
    if (!std::isfinite(spec.submit_time) || !(spec.duration > 0.0) ||
        !std::isfinite(spec.duration) || spec.num_gpus < 1 || spec.cpus < 0.0 || spec.mem_gb < 0.0)
      throw std::invalid_argument("job '" + spec.id +
                                  "': invalid submit time, duration, GPUs, CPUs or memory");
    if ((spec.min_gpus != 0 || spec.max_gpus != 0) &&
        (spec.min_gpus < 1 || spec.min_gpus > spec.num_gpus || spec.max_gpus < spec.num_gpus))
      throw std::invalid_argument("job '" + spec.id +
                                  "': needs 1 <= min_gpus <= num_gpus <= max_gpus");
    if (!(spec.checkpoint_interval_s >= 0.0) || !std::isfinite(spec.checkpoint_interval_s))
      throw std::invalid_argument("job '" + spec.id + "': checkpoint_interval_s must be >= 0");

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
  overheads_.load(n);
  if (options_.mechanisms.fails()) down_count_.assign(cluster_.nodes().size(), 0);

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
  const SchedulerOptions& s = options_.scheduler;
  request.fewest_nodes = s.strict_locality && job.phase == JobPhase::kWaiting &&
                         (s.locality_relax_s <= 0.0 || now_ - job.phase_since < s.locality_relax_s);
  // Per GPU of its request: an elastic job keeps the same share per GPU at any size.
  if (job.spec->cpus > 0.0) request.cpus_per_gpu = job.spec->cpus / job.spec->num_gpus;
  if (job.spec->mem_gb > 0.0) request.mem_per_gpu = job.spec->mem_gb / job.spec->num_gpus;
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
  if (!placement_->place(request, cluster_, out)) return false;
  return !request.fewest_nodes || out.size() <= fewest_nodes(request.gpu_type, request.gpus);
}

bool Engine::room_on_fewest_nodes(std::uint32_t job) {
  PlacementRequest request = request_of(job);
  for (int type : types_to_try(job)) {
    request.gpu_type = type;
    if (cluster_.room_on_nodes(request, fewest_nodes(type, request.gpus))) return true;
  }
  return false;
}

std::size_t Engine::fewest_nodes(int gpu_type, int gpus) const {
  const int per_node = type_gpus_per_node_[gpu_type];
  return static_cast<std::size_t>((gpus + per_node - 1) / per_node);
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
  const JobState& job = jobs_[index];
  const double rate = throughput_->rate(*job.spec, resolved(index, type), allocation);
  return allocation.gpus == job.spec->num_gpus ? rate : rate * scaling_factor(job, allocation.gpus);
}

double Engine::scaling_factor(const JobState& job, int gpus) const {
  const auto& m = options_.mechanisms;
  const auto speedup = [&](int g) {
    if (!m.scaling.empty()) {
      const auto found = m.scaling.find(normalize_model_name(job.spec->model));
      if (found != m.scaling.end()) {
        const auto& points = found->second;
        if (g <= points.front().first) return points.front().second;
        if (g >= points.back().first) return points.back().second;
        std::size_t i = 1;
        while (points[i].first < g) ++i;
        const auto& [g0, s0] = points[i - 1];
        const auto& [g1, s1] = points[i];
        return s0 + (s1 - s0) * (g - g0) / static_cast<double>(g1 - g0);
      }
    }
    return 1.0 / ((1.0 - m.parallel_fraction) + m.parallel_fraction / g);  // Amdahl
  };
  return speedup(gpus) / speedup(job.spec->num_gpus);
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
  if (change.grant_count > cluster_.nodes().size()) fail("gets more grants than nodes");
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
  // An elastic job may run with any count in its range; it starts with the one it asks for.
  const bool resizable = job.phase == JobPhase::kRunning && is_elastic(change.job);
  if (gpus != job.gpus &&
      (!resizable || gpus < min_gpus(change.job) || gpus > max_gpus(change.job)))
    fail("gets the wrong number of GPUs");
  if (job.gpu_type >= 0 && type != job.gpu_type) fail("gets GPUs of another type than it asks for");
}

void Engine::apply(const Plan& plan) {
  ++apply_number_;
  for (const auto& change : plan.changes()) check_change(plan, change);
  // Free before grant: a stop without checkpoint time and a change give back what they held.
  // (Each stop's checkpoint time is found here, in plan order: an empirical one is a draw.)
  stop_seconds_.clear();
  for (const auto& change : plan.changes()) {
    JobState& job = jobs_[change.job];
    if (change.grant_count == 0) {
      stop_seconds_.push_back(overheads_.seconds(OverheadKind::kCheckpoint, job.index, *job.spec));
      if (stop_seconds_.back() > 0.0) continue;
    }
    if (job.phase == JobPhase::kRunning) release_to_ledger(job);
  }
  for (const auto& change : plan.changes())
    for (const Grant& grant : plan.grants(change)) cluster_.allocate(grant);  // throws if over
  std::size_t stops = 0;
  for (const auto& change : plan.changes()) {
    JobState& job = jobs_[change.job];
    if (change.grant_count == 0) {
      stop_job(job, stop_seconds_[stops++]);
    } else if (job.phase == JobPhase::kWaiting) {
      take_holding(job, plan.grants(change));
      start_job(job);
    } else {
      fold_progress(job);
      int gpus = 0;
      for (const Grant& grant : plan.grants(change)) gpus += grant.gpus;
      const bool resized = gpus != job.gpus;
      if (resized) fold_held(job);  // GPU-seconds at the old count
      const auto held = grants_of(job.index);
      old_grants_.assign(held.begin(), held.end());
      drop_holding(job);
      job.gpus = gpus;
      take_holding(job, plan.grants(change));
      change_job(job, old_grants_, resized);
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

// --- Transitions' bookkeeping -----------------------------------------------------------------

void Engine::fold_progress(JobState& job) {
  if (job.phase != JobPhase::kRunning) return;
  const double ran = now_ - job.progress_since;
  job.remaining = std::max(0.0, job.remaining_at(now_));
  job.attained_time = job.attained_at(now_);
  job.progress_since = now_;
  job.run_since_save += ran;
  job.unsaved_gpu_seconds += job.gpus * ran;
  progress_gpu_seconds_ += job.gpus * ran;
}

void Engine::charge(JobState& job, OverheadKind kind, double gpu_seconds) {
  JobRecord& record = records_[job.index];
  record.overhead_gpu_seconds += gpu_seconds;
  switch (kind) {
    case OverheadKind::kCheckpoint:
      record.checkpoint_gpu_seconds += gpu_seconds;
      break;
    case OverheadKind::kRestore:
      record.restore_gpu_seconds += gpu_seconds;
      break;
    case OverheadKind::kMigration:
      record.migration_gpu_seconds += gpu_seconds;
      break;
    case OverheadKind::kResize:
      record.resize_gpu_seconds += gpu_seconds;
      break;
    case OverheadKind::kRealloc:
      record.realloc_gpu_seconds += gpu_seconds;
      break;
  }
  overhead_gpu_seconds_ += gpu_seconds;
}

void Engine::fold_held(JobState& job) {
  const double held = job.gpus * (now_ - job.held_since);
  records_[job.index].gpu_seconds += held;
  held_gpu_seconds_ += held;
  job.held_since = now_;
}

void Engine::pause(JobState& job, OverheadKind kind, double seconds) {
  job.pause = kind;
  if (seconds > 0.0) {
    job.phase = JobPhase::kRestoring;
    job.phase_since = now_;
    ++job.epoch;
    events_.push(now_ + seconds, EventKind::kRestoreDone, job.index, job.epoch);
    return;
  }
  if (kind == OverheadKind::kCheckpoint) {
    commit_save(job);
    ++checkpoints_;
  }
  begin_running(job.index);
}

void Engine::commit_save(JobState& job) {
  job.has_checkpoint = true;
  job.saved_remaining = job.remaining;
  job.run_since_save = 0.0;
  job.unsaved_gpu_seconds = 0.0;
}

void Engine::schedule_save(JobState& job) {
  const double interval = checkpoint_interval(job);
  if (interval <= 0.0) return;
  const double due = now_ + std::max(0.0, interval - job.run_since_save);
  if (due < now_ + job.remaining / job.rate)
    events_.push(due, EventKind::kSaveDue, job.index, job.epoch);
}

void Engine::requeue(JobState& job) {
  drop_holding(job);
  job.gpus = job.spec->num_gpus;  // an elastic job asks for its request again
  job.phase = JobPhase::kWaiting;
  job.phase_since = now_;
  ++job.epoch;
  scheduler_->enqueue(job.index, now_);
}

// --- Starting, stopping, changing -------------------------------------------------------------

void Engine::start_job(JobState& job) {
  set_rate(job);
  JobRecord& record = records_[job.index];
  record.queue_delay += now_ - job.phase_since;
  if (record.start_time < 0.0) record.start_time = now_;
  job.held_since = now_;
  if (job.has_checkpoint) {
    pause(job, OverheadKind::kRestore,
          overheads_.seconds(OverheadKind::kRestore, job.index, *job.spec));
  } else {
    begin_running(job.index);
  }
}

void Engine::stop_job(JobState& job, double checkpoint_seconds) {
  fold_progress(job);
  job.phase = JobPhase::kCheckpointing;
  job.phase_since = now_;
  ++job.epoch;
  ++records_[job.index].preemptions;
  if (checkpoint_seconds > 0.0) {
    events_.push(now_ + checkpoint_seconds, EventKind::kCheckpointDone, job.index, job.epoch);
  } else {
    // The ledger already has the resources back (apply frees before it grants).
    charge(job, OverheadKind::kCheckpoint, job.gpus * (now_ - job.phase_since));
    commit_save(job);
    fold_held(job);
    requeue(job);
  }
}

void Engine::change_job(JobState& job, std::span<const Grant> old_grants, bool resized) {
  // Same GPUs on the same nodes: a re-allocation of CPU, memory or storage.
  bool same_gpus = old_grants.size() == job.grant_count;
  const auto now_held = grants_of(job.index);
  for (const Grant& old : old_grants) {
    bool found = false;
    for (const Grant& grant : now_held)
      found = found || (grant.node == old.node && grant.gpus == old.gpus);
    same_gpus = same_gpus && found;
  }
  set_rate(job);
  if (same_gpus) {
    ++reallocations_;
    pause(job, OverheadKind::kRealloc,
          overheads_.seconds(OverheadKind::kRealloc, job.index, *job.spec));
    return;
  }
  if (not_begun(job)) {  // it starts on its new GPUs: nothing to move, no cost
    begin_running(job.index);
    return;
  }
  // Moving or resizing restarts the job from its state as of now: a save, then a restore.
  commit_save(job);
  const OverheadKind kind = resized ? OverheadKind::kResize : OverheadKind::kMigration;
  ++(resized ? records_[job.index].resizes : records_[job.index].migrations);
  pause(job, kind, overheads_.seconds(kind, job.index, *job.spec));
}

// --- Event handlers ---------------------------------------------------------------------------

void Engine::complete(std::uint32_t index) {
  JobState& job = jobs_[index];
  progress_gpu_seconds_ += job.gpus * (now_ - job.progress_since);
  job.attained_time = job.attained_at(now_);
  job.remaining = 0.0;
  records_[index].finish_time = now_;
  release_to_ledger(job);
  fold_held(job);
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
  charge(job, OverheadKind::kCheckpoint, job.gpus * (now_ - job.phase_since));
  commit_save(job);
  release_to_ledger(job);
  fold_held(job);
  requeue(job);
  scheduler_->note_released();
}

void Engine::begin_running(std::uint32_t index) {
  JobState& job = jobs_[index];
  if (job.phase == JobPhase::kRestoring) {
    charge(job, job.pause, job.gpus * (now_ - job.phase_since));
    if (job.pause == OverheadKind::kCheckpoint) {
      commit_save(job);  // a periodic checkpoint is complete
      ++checkpoints_;
    }
  }
  job.phase = JobPhase::kRunning;
  job.phase_since = job.progress_since = now_;
  ++job.epoch;
  events_.push(now_ + std::max(0.0, job.remaining) / job.rate, EventKind::kCompletion, index,
               job.epoch);
  schedule_save(job);
}

void Engine::save_due(std::uint32_t index) {
  JobState& job = jobs_[index];
  fold_progress(job);
  pause(job, OverheadKind::kCheckpoint,
        overheads_.seconds(OverheadKind::kCheckpoint, index, *job.spec));
}

// A job on a failed node loses what it did since its last saved state, gives back everything
// it holds (on every node) and waits again; what it spent on overheads stays spent.
void Engine::fail_job(JobState& job) {
  if (job.phase == JobPhase::kRunning) {
    fold_progress(job);
  } else if (job.phase == JobPhase::kRestoring) {
    charge(job, job.pause, job.gpus * (now_ - job.phase_since));  // a save under way is lost
  } else {
    charge(job, OverheadKind::kCheckpoint, job.gpus * (now_ - job.phase_since));
  }
  JobRecord& record = records_[job.index];
  record.lost_gpu_seconds += job.unsaved_gpu_seconds;
  ++record.failures;
  job.remaining = job.saved_remaining;
  job.unsaved_gpu_seconds = 0.0;
  job.run_since_save = 0.0;
  release_to_ledger(job);
  fold_held(job);
  requeue(job);
}

void Engine::node_down(std::uint32_t node, bool generated) {
  if (down_count_[node]++ == 0) {
    ++node_failures_;
    const auto on_node = node_holders_[node];
    failing_.assign(on_node.begin(), on_node.end());
    for (std::uint32_t index : failing_) fail_job(jobs_[index]);
    // Down: the node's resources are held by no job until it is repaired.
    const auto& n = cluster_.node(node);
    offline_grant_[node] =
        Grant{node, n.free_gpus, n.free_cpus, n.free_mem_gb, n.free_storage_mbps};
    cluster_.allocate(offline_grant_[node]);
    ++offline_nodes_;
    offline_gpus_ += n.gpus;
    if (!failing_.empty()) scheduler_->note_released();
  } else if (generated) {
    ++node_failures_;  // a second outage while down (it extends the outage)
  }
  if (generated) events_.push(now_ + failures_->repair_s(), EventKind::kNodeUp, node, 1);
}

void Engine::node_up(std::uint32_t node, bool generated) {
  if (--down_count_[node] == 0) {
    cluster_.release(offline_grant_[node]);
    --offline_nodes_;
    offline_gpus_ -= cluster_.node(node).gpus;
    scheduler_->note_released();
  }
  if (generated) events_.push(now_ + failures_->next_uptime(node), EventKind::kNodeDown, node, 1);
}

void Engine::start_failures() {
  offline_grant_.assign(cluster_.nodes().size(), Grant{});
  // Event `epoch` tells generated outages (1) from replayed ones (0).
  for (const NodeOutage& outage : options_.mechanisms.failure_trace) {
    events_.push(outage.down, EventKind::kNodeDown, outage.node, 0);
    events_.push(outage.up, EventKind::kNodeUp, outage.node, 0);
  }
  if (failures_)
    for (std::uint32_t node = 0; node < cluster_.nodes().size(); ++node)
      events_.push(first_submit_ + failures_->next_uptime(node), EventKind::kNodeDown, node, 1);
}

// --- Main loop --------------------------------------------------------------------------------

void Engine::integrate_until(Time now) {
  const double waiting = static_cast<double>(scheduler_->waiting());
  queue_length_integral_ += waiting * (now - last_batch_time_);
  // GPUs jobs hold (a node down is held by its outage, not by a job).
  const int busy = cluster_.total_gpus() - cluster_.free_gpus() - offline_gpus_;
  if (now > last_batch_time_) ledger_gpu_seconds_ += busy * (now - last_batch_time_);
  const Time from = std::max(last_batch_time_, measure_from_);
  if (now > from) {
    const double dt = now - from;
    busy_gpu_integral_ += busy * dt;
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
  if (options_.mechanisms.fails()) start_failures();

  while (next_arrival_ < arrival_order_.size() || !events_.empty()) {
    // Failures never run out: the run ends when every job has left.
    if (stop_when_idle_ && active_jobs_ == 0 && next_arrival_ == arrival_order_.size()) break;
    Time now = events_.empty() ? jobs_[arrival_order_[next_arrival_]].submit : events_.top().time;
    if (next_arrival_ < arrival_order_.size())
      now = std::min(now, jobs_[arrival_order_[next_arrival_]].submit);
    integrate_until(now);
    now_ = now;

    bool sample_due = false;
    bool round_event = false;
    bool plan_event = false;
    bool defrag_event = false;
    bool jobs_came_or_went = false;  // an arrival, a completion or a failure (lease_s = 0)
    // Events before arrivals (completions, overheads, failures), then arrivals, then
    // rounds/samples.
    while (!events_.empty() && events_.top().time == now &&
           events_.top().kind < EventKind::kArrival) {
      const Event event = events_.pop();
      ++events_processed_;
      // A job's event superseded by a change of plan is stale (node events carry no epoch).
      if (event.kind <= EventKind::kSaveDue && event.epoch != jobs_[event.job].epoch) continue;
      switch (event.kind) {
        case EventKind::kCompletion:
          complete(event.job);
          jobs_came_or_went = true;
          break;
        case EventKind::kCheckpointDone:
          finish_checkpoint(event.job);
          break;
        case EventKind::kRestoreDone:
          begin_running(event.job);
          break;
        case EventKind::kSaveDue:
          save_due(event.job);
          break;
        case EventKind::kNodeDown:
          node_down(event.job, event.epoch == 1);
          jobs_came_or_went = true;
          break;
        case EventKind::kNodeUp:
          node_up(event.job, event.epoch == 1);
          jobs_came_or_went = true;
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
      scheduler_->note_arrival(index);
      ++events_processed_;
      jobs_came_or_went = true;
    }
    while (!events_.empty() && events_.top().time == now) {
      const Event event = events_.pop();
      ++events_processed_;
      if (event.kind == EventKind::kRound) round_event = true;
      if (event.kind == EventKind::kPlan) plan_event = true;
      if (event.kind == EventKind::kDefrag) defrag_event = true;
      if (event.kind == EventKind::kSample) sample_due = true;
    }
    if (options_.window && window_left_ == 0) {
      window_outlived_arrivals_ = next_arrival_ == arrival_order_.size();
      break;  // the window has drained: steady-state metrics are complete
    }
    scheduler_->plan(now, scheduler_->round_due(now, round_event, jobs_came_or_went), plan_event,
                     defrag_event);
    if (auto round = scheduler_->next_round(now)) events_.push(*round, EventKind::kRound);
    if (auto plan = scheduler_->next_plan(now)) events_.push(*plan, EventKind::kPlan);
    if (auto defrag = scheduler_->next_defrag(now)) events_.push(*defrag, EventKind::kDefrag);
    if (options_.check_invariants) check_invariants();
    if (options_.observer) options_.observer(*this);
    if (sample_due) {
      take_sample();
      if (active_jobs_ > 0 || next_arrival_ < arrival_order_.size())
        events_.push(now + sample_interval, EventKind::kSample);
    }
    if (holders_.empty() && next_arrival_ == arrival_order_.size() && scheduler_->waiting() > 0 &&
        !scheduler_->plan_pending() && offline_nodes_ == 0)
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
    sample.fragmented_gpus = cluster_.fragmented_gpus(head.gpu_type, head.gpus);
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
    if (job.gpus != job.spec->num_gpus &&
        !(is_elastic(index) && job.gpus >= min_gpus(index) && job.gpus <= max_gpus(index)))
      throw std::logic_error("invariant: a job holds a GPU count outside its range");
    vc[job.vc] += job.gpus;
  }
  std::size_t offline = 0;
  for (std::size_t i = 0; i < down_count_.size(); ++i) {
    if (down_count_[i] == 0) continue;
    ++offline;
    const Grant& outage = offline_grant_[i];
    if (!node_holders_[i].empty() || outage.gpus != nodes[i].gpus)
      throw std::logic_error("invariant: a node that is down hosts a job");
    used[i] += outage.gpus;
    cpus[i] += outage.cpus;
    mem[i] += outage.mem_gb;
    storage[i] += outage.storage_mbps;
  }
  if (offline != offline_nodes_) throw std::logic_error("invariant: offline node count drifted");
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
  check_work_conservation();
}

// GPU-seconds held by jobs, three ways: as the ledger's busy GPUs integrate them, as jobs'
// holdings sum them, and as progress plus every charged overhead (lost work is progress that a
// failure took back). The three must agree.
void Engine::check_work_conservation() const {
  double held = held_gpu_seconds_, progress = progress_gpu_seconds_,
         overhead = overhead_gpu_seconds_;
  for (std::uint32_t index : holders_) {
    const JobState& job = jobs_[index];
    held += job.gpus * (now_ - job.held_since);
    if (job.phase == JobPhase::kRunning) {
      progress += job.gpus * (now_ - job.progress_since);
    } else {
      overhead += job.gpus * (now_ - job.phase_since);
    }
  }
  const auto differ = [](double a, double b) {
    return std::abs(a - b) > 1e-9 * std::max({1.0, std::abs(a), std::abs(b)});
  };
  if (differ(held, ledger_gpu_seconds_))
    throw std::logic_error("invariant: GPU-seconds held by jobs differ from the ledger's");
  if (differ(held, progress + overhead))
    throw std::logic_error(
        "invariant: work conservation: GPU-seconds held != progress + overheads");
}

RunResult Engine::collect_results() {
  if (options_.check_invariants) check_work_conservation();
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
      record.migrations = record.resizes = record.failures = 0;
      record.lost_gpu_seconds = record.checkpoint_gpu_seconds = record.restore_gpu_seconds =
          record.migration_gpu_seconds = record.resize_gpu_seconds = record.realloc_gpu_seconds =
              0.0;
      continue;
    }
    record.jct = record.finish_time - record.submit_time;
    if (windowed && (i < options_.window->first || i > options_.window->last)) continue;
    jcts.push_back(record.jct);
    queues.push_back(record.queue_delay);
    m.gpu_seconds += record.gpu_seconds;
    m.overhead_gpu_seconds += record.overhead_gpu_seconds;
    m.preemptions += static_cast<std::size_t>(record.preemptions);
    m.migrations += static_cast<std::uint64_t>(record.migrations);
    m.resizes += static_cast<std::uint64_t>(record.resizes);
    m.failures += static_cast<std::uint64_t>(record.failures);
    m.lost_gpu_seconds += record.lost_gpu_seconds;
    m.overhead_checkpoint_gpu_seconds += record.checkpoint_gpu_seconds;
    m.overhead_restore_gpu_seconds += record.restore_gpu_seconds;
    m.overhead_migration_gpu_seconds += record.migration_gpu_seconds;
    m.overhead_resize_gpu_seconds += record.resize_gpu_seconds;
    m.overhead_realloc_gpu_seconds += record.realloc_gpu_seconds;
    last_finish = std::max(last_finish, record.finish_time);
  }
  m.jobs = jcts.size();
  m.rejected = rejected_;
  m.window_jobs = windowed ? options_.window->last - options_.window->first + 1 : jobs_.size();
  summarize_jcts_and_queues(jcts, queues, m);
  if (!jcts.empty()) {
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
  m.useful_gpu_seconds = m.gpu_seconds - m.overhead_gpu_seconds - m.lost_gpu_seconds;
  m.goodput = m.gpu_seconds > 0.0 ? m.useful_gpu_seconds / m.gpu_seconds : 0.0;
  m.node_failures = node_failures_;
  m.checkpoints = checkpoints_;
  scheduler_->report(m);
  result.jobs = std::move(records_);  // no second copy of the per-job state
  return result;
}

}  // namespace clustersim::internal
