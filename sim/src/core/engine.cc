#include "core/engine.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace clustersim::internal {

namespace {

bool key_less(const PriorityKey& a, std::uint32_t ia, const PriorityKey& b, std::uint32_t ib) {
  if (a.primary != b.primary) return a.primary < b.primary;
  if (a.secondary != b.secondary) return a.secondary < b.secondary;
  return ia < ib;
}

void validate_options(const SimOptions& options) {
  const auto& s = options.scheduler;
  if (!(s.lease_s > 0.0) || !std::isfinite(s.lease_s))
    throw std::invalid_argument("scheduler.lease_s must be > 0");
  if (!(s.checkpoint_s >= 0.0) || !std::isfinite(s.checkpoint_s))
    throw std::invalid_argument("scheduler.checkpoint_s must be >= 0");
  if (!(s.restore_s >= 0.0) || !std::isfinite(s.restore_s))
    throw std::invalid_argument("scheduler.restore_s must be >= 0");
  if (!(options.sample_interval_s >= 0.0) || !std::isfinite(options.sample_interval_s))
    throw std::invalid_argument("metrics.sample_interval_s must be >= 0");
}

}  // namespace

Engine::Engine(const SimOptions& options, const std::vector<JobSpec>& specs)
    : options_(options), specs_(specs), cluster_(options.cluster), rng_(options.seed) {
  validate_options(options);
  policy_ = make_scheduling_policy(options.scheduler);
  placement_ = make_placement_policy(options.scheduler.placement, rng_);
  if (options.throughput != nullptr) {
    throughput_ = options.throughput;
  } else {
    owned_throughput_ = make_placement_throughput_model(options.penalty);
    throughput_ = owned_throughput_.get();
  }
  preemptive_ = options.scheduler.preemption.value_or(policy_->preemptive());
  ranks_vcs_ = policy_->ranks_vcs();
  load_jobs();
}

void Engine::reject_or_throw(JobState& job, const char* field, const std::string& why) {
  if (!options_.reject_impossible) {
    const JobSpec& spec = *job.spec;
    std::string where =
        spec.source_line > 0 ? " (trace line " + std::to_string(spec.source_line) + ")" : "";
    throw ImpossibleJobError(job.index, spec.source_line, field,
                             "job '" + spec.id + "'" + where + " can never run: " + why);
  }
  job.phase = JobPhase::kRejected;
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

  const std::size_t n = specs_.size();
  jobs_.resize(n);
  std::size_t pool_size = 0;
  for (std::uint32_t i = 0; i < n; ++i) {
    const JobSpec& spec = specs_[i];
    JobState& job = jobs_[i];
    job.spec = &spec;
    job.index = i;
    job.gpus = spec.num_gpus;
    job.submit = spec.submit_time;
    job.work = job.remaining = spec.duration;
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
    for (int type = 0; type < static_cast<int>(cluster_.gpu_type_names().size()); ++type)
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
      const PlacementRequest request = request_of(job);
      room_by_type_.assign(cluster_.gpu_type_names().size(), 0);
      for (const auto& node : cluster_.nodes())
        room_by_type_[node.gpu_type] += cluster_.hostable_when_empty(node, request);
      if (*std::max_element(room_by_type_.begin(), room_by_type_.end()) < job.gpus) {
        reject_or_throw(job, spec.cpus > 0.0 ? "cpus" : "mem_gb",
                        "no set of nodes has the CPUs and memory it asks for with its GPUs");
        continue;
      }
    }
    job.placement_begin = static_cast<std::uint32_t>(pool_size);
    pool_size += static_cast<std::size_t>(
        std::min<int>(job.gpus, static_cast<int>(cluster_.nodes().size())));
  }
  placement_pool_.resize(pool_size);
  placement_scratch_.reserve(cluster_.nodes().size());

  if (vc_names_.size() >= (1u << 24) || cluster_.gpu_type_names().size() >= (1u << 15) ||
      cluster_.total_gpus() >= (1 << 24))
    throw std::invalid_argument("more VCs, GPU types or GPUs than the engine indexes");
  if (!quotas_enforced_) vc_quota_.assign(vc_names_.size(), cluster_.total_gpus());
  const double total = cluster_.total_gpus();
  vc_usage_.assign(vc_names_.size(), 0.0);
  zero_usage_.assign(vc_names_.size(), 0.0);
  vc_weight_.resize(vc_names_.size());
  for (std::size_t v = 0; v < vc_names_.size(); ++v)
    vc_weight_[v] = quotas_enforced_ ? vc_quota_[v] / total : 1.0;

  arrival_order_.reserve(n);
  for (std::uint32_t i = 0; i < n; ++i)
    if (jobs_[i].phase != JobPhase::kRejected) arrival_order_.push_back(i);
  std::sort(arrival_order_.begin(), arrival_order_.end(), [&](std::uint32_t a, std::uint32_t b) {
    return jobs_[a].submit != jobs_[b].submit ? jobs_[a].submit < jobs_[b].submit : a < b;
  });

  keys_.resize(n);
  admitted_stamp_.assign(n, 0);
  holder_position_.assign(n, 0);
  int max_gpus = 1;
  for (const auto& job : jobs_) max_gpus = std::max(max_gpus, job.gpus);
  queue_.reset(max_gpus);
  vc_blocked_stamp_.assign(vc_names_.size(), 0);
  holders_.reserve(static_cast<std::size_t>(cluster_.total_gpus()));
  events_.reserve(static_cast<std::size_t>(cluster_.total_gpus()) * 2 + 16);
}

