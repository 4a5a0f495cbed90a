#include "core/engine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "clustersim/mig.h"
#include "clustersim/random.h"
#include "metrics/summary_stats.h"

namespace clustersim::internal {

namespace {
const std::string kAnyModel = "*";  // a pair table's entry for any model
}  // namespace

Engine::Engine(const SimOptions& options, const JobSpeed& speed, bool resizing)
    : options_(options),
      cluster_(options.cluster),
      speed_(speed),
      resizing_(resizing),
      overheads_(options, stream_seed(options.seed, 0x0e7e4eadULL)) {
  if (options.sharing.enabled()) cluster_.enable_gpu_shares();
  Tables tables;
  tables.now = &now_;
  tables.options = &options_;
  tables.cluster = &cluster_;
  tables.jobs = &jobs_;
  tables.waiting = &waiting_;
  tables.holders = &holders_;
  tables.node_holders = &node_holders_;
  tables.grants = &grants_.storage();
  tables.vc_names = &vc_names_;
  tables.vc_usage = &vc_usage_;
  tables.down_count = &down_count_;
  tables.offline_nodes = &offline_nodes_;
  tables.resizing = resizing;
  tables.type_speeds = &type_speeds_;
  set_tables(tables);
}

Engine::~Engine() = default;

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
  jobs_.reserve(n);
  records_.reserve(n);
  for (std::size_t i = before; i < n; ++i) {
    jobs_.emplace_back();
    records_.emplace_back();
    load_job(static_cast<std::uint32_t>(i), admission);
  }
  if (first) {
    node_holders_.resize(cluster_.nodes().size());
    down_count_.assign(cluster_.nodes().size(), 0);
    offline_grant_.assign(cluster_.nodes().size(), Grant{});
    held_gpus_.assign(cluster_.nodes().size(), 0);
  }
  overheads_.load(n);

  if (vc_names_.size() >= (1u << 24) || type_count_ >= (1u << 15) ||
      cluster_.total_gpus() >= (1 << 24))
    throw std::invalid_argument("more VCs, GPU types or GPUs than the engine indexes");
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
      if (room < job.gpus)
        reject_or_throw(job, "model",
                        room == 0
                            ? "its model cannot run on any GPU type it may use (throughput "
                              "model)"
                            : "it needs " + std::to_string(job.gpus) + " GPUs, the cluster has " +
                                  std::to_string(room) + " of any one type it can run on");
    }
  }

  // Arrivals in (submit, index) order; jobs not yet arrived are re-sorted with the new ones
  // (traces and generators usually list jobs in submit order already).
  arrival_order_.reserve(n);
  for (std::uint32_t i = static_cast<std::uint32_t>(before); i < n; ++i)
    if (jobs_[i].phase != JobPhase::kRejected) arrival_order_.push_back(i);
  const auto arrives_before = [&](std::uint32_t a, std::uint32_t b) {
    return jobs_[a].submit != jobs_[b].submit ? jobs_[a].submit < jobs_[b].submit : a < b;
  };
  const auto pending = arrival_order_.begin() + static_cast<std::ptrdiff_t>(next_arrival_);
  if (!std::is_sorted(pending, arrival_order_.end(), arrives_before))
    std::sort(pending, arrival_order_.end(), arrives_before);
  if (first && options_.window) {
    for (std::size_t i = options_.window->first; i <= options_.window->last; ++i)
      if (jobs_[i].phase != JobPhase::kRejected) ++window_left_;
  }

  if (type_count_ > 1) type_gpu_seconds_.resize(n * type_count_, 0.0);
  plan_stamp_.resize(n, 0);
  if (options_.sharing.enabled()) {
    colocated_since_.resize(n, 0.0);
    colocated_with_.resize(n, 0);
  }
  if (options_.sharing.interference == Interference::kTable) index_pair_table(before);
  holder_position_.resize(n, 0);
  waiting_position_.resize(n, 0);
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
  if (job.vc >= 0 && !spec.gpu_type.empty()) job.gpu_type = cluster_.find_gpu_type(spec.gpu_type);
  if (auto rejection = admission.check(job, *this)) {
    if (job.vc < 0) job.vc = 0;
    reject_or_throw(job, rejection->field, rejection->why);
  } else if (const std::string why = gpu_mem_refusal(job); !why.empty()) {
    reject_or_throw(job, "gpu_mem_gb", why);
  } else if (job.mig != 0 && !fits_an_empty_node(job)) {
    reject_or_throw(job, "mig_profile",
                    "no MIG node (of its GPU type; [cluster] mig) offers profile " +
                        std::string(mig_profile_name(spec.mig_profile)) +
                        " with the CPUs and memory it asks for");
  } else if (job.requested_gpus == 0 && !fits_an_empty_node(job)) {
    reject_or_throw(job, spec.num_gpus == 0 ? "cpus" : "gpu_milli",
                    "no node (of its GPU type) has the CPUs and memory it asks for" +
                        std::string(spec.num_gpus == 0 && !cluster_.models_cpus()
                                        ? " (the cluster models no CPUs: set cpus_per_node)"
                                        : ""));
  }
}