PlacementRequest Engine::request_of(const JobState& job) const {
  PlacementRequest request;
  request.gpus = job.gpus;
  request.gpu_type = job.gpu_type;
  if (job.spec->cpus > 0.0) request.cpus_per_gpu = job.spec->cpus / job.gpus;
  if (job.spec->mem_gb > 0.0) request.mem_per_gpu = job.spec->mem_gb / job.gpus;
  return request;
}

bool Engine::before(std::uint32_t a, std::uint32_t b) const {
  if (options_.scheduler.honor_priority && jobs_[a].spec->priority != jobs_[b].spec->priority)
    return jobs_[a].spec->priority > jobs_[b].spec->priority;
  return key_less(keys_[a], a, keys_[b], b);
}

bool Engine::within_quota(const JobState& job, const std::vector<double>& usage) const {
  return !quotas_enforced_ || usage[job.vc] + job.gpus <= vc_quota_[job.vc];
}

PolicyContext Engine::policy_context(Time now) const {
  PolicyContext ctx;
  ctx.now = now;
  ctx.jobs = jobs_;
  ctx.total_gpus = cluster_.total_gpus();
  return ctx;
}

// --- Event handlers -----------------------------------------------------------------------

void Engine::arrive(std::uint32_t index, Time now) {
  ++active_jobs_;
  enqueue(index, now);
}

void Engine::enqueue(std::uint32_t index, Time now) {
  JobState& job = jobs_[index];
  job.phase = JobPhase::kWaiting;
  job.phase_since = now;
  ++job.epoch;
  const std::uint32_t one[1] = {index};
  policy_->compute_keys(one, policy_context(now), std::span<PriorityKey>(&keys_[index], 1));
  queue_.insert_sorted(index, job.vc, job.gpus, job.gpu_type, order());
}

void Engine::complete(std::uint32_t index, Time now) {
  JobState& job = jobs_[index];
  job.attained_time = job.attained_at(now);
  job.remaining = 0.0;
  job.finish = now;
  release(index, now);
  job.phase = JobPhase::kFinished;
  ++job.epoch;
  --active_jobs_;
}

void Engine::finish_checkpoint(std::uint32_t index, Time now) {
  JobState& job = jobs_[index];
  job.overhead_gpu_seconds += job.gpus * (now - job.phase_since);
  release(index, now);
  enqueue(index, now);
}

void Engine::begin_running(std::uint32_t index, Time now) {
  JobState& job = jobs_[index];
  if (job.phase == JobPhase::kRestoring)
    job.overhead_gpu_seconds += job.gpus * (now - job.phase_since);
  job.phase = JobPhase::kRunning;
  job.phase_since = job.progress_since = now;
  ++job.epoch;
  events_.push(now + std::max(0.0, job.remaining) / job.rate, EventKind::kCompletion, index,
               job.epoch);
}

// --- Resources ----------------------------------------------------------------------------

bool Engine::try_start(std::uint32_t index, Time now) {
  JobState& job = jobs_[index];
  PlacementRequest request = request_of(job);
  if (!place_on_one_type(request)) return false;

  Allocation allocation;
  allocation.gpus = job.gpus;
  allocation.nodes = static_cast<int>(placement_scratch_.size());
  allocation.gpu_type =
      &cluster_.gpu_type_names()[cluster_.node(placement_scratch_.front().node).gpu_type];
  int first_rack = -1;
  bool multi_rack = false;
  int placed = 0;
  for (std::size_t s = 0; s < placement_scratch_.size(); ++s) {
    const NodeShare& share = placement_scratch_[s];
    const auto& node = cluster_.node(share.node);
    const double cpus = cluster_.cpus_for(node, request, share.gpus);
    const double mem = cluster_.mem_for(node, request, share.gpus);
    cluster_.allocate(share, cpus, mem);
    allocation.cpus += cpus;
    allocation.mem_gb += mem;
    allocation.storage_mbps += node.storage_mbps * share.gpus / node.gpus;
    if (first_rack < 0) first_rack = node.rack;
    multi_rack = multi_rack || node.rack != first_rack;
    placement_pool_[job.placement_begin + s] = share;
    placed += share.gpus;
  }
  if (placed != job.gpus) throw std::logic_error("placement returned the wrong number of GPUs");
  allocation.racks = multi_rack ? 2 : 1;
  job.placement_count = static_cast<std::uint32_t>(placement_scratch_.size());
  job.nodes = allocation.nodes;
  job.racks = allocation.racks;
  job.cpus = allocation.cpus;
  job.mem_gb = allocation.mem_gb;
  job.rate = throughput_->rate(*job.spec, allocation);
  if (!(job.rate > 0.0) || !std::isfinite(job.rate))
    throw std::logic_error("throughput model returned a non-positive rate for job '" +
                           job.spec->id + "'");

  queue_.count_out(job.gpus);  // the caller removes it from its bucket
  job.queue_delay += now - job.phase_since;
  if (job.first_start < 0.0) job.first_start = now;
  job.held_since = now;
  vc_usage_[job.vc] += job.gpus;
  holder_position_[index] = static_cast<std::uint32_t>(holders_.size());
  holders_.push_back(index);

  if (job.preemptions > 0 && options_.scheduler.restore_s > 0.0) {
    job.phase = JobPhase::kRestoring;
    job.phase_since = now;
    ++job.epoch;
    events_.push(now + options_.scheduler.restore_s, EventKind::kRestoreDone, index, job.epoch);
  } else {
    begin_running(index, now);
  }
  return true;
}

bool Engine::place_on_one_type(PlacementRequest& request) {
  const int types = static_cast<int>(cluster_.gpu_type_names().size());
  if (request.gpu_type >= 0 || types == 1)
    return placement_->place(request, cluster_, placement_scratch_);
  // A job never mixes GPU types: an untyped job goes to one type, the one with most free GPUs
  // first (ties: the type listed first).
  type_order_.resize(static_cast<std::size_t>(types));
  std::iota(type_order_.begin(), type_order_.end(), 0);
  std::sort(type_order_.begin(), type_order_.end(), [&](int a, int b) {
    return cluster_.free_gpus(a) != cluster_.free_gpus(b)
               ? cluster_.free_gpus(a) > cluster_.free_gpus(b)
               : a < b;
  });
  for (int type : type_order_) {
    if (cluster_.free_gpus(type) < request.gpus) break;
    request.gpu_type = type;
    if (placement_->place(request, cluster_, placement_scratch_)) return true;
  }
  request.gpu_type = -1;
  return false;
}

void Engine::release(std::uint32_t index, Time now) {
  JobState& job = jobs_[index];
  const PlacementRequest request = request_of(job);
  for (std::uint32_t s = 0; s < job.placement_count; ++s) {
    const NodeShare& share = placement_pool_[job.placement_begin + s];
    const auto& node = cluster_.node(share.node);
    cluster_.release(share, cluster_.cpus_for(node, request, share.gpus),
                     cluster_.mem_for(node, request, share.gpus));
  }
  job.placement_count = 0;
  job.gpu_seconds += job.gpus * (now - job.held_since);
  vc_usage_[job.vc] -= job.gpus;
  const std::uint32_t position = holder_position_[index];
  holders_[position] = holders_.back();
  holder_position_[holders_[position]] = position;
  holders_.pop_back();
}