// The GPU memory a job states (gpu_mem_gb) against the GPUs it may use: "" if it fits (or the
// cluster models no GPU memory there), else why not. A share's GPU is checked at placement, so
// one GPU with room is enough; a whole GPU gives its job all of its memory, but whole-GPU
// placement does not look at memory, so every GPU a whole-GPU job may get must hold it. A MIG
// slice has its profile's memory.
std::string Engine::gpu_mem_refusal(const JobState& job) const {
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
    for (const auto& node : cluster_.nodes())
      if (node.mig >= 0 && (job.gpu_type < 0 || node.gpu_type == job.gpu_type))
        most = std::max(most, mig_slice(node.mig, job.mig).mem_gb);
    if (most == 0.0 || need <= most) return "";  // (no node offers it: refused for that)
    return "needs " + gb(need) + " of GPU memory; its MIG profile " +
           std::string(mig_profile_name(job.mig)) + " has " + gb(most);
  }
  const std::int32_t need_mb = ClusterState::gpu_mem_mb(need);
  std::int32_t most = 0, least = std::numeric_limits<std::int32_t>::max();
  bool unmodelled = false;
  for (const auto& node : cluster_.nodes()) {
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

bool Engine::fits_an_empty_node(const JobState& job) const {
  constexpr double kEpsilon = ClusterState::kResourceEpsilon;
  for (std::uint32_t i = 0; i < cluster_.nodes().size(); ++i) {
    const auto& node = cluster_.node(i);
    if (job.gpu_type >= 0 && node.gpu_type != job.gpu_type) continue;
    if (job.mig != 0 && (node.mig < 0 || mig_slice(node.mig, job.mig).size == 0)) continue;
    if (job.milli != 0 && node.mig >= 0) continue;  // a share takes no MIG GPU
    const Grant grant =
        job.mig != 0 ? cluster_.mig_grant(i, 0, job.mig, mig_first_start(node.mig, job.mig, 0),
                                          job.spec->cpus, job.spec->mem_gb)
                     : cluster_.share_grant(i, job.milli, 0, job.spec->cpus, job.spec->mem_gb,
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

// --- What deciders read ---------------------------------------------------------------------

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

// --- Applying a plan --------------------------------------------------------------------------

void Engine::check_change(const Plan& plan, const Plan::Change& change) {
  // Messages are built only on failure: applying a plan must not allocate.
  const auto fail = [&](const char* what) {
    throw PlanError("plan: job '" + jobs_[change.job].spec->id + "' " + what);
  };
  if (change.job >= jobs_.size()) throw PlanError("plan: no job " + std::to_string(change.job));
  JobState& job = jobs_[change.job];
  if (plan_stamp_[change.job] == apply_number_) fail("is named twice");
  plan_stamp_[change.job] = apply_number_;
  switch (change.action) {
    case Plan::Action::kFail:
      if (!job.holds_gpus()) fail("fails but holds nothing");
      if (change.grant_count != 0) fail("fails but is given grants");
      return;
    case Plan::Action::kSave:
      if (job.phase != JobPhase::kRunning) fail("saves a checkpoint but is not running");
      if (change.grant_count != 0) fail("saves a checkpoint but is given grants");
      return;
    case Plan::Action::kHold:
      break;
  }
  if (change.grant_count == 0) {
    if (job.phase != JobPhase::kRunning) fail("is stopped but not running");
    return;
  }
  if (job.phase != JobPhase::kWaiting && job.phase != JobPhase::kRunning)
    fail("is changed while it neither waits nor runs");
  if (change.grant_count > cluster_.nodes().size()) fail("gets more grants than nodes");
  const auto grants = plan.grants(change);
  if (job.requested_gpus == 0) {  // a CPU-only or fractional job: one grant, its share
    const Grant& grant = grants.front();
    if (grants.size() != 1 || grant.node >= cluster_.nodes().size() || grant.gpus != 0 ||
        grant.milli != job.milli || (job.milli > 0 && grant.gpu < 0) ||
        (job.mig != 0) != (grant.mig_mask != 0) ||
        (job.mig != 0 && grant.mig_compute != mig_compute_slices(job.mig)))
      fail("gets other than one grant of its share, MIG slice or CPUs");
    if (job.gpu_type >= 0 && cluster_.node(grant.node).gpu_type != job.gpu_type)
      fail("gets GPUs of another type than it asks for");
    return;
  }
  int gpus = 0;
  const int type = grants.front().node < cluster_.nodes().size()
                       ? cluster_.node(grants.front().node).gpu_type
                       : -1;
  for (std::size_t g = 0; g < grants.size(); ++g) {
    const Grant& grant = grants[g];
    if (grant.node >= cluster_.nodes().size() || grant.gpus <= 0 || grant.milli != 0 ||
        grant.mig_mask != 0 || grant.gpu_mem_mb != 0)
      fail(grant.mig_mask != 0 || grant.gpu_mem_mb != 0
               ? "gets whole GPUs with a MIG slice or share memory"
               : "gets an empty grant or one on no node");
    if (cluster_.node(grant.node).gpu_type != type) fail("would mix GPU types");
    for (std::size_t h = 0; h < g; ++h)
      if (grants[h].node == grant.node) fail("gets one node twice");
    gpus += grant.gpus;
  }
  // An elastic job may run with any count in its range; it starts with the one it asks for.
  const bool may_resize = job.phase == JobPhase::kRunning && resizable(change.job);
  if (gpus != job.gpus &&
      (!may_resize || gpus < min_gpus(change.job) || gpus > max_gpus(change.job)))
    fail("gets the wrong number of GPUs");
  if (job.gpu_type >= 0 && type != job.gpu_type) fail("gets GPUs of another type than it asks for");
  if (!type_speeds_.empty() && type_speed(change.job, type) <= 0.0)
    fail("gets GPUs of a type it cannot run on");
}

void Engine::check_feasible(const Plan& plan) {
  ++apply_number_;
  for (const auto& change : plan.changes()) check_change(plan, change);
  // What each touched node would have free: its holders' releases, then the grants in plan
  // order, checked and taken as ClusterState::allocate does.
  struct Free {
    std::uint32_t node;
    int gpus;
    double cpus, mem_gb, storage_mbps;
  };
  std::vector<Free> touched;  // few: the nodes of one plan (this check is for outside plans)
  const auto free_of = [&](std::uint32_t node) -> Free& {
    for (Free& free : touched)
      if (free.node == node) return free;
    const auto& n = cluster_.node(node);
    touched.push_back({node, n.free_gpus, n.free_cpus, n.free_mem_gb, n.free_storage_mbps});
    return touched.back();
  };
  for (const auto& change : plan.changes()) {
    const JobState& job = jobs_[change.job];
    bool releases = false;
    if (change.action == Plan::Action::kFail) {
      releases = true;
    } else if (change.action == Plan::Action::kHold && job.phase == JobPhase::kRunning) {
      // A stop frees at once only when its checkpoint certainly takes no time.
      releases = change.grant_count > 0 ||
                 overheads_.certainly_zero(OverheadKind::kCheckpoint, job.index, *job.spec);
    }
    if (!releases) continue;
    for (const Grant& grant : grants_of(change.job)) {
      Free& free = free_of(grant.node);
      const auto& node = cluster_.node(grant.node);
      free.gpus += grant.gpus;
      free.cpus = std::min(node.cpus, free.cpus + grant.cpus);
      free.mem_gb = std::min(node.mem_gb, free.mem_gb + grant.mem_gb);
      free.storage_mbps = std::min(node.storage_mbps, free.storage_mbps + grant.storage_mbps);
    }
  }
  constexpr double kEpsilon = ClusterState::kResourceEpsilon;
  for (const auto& change : plan.changes()) {
    for (const Grant& grant : plan.grants(change)) {
      Free& free = free_of(grant.node);
      if (grant.gpus > free.gpus || grant.cpus < 0.0 || grant.mem_gb < 0.0 ||
          grant.storage_mbps < 0.0 || grant.cpus > free.cpus + kEpsilon ||
          grant.mem_gb > free.mem_gb + kEpsilon ||
          grant.storage_mbps > free.storage_mbps + kEpsilon)
        throw PlanError("plan: job '" + jobs_[change.job].spec->id + "' gets more of node " +
                        std::to_string(grant.node) +
                        " than is free (GPUs, CPUs, memory or storage bandwidth)");
      free.gpus -= grant.gpus;
      free.cpus = std::max(0.0, free.cpus - grant.cpus);
      free.mem_gb = std::max(0.0, free.mem_gb - grant.mem_gb);
      free.storage_mbps = std::max(0.0, free.storage_mbps - grant.storage_mbps);
    }
  }
}

void Engine::apply(const Plan& plan) {
  ++apply_number_;
  for (const auto& change : plan.changes()) check_change(plan, change);
  // Free before grant: a failure, a stop without checkpoint time and a change give back what
  // they held. (Each stop's checkpoint time is found here, in plan order: an empirical one is a
  // draw.)
  stop_seconds_.clear();
  bool failed = false;
  for (const auto& change : plan.changes()) {
    JobState& job = jobs_[change.job];
    if (change.action == Plan::Action::kFail) {
      release_to_ledger(job);
      failed = true;
      continue;
    }
    if (change.action == Plan::Action::kSave) continue;
    if (change.grant_count == 0) {
      stop_seconds_.push_back(overheads_.seconds(OverheadKind::kCheckpoint, job.index, *job.spec));
      if (stop_seconds_.back() > 0.0) continue;
    }
    if (job.phase == JobPhase::kRunning) release_to_ledger(job);
  }
  for (const auto& change : plan.changes())
    for (const Grant& grant : plan.grants(change)) {
      cluster_.allocate(grant);  // throws if over
      if (grant.milli != 0) touched_gpus_.emplace_back(grant.node, grant.gpu);
    }
  std::size_t stops = 0;
  for (const auto& change : plan.changes()) {
    JobState& job = jobs_[change.job];
    if (change.action == Plan::Action::kFail) {
      fail_job(job);
    } else if (change.action == Plan::Action::kSave) {
      save_job(job);
    } else if (change.grant_count == 0) {
      stop_job(job, stop_seconds_[stops++]);
    } else if (job.phase == JobPhase::kWaiting) {
      take_holding(job, plan.grants(change));
      start_job(job);
    } else {
      fold_progress(job);
      int gpus = 0;
      for (const Grant& grant : plan.grants(change)) gpus += grant.gpus;
      const bool resized = gpus != job.gpus;
      // GPU-seconds at the old count, or on the old type.
      if (resized || (!type_gpu_seconds_.empty() &&
                      cluster_.node(plan.grants(change)[0].node).gpu_type != type_held(job.index)))
        fold_held(job);
      const auto held = grants_of(job.index);
      old_grants_.assign(held.begin(), held.end());
      drop_holding(job);
      job.gpus = gpus;
      take_holding(job, plan.grants(change));
      change_job(job, old_grants_, resized);
    }
  }
  if (!touched_gpus_.empty()) rerate_touched();
  if (failed && decider_) decider_->on_released();
}

void Engine::release_to_ledger(const JobState& job) {
  for (const Grant& grant : grants_of(job.index)) {
    cluster_.release(grant);
    if (grant.milli != 0) touched_gpus_.emplace_back(grant.node, grant.gpu);
  }
}

// --- GPU sharing ---------------------------------------------------------------------------

double Engine::share_rate(const JobState& job, int* others) const {
  *others = 0;
  if (job.milli == 0)  // CPU-only: rate 1; a MIG slice: its compute slices of 7 (isolated)
    return job.mig == 0 ? 1.0
                        : static_cast<double>(mig_compute_slices(job.mig)) / kMigComputeSlices;
  const Grant& mine = grants_of(job.index).front();
  const SharingOptions& sharing = options_.sharing;
  double rate = 1.0;
  for (std::uint32_t other : node_holders_[mine.node]) {
    if (other == job.index || jobs_[other].milli == 0) continue;
    if (grants_of(other).front().gpu != mine.gpu) continue;
    ++*others;
    switch (*sharing.interference) {
      case Interference::kNone:
        break;
      case Interference::kConstant:
        rate *= *sharing.constant_factor;
        break;
      case Interference::kTable:
        rate *= pair_factor(job.index, other);
        break;
    }
  }
  return rate;
}

// The pair table by model index: each job's model gets an index, and the factor of every pair
// of the models seen is resolved once (the most specific entry: both models, then the job's
// beside any, then any beside the other's; NaN: none).
void Engine::index_pair_table(std::size_t from) {
  const std::size_t known = model_names_.size();
  table_model_.resize(jobs_.size(), 0);
  for (std::size_t i = from; i < jobs_.size(); ++i) {
    const std::string& model = specs_[i].model;
    const auto [at, added] =
        model_index_.try_emplace(model, static_cast<std::uint32_t>(model_names_.size()));
    if (added) model_names_.push_back(model);
    table_model_[i] = at->second;
  }
  const std::size_t m = model_names_.size();
  if (m == known) return;
  const auto find = [&](const std::string& a, const std::string& b) -> const double* {
    for (const auto& [models, factor] : options_.sharing.pairs)
      if (models.first == a && models.second == b) return &factor;
    return nullptr;
  };
  pair_factors_.assign(m * m, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t a = 0; a < m; ++a)
    for (std::size_t b = 0; b < m; ++b)
      for (const auto& [x, y] :
           {std::pair<const std::string&, const std::string&>{model_names_[a], model_names_[b]},
            {model_names_[a], kAnyModel},
            {kAnyModel, model_names_[b]},
            {kAnyModel, kAnyModel}})
        if (const double* factor = find(x, y)) {
          pair_factors_[a * m + b] = *factor;
          break;
        }
}

double Engine::pair_factor(std::uint32_t job, std::uint32_t other) const {
  const std::size_t m = model_names_.size();
  const double factor = pair_factors_[table_model_[job] * m + table_model_[other]];
  if (std::isnan(factor))
    throw std::invalid_argument("sharing.table: no factor for model '" + specs_[job].model +
                                "' beside model '" + specs_[other].model +
                                "' (nor a \"*\" entry): jobs '" + specs_[job].id + "' and '" +
                                specs_[other].id + "' share a GPU");
  return factor;
}

void Engine::fold_colocation(std::uint32_t index, int others) {
  if (colocated_with_[index] > 0)
    records_[index].colocated_seconds += now_ - colocated_since_[index];
  colocated_since_[index] = now_;
  colocated_with_[index] = others;
}

// The jobs on GPUs whose shares changed get their rates anew: a running job's progress is folded
// at its old rate and its completion is rescheduled (the old event is stale by its epoch).
void Engine::rerate_touched() {
  for (const auto& [node, gpu] : touched_gpus_) {
    for (std::uint32_t index : node_holders_[node]) {
      JobState& job = jobs_[index];
      if (job.milli == 0 || grants_of(index).front().gpu != gpu) continue;
      int others = 0;
      const double rate = share_rate(job, &others);
      fold_colocation(index, others);
      if (rate == job.rate) continue;
      if (job.phase != JobPhase::kRunning) {
        job.rate = rate;
        continue;
      }
      fold_progress(job);
      job.rate = rate;
      ++job.epoch;
      events_.push(now_ + std::max(0.0, job.remaining) / job.rate, kCompletionRank, index,
                   job.epoch);
    }
  }
  touched_gpus_.clear();
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
  if (job.milli != 0) fold_colocation(job.index, 0);
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
  if (job.requested_gpus == 0) {  // CPU-only or a share: rate 1, slowed by co-located jobs
    int others = 0;
    job.rate = share_rate(job, &others);
    if (job.milli != 0) fold_colocation(job.index, others);
    return;
  }
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
  if (job.milli != 0)  // a share's GPU-seconds: in its record, not in the whole-GPU ledger's
    records_[job.index].gpu_seconds +=
        job.milli * (now_ - job.held_since) / ClusterState::kMilliPerGpu;
  if (job.mig != 0)  // a MIG slice's: its compute slices of 7
    records_[job.index].gpu_seconds +=
        mig_compute_slices(job.mig) * (now_ - job.held_since) / kMigComputeSlices;
  held_gpu_seconds_ += held;
  if (!type_gpu_seconds_.empty())
    type_gpu_seconds_[job.index * type_count_ + static_cast<std::size_t>(type_held(job.index))] +=
        held;
  job.held_since = now_;
}

void Engine::pause(JobState& job, OverheadKind kind, double seconds) {
  job.pause = kind;
  if (seconds > 0.0) {
    job.phase = JobPhase::kRestoring;
    job.phase_since = now_;
    ++job.epoch;
    events_.push(now_ + seconds, kRestoreDoneRank, job.index, job.epoch);
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

void Engine::enqueue_waiting(JobState& job) {
  waiting_position_[job.index] = static_cast<std::uint32_t>(waiting_.size());
  waiting_.push_back(job.index);
  if (decider_) decider_->on_waiting(job.index);
}

void Engine::leave_waiting(std::uint32_t job) {
  const std::uint32_t position = waiting_position_[job];
  waiting_[position] = waiting_.back();
  waiting_position_[waiting_[position]] = position;
  waiting_.pop_back();
}

void Engine::requeue(JobState& job) {
  drop_holding(job);
  job.gpus = job.requested_gpus;  // an elastic job asks for its request again
  job.phase = JobPhase::kWaiting;
  job.phase_since = now_;
  ++job.epoch;
  enqueue_waiting(job);
}

// --- Starting, stopping, changing -------------------------------------------------------------

void Engine::start_job(JobState& job) {
  leave_waiting(job.index);
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
    events_.push(now_ + checkpoint_seconds, kCheckpointDoneRank, job.index, job.epoch);
  } else {
    // The ledger already has the resources back (apply frees before it grants).
    charge(job, OverheadKind::kCheckpoint, job.gpus * (now_ - job.phase_since));
    commit_save(job);
    fold_held(job);
    requeue(job);
  }
}

// A job on a failed node loses what it did since its last saved state, gives back everything
// it holds (on every node; the ledger already has it back) and waits again; what it spent on
// overheads stays spent.
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
  fold_held(job);
  requeue(job);
}

void Engine::save_job(JobState& job) {
  fold_progress(job);
  pause(job, OverheadKind::kCheckpoint,
        overheads_.seconds(OverheadKind::kCheckpoint, job.index, *job.spec));
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
  if (not_begun(job.index)) {  // it starts on its new GPUs: nothing to move, no cost
    begin_running(job.index);
    return;
  }
  // Moving or resizing restarts the job from its state as of now: a save, then a restore.
  commit_save(job);
  const OverheadKind kind = resized ? OverheadKind::kResize : OverheadKind::kMigration;
  ++(resized ? records_[job.index].resizes : records_[job.index].migrations);
  pause(job, kind, overheads_.seconds(kind, job.index, *job.spec));
}

// --- Job events -------------------------------------------------------------------------------

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
  if (!touched_gpus_.empty()) rerate_touched();
  if (decider_) {
    decider_->on_finished(index);
    decider_->on_released();
  }
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
  if (!touched_gpus_.empty()) rerate_touched();
  for (Mechanism* mechanism : mechanisms_) mechanism->on_checkpointed(index);
  if (decider_) decider_->on_released();
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
  events_.push(now_ + std::max(0.0, job.remaining) / job.rate, kCompletionRank, index, job.epoch);
  for (Mechanism* mechanism : mechanisms_) mechanism->on_job_running(index);
}

// --- Capacity ---------------------------------------------------------------------------------

void Engine::node_down(std::uint32_t node) {
  if (node >= cluster_.nodes().size())
    throw PlanError("node_down: no node " + std::to_string(node));
  jobs_came_or_went_ = true;
  if (down_count_[node]++ > 0) return;  // already down: this outage extends the one under way
  if (!node_holders_[node].empty())
    throw PlanError("node_down: node " + std::to_string(node) +
                    " still hosts jobs (stop them first, e.g. with Plan::fail)");
  // Down: the node's resources are held by no job until it is back.
  const auto& n = cluster_.node(node);
  offline_grant_[node] = Grant{node, n.free_gpus, n.free_cpus, n.free_mem_gb, n.free_storage_mbps};
  cluster_.allocate(offline_grant_[node]);
  ++offline_nodes_;
  offline_gpus_ += n.gpus;
}

void Engine::node_up(std::uint32_t node) {
  if (node >= cluster_.nodes().size() || down_count_[node] == 0)
    throw PlanError("node_up: node " + std::to_string(node) + " is not down");
  jobs_came_or_went_ = true;
  if (--down_count_[node] > 0) return;
  cluster_.release(offline_grant_[node]);
  --offline_nodes_;
  offline_gpus_ -= cluster_.node(node).gpus;
  if (decider_) decider_->on_released();
}

void Engine::hold_gpus(std::uint32_t node, int gpus) {
  if (node >= cluster_.nodes().size() || gpus <= 0 || cluster_.node(node).free_gpus < gpus)
    throw PlanError("hold_gpus: node " + std::to_string(node) + " has not " + std::to_string(gpus) +
                    " free GPUs");
  cluster_.allocate(Grant{node, gpus});
  held_gpus_[node] += gpus;
  held_gpus_total_ += gpus;
}

void Engine::release_gpus(std::uint32_t node, int gpus) {
  if (node >= cluster_.nodes().size() || gpus <= 0 || held_gpus_[node] < gpus)
    throw PlanError("release_gpus: node " + std::to_string(node) + " holds fewer than " +
                    std::to_string(gpus) + " GPUs outside jobs");
  cluster_.release(Grant{node, gpus});
  held_gpus_[node] -= gpus;
  held_gpus_total_ -= gpus;
  jobs_came_or_went_ = true;
  if (decider_) decider_->on_released();
}

// --- Timers -----------------------------------------------------------------------------------

TimerKind Engine::add_timer_kind(TimerClient& client, TimerPhase phase) {
  if (begun_) throw std::logic_error("timer kinds are registered before the run begins");
  if (timer_clients_.size() >= 200) throw std::logic_error("too many timer kinds");
  timer_clients_.push_back(&client);
  timer_phases_.push_back(phase);
  return static_cast<TimerKind>(timer_clients_.size() - 1);
}

void Engine::schedule(Time time, TimerKind kind, std::uint32_t subject, std::uint32_t tag) {
  if (!begun_) throw std::logic_error("timers are scheduled once the run has begun");
  if (kind >= timer_ranks_.size()) throw std::logic_error("schedule: unknown timer kind");
  if (!(time >= now_) || !std::isfinite(time))
    throw std::logic_error("schedule: a timer must fire at or after now, at a finite time");
  events_.push(time, timer_rank(kind), subject, tag);
}

void Engine::begin() {
  begun_ = true;
  // Ranks: the engine's job events, timers before arrivals (in registration order), the
  // arrivals' place, timers after arrivals, then samples.
  std::uint8_t rank = kRestoreDoneRank + 1;
  timer_ranks_.assign(timer_clients_.size(), 0);
  kind_of_rank_.assign(256, -1);
  for (TimerPhase phase : {TimerPhase::kBeforeArrivals, TimerPhase::kAfterArrivals}) {
    for (std::size_t kind = 0; kind < timer_clients_.size(); ++kind) {
      if (timer_phases_[kind] != phase) continue;
      timer_ranks_[kind] = rank;
      kind_of_rank_[rank] = static_cast<std::int16_t>(kind);
      ++rank;
    }
    if (phase == TimerPhase::kBeforeArrivals) arrival_rank_ = rank++;
  }
  sample_rank_ = rank;
  for (const Mechanism* mechanism : mechanisms_) endless_ = endless_ || mechanism->endless();

  if (arrival_order_.empty()) {
    over_ = true;
    return;
  }
  first_submit_ = last_batch_time_ = now_ = jobs_[arrival_order_.front()].submit;
  for (const Mechanism* mechanism : mechanisms_)
    last_batch_time_ = now_ = std::min(now_, mechanism->begins_at());
  measure_from_ = first_submit_;
  if (options_.window) {
    measure_from_ = std::numeric_limits<double>::infinity();
    for (std::size_t i = options_.window->first; i <= options_.window->last; ++i)
      if (jobs_[i].phase != JobPhase::kRejected)
        measure_from_ = std::min(measure_from_, jobs_[i].submit);
    if (window_left_ == 0) {
      over_ = true;
      return;
    }
  }
  if (options_.sample_interval_s > 0.0) events_.push(first_submit_, sample_rank_);
  for (Mechanism* mechanism : mechanisms_) mechanism->start();
}

void Engine::dispatch(const Event& event) {
  switch (event.rank()) {
    case kCompletionRank:
    case kCheckpointDoneRank:
    case kRestoreDoneRank:
      // A job's event superseded by a change of plan is stale.
      if (event.tag != jobs_[event.subject()].epoch) return;
      if (event.rank() == kCompletionRank) {
        complete(event.subject());
        jobs_came_or_went_ = true;
      } else if (event.rank() == kCheckpointDoneRank) {
        finish_checkpoint(event.subject());
      } else {
        begin_running(event.subject());
      }
      return;
    default: {
      const auto kind = static_cast<TimerKind>(kind_of_rank_[event.rank()]);
      timer_clients_[kind]->on_timer(Timer{event.time, kind, event.subject(), event.tag});
    }
  }
}

// --- Main loop --------------------------------------------------------------------------------

void Engine::integrate_until(Time now) {
  const double waiting = static_cast<double>(waiting_.size());
  queue_length_integral_ += waiting * (now - last_batch_time_);
  // GPUs jobs hold (a node down is held by its outage, not by a job).
  // GPUs taken by shares are accounted by the shares (held_milli), not as whole GPUs; GPUs in
  // MIG mode, by the compute slices held on them (held_mig_compute); GPUs held outside jobs (a
  // serving pool) are not jobs' either.
  const int busy = cluster_.total_gpus() - cluster_.free_gpus() - offline_gpus_ -
                   cluster_.shared_gpus() - cluster_.mig_gpus() - held_gpus_total_;
  if (now > last_batch_time_) ledger_gpu_seconds_ += busy * (now - last_batch_time_);
  const Time from = std::max(last_batch_time_, measure_from_);
  if (now > from) {
    const double dt = now - from;
    busy_gpu_integral_ += busy * dt;
    if (cluster_.held_milli() != 0)
      busy_gpu_integral_ +=
          static_cast<double>(cluster_.held_milli()) * dt / ClusterState::kMilliPerGpu;
    if (cluster_.held_mig_compute() != 0)
      busy_gpu_integral_ += cluster_.held_mig_compute() * dt / kMigComputeSlices;
    cpu_integral_ += cluster_.allocated_cpus() * dt;
    mem_integral_ += cluster_.allocated_mem_gb() * dt;
    storage_integral_ += cluster_.allocated_storage_mbps() * dt;
    window_queue_integral_ += waiting * dt;
  }
  last_batch_time_ = now;
}

std::optional<DecisionPoint> Engine::advance() {
  if (!begun_) begin();
  while (!over_) {
    if (next_arrival_ == arrival_order_.size() && events_.empty()) break;
    // Endless mechanisms (failures never run out): the run ends when every job has left.
    if (endless_ && active_jobs_ == 0 && next_arrival_ == arrival_order_.size()) break;
    Time now = events_.empty() ? jobs_[arrival_order_[next_arrival_]].submit : events_.top().time;
    if (next_arrival_ < arrival_order_.size())
      now = std::min(now, jobs_[arrival_order_[next_arrival_]].submit);
    integrate_until(now);
    now_ = now;
    jobs_came_or_went_ = false;
    sample_due_ = false;

    // Events before arrivals (job events, then timers that change what jobs hold), then
    // arrivals, then timers that ask for a decision, and samples.
    while (!events_.empty() && events_.top().time == now && events_.top().rank() < arrival_rank_) {
      const Event event = events_.pop();
      ++events_processed_;
      dispatch(event);
    }
    while (next_arrival_ < arrival_order_.size() &&
           jobs_[arrival_order_[next_arrival_]].submit == now) {
      const std::uint32_t index = arrival_order_[next_arrival_++];
      ++active_jobs_;
      JobState& job = jobs_[index];
      job.phase = JobPhase::kWaiting;
      job.phase_since = now;
      ++job.epoch;
      enqueue_waiting(job);
      if (decider_) decider_->on_arrival(index);
      ++events_processed_;
      jobs_came_or_went_ = true;
    }
    // A window still measuring when the last arrival came: the workload may stream more in.
    if (options_.window && next_arrival_ == arrival_order_.size() && extend_ && !extend_())
      extend_ = nullptr;
    while (!events_.empty() && events_.top().time == now) {
      const Event event = events_.pop();
      ++events_processed_;
      if (event.rank() == sample_rank_) {
        sample_due_ = true;
      } else {
        dispatch(event);
      }
    }
    if (options_.window && window_left_ == 0) {
      window_outlived_arrivals_ = next_arrival_ == arrival_order_.size();
      break;  // the window has drained: steady-state metrics are complete
    }
    return DecisionPoint{now, jobs_came_or_went_};
  }
  over_ = true;
  return std::nullopt;
}

void Engine::conclude_rarely() {
  if (options_.check_invariants) check_invariants();
  if (after_decision_) after_decision_();
  if (sample_due_) {
    take_sample();
    if (active_jobs_ > 0 || next_arrival_ < arrival_order_.size())
      events_.push(now_ + options_.sample_interval_s, sample_rank_);
  }
  if (holders_.empty() && next_arrival_ == arrival_order_.size() && !waiting_.empty() &&
      !(decider_ && decider_->expects_wakeup()) && offline_nodes_ == 0 && held_gpus_total_ == 0)
    throw std::logic_error("simulation stalled: jobs wait but nothing can ever free resources");
}

// --- Measurement ------------------------------------------------------------------------------

std::uint32_t Engine::queue_head() const {
  if (decider_)
    if (auto head = decider_->head_of_queue()) return *head;
  std::uint32_t head = waiting_.front();
  for (std::uint32_t job : waiting_)
    if (jobs_[job].submit < jobs_[head].submit ||
        (jobs_[job].submit == jobs_[head].submit && job < head))
      head = job;
  return head;
}

void Engine::take_sample() {
  Sample sample;
  sample.time = now_;
  sample.idle_gpus = cluster_.free_gpus();
  sample.busy_gpus = cluster_.total_gpus() - sample.idle_gpus;
  sample.queue_length = static_cast<int>(waiting_.size());
  sample.running_jobs = static_cast<int>(holders_.size());
  if (!waiting_.empty()) {
    // Fragmented: idle GPUs on nodes (of a type the head-of-queue job may use) whose idle count
    // is below what that job would need from one node.
    const JobState& head = jobs_[queue_head()];
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
    if (job.gpus != job.requested_gpus &&
        !(resizable(index) && job.gpus >= min_gpus(index) && job.gpus <= max_gpus(index)))
      throw std::logic_error("invariant: a job holds a GPU count outside its range");
    vc[job.vc] += job.gpus;
  }
  std::size_t waiting = 0;
  for (const JobState& job : jobs_) waiting += job.phase == JobPhase::kWaiting;
  if (waiting != waiting_.size()) throw std::logic_error("invariant: the waiting list drifted");
  for (std::uint32_t index : waiting_)
    if (jobs_[index].phase != JobPhase::kWaiting)
      throw std::logic_error("invariant: the waiting list holds a job that does not wait");
  std::size_t offline = 0;
  for (std::size_t i = 0; i < down_count_.size(); ++i) {
    if (down_count_[i] == 0) continue;
    ++offline;
    const Grant& outage = offline_grant_[i];
    if (!node_holders_[i].empty() || outage.gpus + held_gpus_[i] != nodes[i].gpus)
      throw std::logic_error("invariant: a node that is down hosts a job");
    used[i] += outage.gpus;
    cpus[i] += outage.cpus;
    mem[i] += outage.mem_gb;
    storage[i] += outage.storage_mbps;
  }
  if (offline != offline_nodes_) throw std::logic_error("invariant: offline node count drifted");
  for (std::size_t i = 0; i < held_gpus_.size(); ++i) used[i] += held_gpus_[i];
  int free = 0;
  constexpr double kTolerance = 1e-6;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const auto& node = nodes[i];
    int shared_here = node.mig >= 0 ? node.gpus : 0;  // GPUs in MIG mode are never free
    for (int g = 0; cluster_.shares_gpus() && g < node.gpus; ++g)
      shared_here += cluster_.used_milli(static_cast<std::uint32_t>(i), g) > 0 ? 1 : 0;
    if (node.free_gpus < 0 || used[i] + shared_here + node.free_gpus != node.gpus)
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
  if (cluster_.shares_gpus()) {  // each GPU's shares: what its holders hold, and taken whole
    std::vector<int> milli;
    std::vector<std::uint32_t> base(nodes.size() + 1, 0);
    for (std::size_t i = 0; i < nodes.size(); ++i)
      base[i + 1] = base[i] + static_cast<std::uint32_t>(nodes[i].gpus);
    milli.assign(base.back(), 0);
    for (std::uint32_t index : holders_)
      for (const Grant& grant : grants_of(index))
        if (grant.milli != 0)
          milli[base[grant.node] + static_cast<std::uint32_t>(grant.gpu)] += grant.milli;
    int shared = 0;
    for (std::uint32_t i = 0; i < nodes.size(); ++i) {
      int shared_here = 0;
      for (int g = 0; g < nodes[i].gpus; ++g) {
        const int held = milli[base[i] + static_cast<std::uint32_t>(g)];
        if (held != cluster_.used_milli(i, g) || held > ClusterState::kMilliPerGpu)
          throw std::logic_error("invariant: GPU shares of node " + std::to_string(i) +
                                 " drifted or over-allocated");
        shared_here += held > 0 ? 1 : 0;
      }
      if (shared_here + used[i] + nodes[i].free_gpus + (nodes[i].mig >= 0 ? nodes[i].gpus : 0) !=
          nodes[i].gpus)
        throw std::logic_error("invariant: shared GPUs of node " + std::to_string(i) +
                               " are counted as free or held");
      shared += shared_here;
    }
    if (shared != cluster_.shared_gpus())
      throw std::logic_error("invariant: shared GPU count drifted");
    if (cluster_.shares_gpu_mem()) {  // each GPU's shares' memory: what its holders hold
      std::vector<std::int32_t> mem(base.back(), 0);
      for (std::uint32_t index : holders_)
        for (const Grant& grant : grants_of(index))
          if (grant.milli != 0)
            mem[base[grant.node] + static_cast<std::uint32_t>(grant.gpu)] += grant.gpu_mem_mb;
      for (std::uint32_t i = 0; i < nodes.size(); ++i)
        for (int g = 0; g < nodes[i].gpus; ++g) {
          const std::int32_t held = mem[base[i] + static_cast<std::uint32_t>(g)];
          if (held != cluster_.used_mem_mb(i, g) ||
              (nodes[i].gpu_mem_mb > 0 && held > nodes[i].gpu_mem_mb))
            throw std::logic_error("invariant: GPU memory of shares on node " + std::to_string(i) +
                                   " drifted or over-allocated");
        }
    }
  }
  if (cluster_.mig_gpus() > 0) {  // each MIG GPU's slices: its holders', never overlapping
    std::vector<std::uint32_t> base(nodes.size() + 1, 0);
    for (std::size_t i = 0; i < nodes.size(); ++i)
      base[i + 1] = base[i] + static_cast<std::uint32_t>(nodes[i].gpus);
    std::vector<std::uint8_t> masks(base.back(), 0);
    int compute = 0;
    for (std::uint32_t index : holders_)
      for (const Grant& grant : grants_of(index)) {
        if (grant.mig_mask == 0) continue;
        std::uint8_t& mask = masks[base[grant.node] + static_cast<std::uint32_t>(grant.gpu)];
        if ((mask & grant.mig_mask) != 0)
          throw std::logic_error("invariant: MIG slices overlap on node " +
                                 std::to_string(grant.node));
        mask = static_cast<std::uint8_t>(mask | grant.mig_mask);
        compute += grant.mig_compute;
      }
    for (std::uint32_t i = 0; i < nodes.size(); ++i)
      for (int g = 0; nodes[i].mig >= 0 && g < nodes[i].gpus; ++g)
        if (masks[base[i] + static_cast<std::uint32_t>(g)] != cluster_.mig_used(i, g))
          throw std::logic_error("invariant: MIG slices of node " + std::to_string(i) + " drifted");
    if (compute != cluster_.held_mig_compute())
      throw std::logic_error("invariant: held MIG compute slices drifted");
  }
  cluster_.check_index();
  for (std::size_t v = 0; v < vc.size(); ++v)
    if (vc[v] != vc_usage_[v]) throw std::logic_error("invariant: VC usage drifted");
  if (decider_) decider_->check_invariants();
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

// Finish-time fairness (Themis, Mahajan et al., NSDI'20; Gavel): a job's rho = its JCT / the
// time it would take alone on 1/N of the cluster, N the time-averaged number of jobs in the
// system (waiting or holding GPUs, itself included) between its submit and its finish. Alone on
// 1/N of the cluster's G GPUs, a job of g GPUs runs its duration at its best speed when g <=
// G/N, else g N / G times as long (it gets G/N GPUs' worth of time).
void Engine::finish_time_fairness(RunMetrics& m) const {
  std::vector<std::pair<Time, int>> changes;
  changes.reserve(jobs_.size() * 2);
  for (const JobState& job : jobs_) {
    if (job.phase == JobPhase::kPending || job.phase == JobPhase::kRejected) continue;
    changes.emplace_back(job.submit, 1);
    if (job.phase == JobPhase::kFinished) changes.emplace_back(records_[job.index].finish_time, -1);
  }
  std::sort(changes.begin(), changes.end());
  // integral[k]: jobs in the system integrated over time up to changes[k].first; active[k]:
  // jobs in the system just after it.
  std::vector<double> integral(changes.size(), 0.0);
  std::vector<int> active(changes.size(), 0);
  for (std::size_t k = 0; k < changes.size(); ++k) {
    if (k > 0)
      integral[k] = integral[k - 1] + active[k - 1] * (changes[k].first - changes[k - 1].first);
    active[k] = (k > 0 ? active[k - 1] : 0) + changes[k].second;
  }
  const auto integral_at = [&](Time t) {
    const auto after = std::upper_bound(changes.begin(), changes.end(), std::pair<Time, int>{t, 2});
    if (after == changes.begin()) return 0.0;
    const std::size_t k = static_cast<std::size_t>(after - changes.begin()) - 1;
    return integral[k] + active[k] * (t - changes[k].first);
  };
  const bool windowed = options_.window.has_value();
  const double total = cluster_.total_gpus();
  double sum = 0.0, most = 0.0;
  std::size_t count = 0, unfair = 0;
  for (const JobState& job : jobs_) {
    if (job.phase != JobPhase::kFinished) continue;
    if (windowed && (job.index < options_.window->first || job.index > options_.window->last))
      continue;
    const JobRecord& record = records_[job.index];
    const double jct = record.jct;
    const double sharing =
        jct > 0.0 ? std::max(1.0, (integral_at(record.finish_time) - integral_at(job.submit)) / jct)
                  : 1.0;
    double best_speed = 1.0;
    if (!type_speeds_.empty()) {
      best_speed = 0.0;
      for (std::size_t t = 0; t < type_count_; ++t)
        best_speed = std::max(best_speed, type_speeds_[job.index * type_count_ + t]);
      if (best_speed <= 0.0) best_speed = 1.0;  // CPU-only or a share: rate 1 alone
    }
    if (job.mig != 0)  // alone on its MIG slice: its compute slices of 7
      best_speed = static_cast<double>(mig_compute_slices(job.mig)) / kMigComputeSlices;
    const double alone =
        job.work / best_speed * std::max(1.0, job.requested_gpus * sharing / total);
    const double rho = jct / alone;
    sum += rho;
    most = std::max(most, rho);
    unfair += rho > 1.0 ? 1 : 0;
    ++count;
  }
  if (count == 0) return;
  m.ftf_mean = sum / static_cast<double>(count);
  m.ftf_max = most;
  m.ftf_unfair = static_cast<double>(unfair) / static_cast<double>(count);
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
      record.colocated_seconds = 0.0;
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
  finish_time_fairness(m);
  if (!type_gpu_seconds_.empty()) {
    for (std::size_t i = 0; i < jobs_.size(); ++i)
      if (jobs_[i].phase != JobPhase::kFinished)
        std::fill_n(type_gpu_seconds_.begin() + static_cast<std::ptrdiff_t>(i * type_count_),
                    type_count_, 0.0);
    result.gpu_types = cluster_.gpu_type_names();
    result.type_gpu_seconds = std::move(type_gpu_seconds_);
  }
  if (sample_count_ > 0) m.frag_mean = fragmented_sum_ / static_cast<double>(sample_count_);
  m.events = events_processed_;
  m.reallocations = reallocations_;
  m.window_overloaded = window_outlived_arrivals_ ? 1 : 0;
  m.useful_gpu_seconds = m.gpu_seconds - m.overhead_gpu_seconds - m.lost_gpu_seconds;
  m.goodput = m.gpu_seconds > 0.0 ? m.useful_gpu_seconds / m.gpu_seconds : 0.0;
  m.checkpoints = checkpoints_;
  if (decider_) decider_->report(m);
  for (const Mechanism* mechanism : mechanisms_) mechanism->report(m);
  result.jobs = std::move(records_);  // no second copy of the per-job state
  return result;
}

}  // namespace clustersim::internal