void Engine::preempt(std::uint32_t index, Time now) {
  JobState& job = jobs_[index];
  job.remaining = std::max(0.0, job.remaining_at(now));
  job.attained_time = job.attained_at(now);
  job.progress_since = now;
  job.phase = JobPhase::kCheckpointing;
  job.phase_since = now;
  ++job.epoch;
  ++job.preemptions;
  if (options_.scheduler.checkpoint_s > 0.0) {
    events_.push(now + options_.scheduler.checkpoint_s, EventKind::kCheckpointDone, index,
                 job.epoch);
  } else {
    finish_checkpoint(index, now);
  }
}

// --- Scheduling ---------------------------------------------------------------------------

void Engine::scheduling_pass(Time now) {
  if (queue_.empty()) return;
  ++pass_number_;
  const auto less = walk_order(vc_usage_);
  const bool backfill = options_.scheduler.backfill;
  // With lending, jobs within their VC's quota go first; borrowers take what is left.
  const int phases = quotas_enforced_ && options_.scheduler.vc_quota == VcQuotaMode::kLend ? 2 : 1;
  walk_lists_.clear();
  for (std::size_t b = 0; b < queue_.num_buckets(); ++b)
    walk_lists_.push_back(&queue_.bucket(b).jobs);
  walk_reached_.assign(queue_.num_buckets(), 0);
  bool started_any = false;
  bool stop = false;
  for (int phase = 0; phase < phases && !stop; ++phase) {
    walk_.start(walk_lists_, less);
    while (!walk_.done()) {
      if (cluster_.free_gpus() < std::max(1, queue_.min_demand())) {
        stop = true;
        break;
      }
      const std::uint32_t index = walk_.job();
      JobState& job = jobs_[index];
      if (job.phase != JobPhase::kWaiting) {  // started in the first phase
        walk_.advance(less);
        continue;
      }
      const bool quota_ok = phase == 1 || within_quota(job, vc_usage_);
      if (backfill) {
        // Skip a whole bucket (one VC, one size) that cannot start now.
        if (!quota_ok || job.gpus > cluster_.free_gpus(job.gpu_type)) {
          walk_.drop(less);
          continue;
        }
      } else if (vc_blocked_stamp_[job.vc] == pass_number_ || !quota_ok) {
        // Strict order: a VC at its quota blocks itself, and only itself.
        vc_blocked_stamp_[job.vc] = pass_number_;
        walk_.drop(less);
        continue;
      }
      if (job.gpus <= cluster_.free_gpus(job.gpu_type) && try_start(index, now)) {
        started_any = true;
        walk_.advance(less);
        if (ranks_vcs_) walk_.reorder(less);  // the VC's share grew: its other lists move back
        continue;
      }
      if (!backfill) {
        stop = true;  // strict order: the head of the queue blocks everyone behind it
        break;
      }
      walk_.advance(less);
    }
    for (std::size_t b = 0; b < queue_.num_buckets(); ++b)
      walk_reached_[b] = std::max(walk_reached_[b], walk_.position(b));
  }
  if (started_any) {
    for (std::size_t b = 0; b < queue_.num_buckets(); ++b)
      queue_.remove_left(b, walk_reached_[b],
                         [&](std::uint32_t j) { return jobs_[j].phase != JobPhase::kWaiting; });
  }
}

void Engine::preemption_round(Time now) {
  ++rounds_;
  if (queue_.empty()) return;
  candidates_.clear();
  round_usage_.assign(vc_names_.size(), 0.0);
  for (std::uint32_t index : holders_) {
    const JobState& job = jobs_[index];
    if (job.phase == JobPhase::kRunning) {
      candidates_.push_back(index);
    } else {
      round_usage_[job.vc] += job.gpus;  // restoring or checkpointing: cannot be preempted
    }
  }
  if (candidates_.empty()) return;
  int capacity = cluster_.free_gpus();
  for (std::uint32_t index : candidates_) capacity += jobs_[index].gpus;

  // Re-key running jobs: their service has grown. Waiting jobs' keys do not change.
  candidate_keys_.resize(candidates_.size());
  policy_->compute_keys(candidates_, policy_context(now), candidate_keys_);
  for (std::size_t i = 0; i < candidates_.size(); ++i) keys_[candidates_[i]] = candidate_keys_[i];
  std::sort(candidates_.begin(), candidates_.end(), order());

  // Walk running and waiting jobs merged in priority order, admitting greedily into capacity.
  // Fair-share policies rank by VC, so their running jobs are walked in one list per VC.
  ++round_number_;
  const auto less = walk_order(round_usage_);
  const bool backfill = options_.scheduler.backfill;
  const int phases = quotas_enforced_ && options_.scheduler.vc_quota == VcQuotaMode::kLend ? 2 : 1;
  walk_lists_.clear();
  for (std::size_t b = 0; b < queue_.num_buckets(); ++b)
    walk_lists_.push_back(&queue_.bucket(b).jobs);
  if (ranks_vcs_) {
    vc_candidates_.resize(vc_names_.size());
    for (auto& list : vc_candidates_) list.clear();
    for (std::uint32_t index : candidates_) vc_candidates_[jobs_[index].vc].push_back(index);
    for (const auto& list : vc_candidates_) walk_lists_.push_back(&list);
  } else {
    walk_lists_.push_back(&candidates_);
  }
  bool admitted_waiting = false;
  for (int phase = 0; phase < phases && capacity > 0; ++phase) {
    walk_.start(walk_lists_, less);
    while (!walk_.done() && capacity > 0) {
      const std::uint32_t index = walk_.job();
      const JobState& job = jobs_[index];
      if (admitted_stamp_[index] == round_number_) {
        walk_.advance(less);
        continue;
      }
      const bool waiting = job.phase == JobPhase::kWaiting;
      const bool fits = (phase == 1 || within_quota(job, round_usage_)) && job.gpus <= capacity;
      if (!fits) {
        if (!backfill && job.gpus > capacity) break;
        if (waiting && backfill) {
          walk_.drop(less);  // the rest of this bucket (one VC, one size) cannot fit either
        } else {
          walk_.advance(less);
        }
        continue;
      }
      admitted_stamp_[index] = round_number_;
      capacity -= job.gpus;
      round_usage_[job.vc] += job.gpus;
      admitted_waiting = admitted_waiting || waiting;
      walk_.advance(less);
      if (ranks_vcs_) walk_.reorder(less);
    }
  }
  if (!admitted_waiting) return;
  for (std::uint32_t index : candidates_)
    if (admitted_stamp_[index] != round_number_) preempt(index, now);
}

void Engine::schedule_round_if_needed(Time now) {
  if (!preemptive_ || round_scheduled_ || queue_.empty() || holders_.empty()) return;
  const double lease = options_.scheduler.lease_s;
  events_.push((std::floor(now / lease) + 1.0) * lease, EventKind::kRound);
  round_scheduled_ = true;
}

// --- Main loop ----------------------------------------------------------------------------

RunResult Engine::run() {
  if (arrival_order_.empty()) return collect_results();
  first_submit_ = last_batch_time_ = jobs_[arrival_order_.front()].submit;
  const double sample_interval = options_.sample_interval_s;
  if (sample_interval > 0.0) events_.push(first_submit_, EventKind::kSample);

  while (next_arrival_ < arrival_order_.size() || !events_.empty()) {
    Time now = events_.empty() ? jobs_[arrival_order_[next_arrival_]].submit : events_.top().time;
    if (next_arrival_ < arrival_order_.size())
      now = std::min(now, jobs_[arrival_order_[next_arrival_]].submit);
    queue_length_integral_ += static_cast<double>(queue_.size()) * (now - last_batch_time_);
    last_batch_time_ = now;

    bool sample_due = false;
    bool round_due = false;
    // Events before arrivals (completions and overheads), then arrivals, then rounds/samples.
    while (!events_.empty() && events_.top().time == now &&
           events_.top().kind < EventKind::kArrival) {
      const Event event = events_.pop();
      ++events_processed_;
      if (event.epoch != jobs_[event.job].epoch) continue;  // superseded by a preemption
      switch (event.kind) {
        case EventKind::kCompletion:
          complete(event.job, now);
          break;
        case EventKind::kCheckpointDone:
          finish_checkpoint(event.job, now);
          break;
        case EventKind::kRestoreDone:
          begin_running(event.job, now);
          break;
        default:
          break;
      }
    }
    while (next_arrival_ < arrival_order_.size() &&
           jobs_[arrival_order_[next_arrival_]].submit == now) {
      arrive(arrival_order_[next_arrival_++], now);
      ++events_processed_;
    }
    while (!events_.empty() && events_.top().time == now) {
      const Event event = events_.pop();
      ++events_processed_;
      if (event.kind == EventKind::kRound) round_due = true;
      if (event.kind == EventKind::kSample) sample_due = true;
    }
    // A batch that lands exactly on a lease boundary is that boundary's round, even when no
    // round was pending (the queue was empty until this batch's arrivals).
    if (!round_due && !round_scheduled_ && preemptive_ && !queue_.empty() &&
        std::fmod(now, options_.scheduler.lease_s) == 0.0)
      round_due = true;
    if (round_due) {
      round_scheduled_ = false;
      preemption_round(now);
    }
    scheduling_pass(now);
    schedule_round_if_needed(now);
    if (options_.check_invariants) check_invariants();
    if (sample_due) {
      take_sample(now);
      if (active_jobs_ > 0 || next_arrival_ < arrival_order_.size())
        events_.push(now + sample_interval, EventKind::kSample);
    }
    if (holders_.empty() && next_arrival_ == arrival_order_.size() && !queue_.empty())
      throw std::logic_error("simulation stalled: jobs wait but nothing can ever free resources");
  }
  return collect_results();
}

// --- Measurement --------------------------------------------------------------------------

std::uint32_t Engine::head_of_queue() const {
  const auto less = walk_order(vc_usage_);
  std::uint32_t head = 0;
  bool found = false;
  for (std::size_t b = 0; b < queue_.num_buckets(); ++b) {
    const auto& jobs = queue_.bucket(b).jobs;
    if (jobs.empty()) continue;
    if (!found || less(jobs.front(), head)) head = jobs.front();
    found = true;
  }
  return head;
}

void Engine::take_sample(Time now) {
  Sample sample;
  sample.time = now;
  sample.idle_gpus = cluster_.free_gpus();
  sample.busy_gpus = cluster_.total_gpus() - sample.idle_gpus;
  sample.queue_length = static_cast<int>(queue_.size());
  sample.running_jobs = static_cast<int>(holders_.size());
  if (!queue_.empty()) {
    // Fragmented: idle GPUs on nodes (of a type the head-of-queue job may use) whose idle count
    // is below what that job would need from one node.
    const JobState& head = jobs_[head_of_queue()];
    for (const auto& node : cluster_.nodes()) {
      if (head.gpu_type >= 0 && node.gpu_type != head.gpu_type) continue;
      if (node.free_gpus > 0 && node.free_gpus < std::min(head.gpus, node.gpus))
        sample.fragmented_gpus += node.free_gpus;
    }
  }
  samples_.push_back(sample);
}

void Engine::check_invariants() const {
  std::vector<int> used(cluster_.nodes().size(), 0);
  std::vector<double> vc(vc_names_.size(), 0.0);
  for (std::uint32_t index : holders_) {
    const JobState& job = jobs_[index];
    if (!job.holds_gpus()) throw std::logic_error("invariant: a holder does not hold GPUs");
    int gpus = 0;
    for (std::uint32_t s = 0; s < job.placement_count; ++s) {
      used[placement_pool_[job.placement_begin + s].node] +=
          placement_pool_[job.placement_begin + s].gpus;
      gpus += placement_pool_[job.placement_begin + s].gpus;
    }
    if (gpus != job.gpus) throw std::logic_error("invariant: job holds the wrong number of GPUs");
    vc[job.vc] += job.gpus;
  }
  int free = 0;
  for (std::size_t i = 0; i < used.size(); ++i) {
    const auto& node = cluster_.node(static_cast<std::uint32_t>(i));
    if (node.free_gpus < 0 || used[i] + node.free_gpus != node.gpus)
      throw std::logic_error("invariant: GPUs of node " + std::to_string(i) +
                             " over-allocated or leaked");
    if (node.free_cpus < -1e-6 || node.free_mem_gb < -1e-6)
      throw std::logic_error("invariant: CPU/memory over-allocated");
    free += node.free_gpus;
  }
  if (free != cluster_.free_gpus()) throw std::logic_error("invariant: free GPU count drifted");
  for (std::size_t v = 0; v < vc.size(); ++v) {
    if (vc[v] != vc_usage_[v]) throw std::logic_error("invariant: VC usage drifted");
    if (quotas_enforced_ && options_.scheduler.vc_quota == VcQuotaMode::kStrict &&
        vc[v] > vc_quota_[v])
      throw std::logic_error("invariant: VC '" + vc_names_[v] + "' above its quota");
  }
  std::size_t queued = 0;
  for (std::size_t b = 0; b < queue_.num_buckets(); ++b) {
    const auto& bucket = queue_.bucket(b);
    queued += bucket.jobs.size();
    for (std::uint32_t index : bucket.jobs)
      if (jobs_[index].phase != JobPhase::kWaiting || jobs_[index].vc != bucket.vc ||
          jobs_[index].gpus != bucket.gpus)
        throw std::logic_error(
            "invariant: the queue holds a job that is not waiting in that bucket");
  }
  if (queued != queue_.size()) throw std::logic_error("invariant: queue length drifted");
}

namespace {
// Linear interpolation between closest ranks (numpy's default), on a sorted copy.
double percentile(std::vector<double>& sorted_values, double q) {
  if (sorted_values.empty()) return 0.0;
  const double position = q * static_cast<double>(sorted_values.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const std::size_t upper = std::min(lower + 1, sorted_values.size() - 1);
  return sorted_values[lower] +
         (sorted_values[upper] - sorted_values[lower]) * (position - static_cast<double>(lower));
}
}  // namespace

RunResult Engine::collect_results() const {
  RunResult result;
  result.samples = samples_;
  result.jobs.resize(jobs_.size());
  std::vector<double> jcts, queues;
  jcts.reserve(jobs_.size());
  queues.reserve(jobs_.size());
  RunMetrics& m = result.metrics;
  Time last_finish = first_submit_;
  for (std::size_t i = 0; i < jobs_.size(); ++i) {
    const JobState& job = jobs_[i];
    JobRecord& record = result.jobs[i];
    record.index = static_cast<std::uint32_t>(i);
    record.submit_time = job.submit;
    record.num_gpus = job.gpus;
    record.rejected = job.phase == JobPhase::kRejected;
    if (job.phase != JobPhase::kFinished) continue;
    record.start_time = job.first_start;
    record.finish_time = job.finish;
    record.jct = job.finish - job.submit;
    record.queue_delay = job.queue_delay;
    record.preemptions = job.preemptions;
    record.gpu_seconds = job.gpu_seconds;
    record.overhead_gpu_seconds = job.overhead_gpu_seconds;
    record.nodes = job.nodes;
    jcts.push_back(record.jct);
    queues.push_back(record.queue_delay);
    m.gpu_seconds += job.gpu_seconds;
    m.overhead_gpu_seconds += job.overhead_gpu_seconds;
    m.preemptions += static_cast<std::size_t>(job.preemptions);
    last_finish = std::max(last_finish, job.finish);
  }
  m.jobs = jcts.size();
  m.rejected = rejected_;
  if (!jcts.empty()) {
    m.jct_mean = std::accumulate(jcts.begin(), jcts.end(), 0.0) / static_cast<double>(jcts.size());
    m.queue_mean =
        std::accumulate(queues.begin(), queues.end(), 0.0) / static_cast<double>(queues.size());
    std::sort(jcts.begin(), jcts.end());
    std::sort(queues.begin(), queues.end());
    m.jct_p50 = percentile(jcts, 0.50);
    m.jct_p95 = percentile(jcts, 0.95);
    m.jct_p99 = percentile(jcts, 0.99);
    m.jct_max = jcts.back();
    m.queue_p50 = percentile(queues, 0.50);
    m.queue_p99 = percentile(queues, 0.99);
    m.makespan = last_finish - first_submit_;
    if (m.makespan > 0.0) {
      m.gpu_util = m.gpu_seconds / (cluster_.total_gpus() * m.makespan);
      m.queue_len_mean = queue_length_integral_ / m.makespan;
    }
  }
  if (!samples_.empty()) {
    double fragmented = 0.0;
    for (const auto& sample : samples_) fragmented += sample.fragmented_gpus;
    m.frag_mean = fragmented / static_cast<double>(samples_.size());
  }
  m.events = events_processed_;
  m.rounds = rounds_;
  return result;
}

}  // namespace clustersim::internal
