#include "mechanisms/failure_classes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "clustersim/fabric.h"
#include "mechanisms/keys.h"

namespace clustersim {

std::string_view failure_cause_name(FailureCause cause) {
  switch (cause) {
    case FailureCause::kGpu:
      return "gpu";
    case FailureCause::kGpuMemory:
      return "gpu_memory";
    case FailureCause::kNic:
      return "nic";
    case FailureCause::kHost:
      return "host";
    case FailureCause::kSwitch:
      return "switch";
    case FailureCause::kPower:
      return "power";
    case FailureCause::kSoftware:
      return "software";
    case FailureCause::kMaintenance:
      return "maintenance";
  }
  return "?";
}

std::string_view failure_unit_name(FailureUnit unit) {
  switch (unit) {
    case FailureUnit::kGpu:
      return "gpu";
    case FailureUnit::kNode:
      return "node";
    case FailureUnit::kRack:
      return "rack";
    case FailureUnit::kJobHour:
      return "job_hour";
    case FailureUnit::kLeaf:
      return "leaf";
  }
  return "?";
}

FailureUnit default_failure_unit(FailureCause cause) {
  switch (cause) {
    case FailureCause::kGpu:
    case FailureCause::kGpuMemory:
      return FailureUnit::kGpu;
    case FailureCause::kSwitch:
      return FailureUnit::kLeaf;
    case FailureCause::kPower:
      return FailureUnit::kRack;
    case FailureCause::kSoftware:
      return FailureUnit::kJobHour;
    case FailureCause::kNic:
    case FailureCause::kHost:
    case FailureCause::kMaintenance:
      return FailureUnit::kNode;
  }
  return FailureUnit::kNode;
}

}  // namespace clustersim

namespace clustersim::internal {

namespace {

// A draw of Exp(1) from u in [0, 1): inverse CDF on 1 - u in (0, 1], never log(0).
double unit_exponential(Rng& rng) { return -std::log(1.0 - rng.uniform()); }

}  // namespace

std::vector<std::uint32_t> failure_leaf_of(const FabricOptions& fabric,
                                           const ClusterState& cluster) {
  std::vector<std::uint32_t> leaf_of;
  leaf_of.reserve(cluster.nodes().size());
  if (fabric.contention()) {
    std::vector<int> node_gpus;
    for (const auto& node : cluster.nodes()) node_gpus.push_back(node.gpus);
    leaf_of = fabric_topology(fabric, node_gpus).leaf_of;
    leaf_of.resize(cluster.nodes().size());  // a map may have more hosts than the cluster
  } else {
    for (const auto& node : cluster.nodes())
      leaf_of.push_back(static_cast<std::uint32_t>(node.rack));
  }
  return leaf_of;
}

int job_size_bucket(int gpus) {
  if (gpus <= 1) return 0;
  if (gpus <= 8) return 1;
  if (gpus <= 64) return 2;
  if (gpus <= 512) return 3;
  return 4;
}

FailureClasses::FailureClasses(const SimOptions& options)
    : options_(options.mechanisms),
      fabric_(options.fabric),
      lemon_seed_(stream_seed(options.seed, 0x1e407ULL)),
      job_rng_(stream_seed(options.seed, 0xc1a55e5ULL)),
      hot_spares_(options.mechanisms.hot_spares),
      detect_s_(options.mechanisms.restart_detect_s),
      reschedule_s_(options.mechanisms.restart_reschedule_s) {
  if (hot_spares_ < 0 || hot_spares_ >= options.cluster.total_nodes())
    throw std::invalid_argument("mechanisms.hot_spares must be >= 0 and below the cluster's nodes");
  const MechanismOptions& m = options.mechanisms;
  if (!(m.lemon_share >= 0.0 && m.lemon_share <= 1.0) || !(m.lemon_factor > 0.0) ||
      !std::isfinite(m.lemon_factor))
    throw std::invalid_argument("mechanisms.lemon_share must be in [0, 1], lemon_factor > 0");
  if (m.quarantine_failures < 0 || !(m.quarantine_window_h >= 0.0) || !(m.quarantine_h >= 0.0))
    throw std::invalid_argument(
        "mechanisms.quarantine_failures, quarantine_window_h, quarantine_h must be >= 0");
  if (!(detect_s_ >= 0.0) || !std::isfinite(detect_s_) || !(reschedule_s_ >= 0.0) ||
      !std::isfinite(reschedule_s_))
    throw std::invalid_argument("mechanisms.restart_detect_s, restart_reschedule_s must be >= 0");
  const std::uint64_t base = stream_seed(options.seed, 0xfa11c1a5ULL);
  for (const FailureClass& spec : options.mechanisms.failure_classes) {
    if (!(spec.rate_per_h > 0.0)) continue;  // a class with no failures: nothing to draw
    if (!std::isfinite(spec.rate_per_h) || !(spec.shape > 0.0) || !(spec.repair_h >= 0.0))
      throw std::invalid_argument("mechanisms.failure_class." +
                                  std::string(failure_cause_name(spec.cause)) +
                                  ": needs rate_per_h > 0, shape > 0 and repair_h >= 0");
    Process process{spec, 0.0, Rng(base + static_cast<std::uint64_t>(spec.cause))};
    const double mean_s = 3600.0 / spec.rate_per_h;
    // Mean of Weibull(k, scale) = scale * Gamma(1 + 1/k).
    process.weibull_scale_s = mean_s / std::tgamma(1.0 + 1.0 / spec.shape);
    if (spec.unit == FailureUnit::kJobHour) {
      job_level_.push_back(processes_.size());
      job_rate_per_s_ += spec.rate_per_h / 3600.0;
    }
    processes_.push_back(std::move(process));
  }
  // A mechanism's timer carries a class index in its tag.
  if (processes_.size() > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("too many failure classes");
}

void FailureClasses::attach(Host& host) {
  host_ = &host;
  // A simulation attaches its mechanisms again when it starts afresh.
  node_of_gpu_.clear();
  plan_count_ = 0;
  interruptions_.fill(0);
  node_outages_ = 0;
  waiting_gpu_seconds_ = 0.0;
  fail_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
  up_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
  job_fail_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
  quarantine_end_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
  lemon_.clear();
  recent_failures_.clear();
  ring_next_.clear();
  quarantined_ = 0;
  spares_.clear();
  is_spare_.clear();
}

void FailureClasses::account_spares() {
  const Time now = host_->view().now();
  spare_idle_node_s_ += static_cast<double>(spares_.size()) * (now - spare_clock_);
  spare_used_node_s_ += spares_out_ * (now - spare_clock_);
  spare_clock_ = now;
}

void FailureClasses::hold_spare(std::uint32_t node) {
  account_spares();
  if (spares_out_ > 0) --spares_out_;  // back to strength: the replacement has ended
  host_->hold_gpus(node, host_->view().cluster().nodes()[node].gpus);
  spares_.push_back(node);
  is_spare_[node] = 1;
}

void FailureClasses::hand_over_spares(std::uint32_t count) {
  plan_.clear();
  const ClusterState& cluster = host_->view().cluster();
  // The ones held back last first; a spare down for an outage this mechanism did not cause
  // (mtbf_h's, a trace's) stays in the pool, held, until it is up.
  for (auto at = spares_.end(); count > 0 && at != spares_.begin();) {
    --at;
    const std::uint32_t node = *at;
    if (host_->view().node_offline(node)) continue;
    account_spares();
    at = spares_.erase(at);
    ++spares_out_;
    is_spare_[node] = 0;
    plan_.release_gpus(node, cluster.nodes()[node].gpus);
    --count;
  }
  if (!plan_.empty()) host_->apply(plan_);
}

std::uint32_t FailureClasses::units(const FailureClass& spec) const {
  const ClusterState& cluster = host_->view().cluster();
  switch (spec.unit) {
    case FailureUnit::kGpu:
      return static_cast<std::uint32_t>(node_of_gpu_.size());
    case FailureUnit::kNode:
      return static_cast<std::uint32_t>(cluster.nodes().size());
    case FailureUnit::kRack:
      return static_cast<std::uint32_t>(cluster.num_racks());
    case FailureUnit::kLeaf:
      return static_cast<std::uint32_t>(leaf_first_.size() - 1);
    case FailureUnit::kJobHour:
      return 0;
  }
  return 0;
}

std::span<const std::uint32_t> FailureClasses::domain(std::size_t index, std::uint32_t unit) const {
  const std::span<const std::uint32_t> nodes(node_ids_);
  switch (processes_[index].spec.unit) {
    case FailureUnit::kGpu:
      return nodes.subspan(node_of_gpu_[unit], 1);
    case FailureUnit::kRack: {
      const ClusterState& cluster = host_->view().cluster();
      const auto first = static_cast<std::size_t>(cluster.rack_begin(static_cast<int>(unit)));
      return nodes.subspan(first, cluster.rack_end(static_cast<int>(unit)) - first);
    }
    case FailureUnit::kLeaf:
      return std::span<const std::uint32_t>(leaf_nodes_)
          .subspan(leaf_first_[unit], leaf_first_[unit + 1] - leaf_first_[unit]);
    case FailureUnit::kNode:
    case FailureUnit::kJobHour:
      break;
  }
  return nodes.subspan(unit, 1);
}

double FailureClasses::next_job_failure_s() { return unit_exponential(job_rng_) / job_rate_per_s_; }

double FailureClasses::uptime_s(std::size_t index, std::uint32_t unit) {
  const double uptime = next_uptime(index, unit);
  const FailureUnit kind = processes_[index].spec.unit;
  if (lemon_.empty() || (kind != FailureUnit::kGpu && kind != FailureUnit::kNode)) return uptime;
  return lemon_[domain(index, unit).front()] ? uptime / options_.lemon_factor : uptime;
}

bool FailureClasses::quarantines(std::uint32_t node) {
  const auto k = static_cast<std::size_t>(options_.quarantine_failures);
  if (k == 0) return false;
  const Time now = host_->view().now();
  // The node's last k failure times, this one included; the ring's next slot is the oldest.
  double* ring = recent_failures_.data() + node * k;
  ring[ring_next_[node]] = now;
  ring_next_[node] = static_cast<std::uint32_t>((ring_next_[node] + 1) % k);
  if (now - ring[ring_next_[node]] > options_.quarantine_window_h * 3600.0) return false;
  std::fill_n(ring, k, -std::numeric_limits<double>::infinity());  // counting starts afresh
  return true;
}

double FailureClasses::next_uptime(std::size_t index, std::uint32_t unit) {
  (void)unit;  // every unit of a class draws from the class's stream, in event order
  Process& process = processes_[index];
  const double draw = unit_exponential(process.rng);
  return process.spec.shape == 1.0
             ? process.weibull_scale_s * draw
             : process.weibull_scale_s * std::pow(draw, 1.0 / process.spec.shape);
}

void FailureClasses::size_tables() {
  const std::size_t jobs = host_->view().jobs().size();
  job_interruptions_.resize(jobs, 0);
  failed_at_.resize(jobs, -1.0);
  stamp_.resize(jobs, 0);
}

void FailureClasses::start() {
  const View& view = host_->view();
  job_interruptions_.clear();
  failed_at_.clear();
  stamp_.clear();
  size_tables();
  const bool per_gpu = std::any_of(processes_.begin(), processes_.end(), [](const Process& p) {
    return p.spec.unit == FailureUnit::kGpu;
  });
  const auto& nodes = view.cluster().nodes();
  if (per_gpu)
    for (std::uint32_t node = 0; node < nodes.size(); ++node)
      node_of_gpu_.insert(node_of_gpu_.end(), static_cast<std::size_t>(nodes[node].gpus), node);
  node_ids_.resize(nodes.size());
  for (std::uint32_t node = 0; node < nodes.size(); ++node) node_ids_[node] = node;
  leaf_nodes_.clear();
  leaf_first_.clear();
  if (std::any_of(processes_.begin(), processes_.end(),
                  [](const Process& p) { return p.spec.unit == FailureUnit::kLeaf; })) {
    // Nodes grouped by leaf, in node order within each (a counting sort).
    const std::vector<std::uint32_t> leaf_of = failure_leaf_of(fabric_, view.cluster());
    std::uint32_t leaves = 0;
    for (std::uint32_t leaf : leaf_of) leaves = std::max(leaves, leaf + 1);
    leaf_first_.assign(leaves + 1, 0);
    for (std::uint32_t leaf : leaf_of) ++leaf_first_[leaf + 1];
    for (std::uint32_t leaf = 0; leaf < leaves; ++leaf) leaf_first_[leaf + 1] += leaf_first_[leaf];
    std::vector<std::uint32_t> next(leaf_first_.begin(), leaf_first_.end() - 1);
    leaf_nodes_.resize(leaf_of.size());
    for (std::uint32_t node = 0; node < leaf_of.size(); ++node)
      leaf_nodes_[next[leaf_of[node]]++] = node;
  }
  if (options_.lemon_share > 0.0) {
    // Exactly round(share x nodes) lemons: the first of a seeded shuffle of the nodes.
    lemon_.assign(nodes.size(), 0);
    std::vector<std::uint32_t> order(nodes.size());
    for (std::uint32_t node = 0; node < order.size(); ++node) order[node] = node;
    Rng rng(lemon_seed_);
    const auto lemons = static_cast<std::size_t>(std::llround(options_.lemon_share * nodes.size()));
    for (std::size_t i = 0; i < lemons; ++i) {
      const auto j = i + static_cast<std::size_t>(rng.uniform() * (order.size() - i));
      std::swap(order[i], order[j]);
      lemon_[order[i]] = 1;
    }
  }
  if (options_.quarantine_failures > 0) {
    recent_failures_.assign(nodes.size() * options_.quarantine_failures,
                            -std::numeric_limits<double>::infinity());
    ring_next_.assign(nodes.size(), 0);
  }
  spares_out_ = 0;
  spare_idle_node_s_ = spare_used_node_s_ = 0.0;
  spare_clock_ = view.now();
  if (hot_spares_ > 0) {
    is_spare_.assign(nodes.size(), 0);
    for (auto node = static_cast<std::uint32_t>(nodes.size() - hot_spares_); node < nodes.size();
         ++node)
      hold_spare(node);
  }
  const Time now = view.now();
  for (std::size_t index = 0; index < processes_.size(); ++index) {
    const std::uint32_t count = units(processes_[index].spec);
    for (std::uint32_t unit = 0; unit < count; ++unit)
      host_->schedule(now + uptime_s(index, unit), fail_, unit, static_cast<std::uint32_t>(index));
  }
}

void FailureClasses::on_timer(const Timer& timer) {
  if (timer.kind == fail_) {
    unit_fails(timer.tag, timer.subject);
  } else if (timer.kind == up_) {
    domain_repaired(timer.tag, timer.subject);
  } else if (timer.kind == quarantine_end_) {
    plan_.clear();
    plan_.node_up(timer.subject);
    host_->apply(plan_);
  } else {
    job_fails(timer.subject, timer.tag);
  }
}

void FailureClasses::interrupt(std::uint32_t job, FailureCause cause,
                               std::span<const std::uint32_t> down) {
  cover(job);
  if (stamp_[job] == plan_count_) return;  // already failed by this plan
  stamp_[job] = plan_count_;
  plan_.fail(job);
  // Every restart of the job, on spares, on other free nodes or after a repair, pays detection
  // (from now on) and rescheduling beside its restore.
  if (detect_s_ > 0.0 || reschedule_s_ > 0.0)
    plan_.delay_restart(job, host_->view().now() + detect_s_, reschedule_s_);
  if (options_.shrink_on_failure && !down.empty()) keep_grants_off(host_->view(), job, down, plan_);
  ++interruptions_[static_cast<int>(cause)];
  ++job_interruptions_[job];
  failed_at_[job] = host_->view().now();
}

void FailureClasses::unit_fails(std::size_t index, std::uint32_t unit) {
  const View& view = host_->view();
  const FailureClass& spec = processes_[index].spec;
  const std::span<const std::uint32_t> down = domain(index, unit);
  plan_.clear();
  ++plan_count_;
  std::uint32_t nodes_taken_from_jobs = 0;
  for (std::uint32_t node : down) {
    if (!view.node_offline(node)) ++node_outages_;
    const auto holders = view.holders_on(node);
    if (!holders.empty()) ++nodes_taken_from_jobs;
    for (std::uint32_t job : holders) interrupt(job, spec.cause, down);
  }
  // Outages nest: a node already down for another failure stays down until both are repaired. A
  // spare that fails leaves the pool (its GPUs go back to the ledger, then down).
  for (std::uint32_t node : down) {
    if (!is_spare_.empty() && is_spare_[node]) {
      account_spares();
      is_spare_[node] = 0;
      spares_.erase(std::find(spares_.begin(), spares_.end(), node));
      plan_.release_gpus(node, view.cluster().nodes()[node].gpus);
    }
    plan_.node_down(node);
  }
  // A GPU or node failure counts toward its node's quarantine (a rack's is not the node's own).
  if (spec.unit == FailureUnit::kGpu || spec.unit == FailureUnit::kNode) {
    const std::uint32_t node = down.front();
    if (quarantines(node)) {
      ++quarantined_;
      plan_.node_down(node);  // nested in the repair's outage: down until both have ended
      host_->schedule(view.now() + options_.quarantine_h * 3600.0, quarantine_end_, node, 0);
    }
  }
  host_->apply(plan_);
  // Spares go to the failed jobs at once: a gang's healthy nodes would stay allocated to it
  // while the failure is detected, and its restart pays detection there (held, as restart). A
  // later hand-over would let waiting jobs backfill the nodes the gang gave back meanwhile.
  if (hot_spares_ > 0 && nodes_taken_from_jobs > 0) hand_over_spares(nodes_taken_from_jobs);
  double repair_s = spec.repair_h * 3600.0;
  if (spec.repair_exponential) repair_s *= unit_exponential(processes_[index].rng);
  host_->schedule(view.now() + repair_s, up_, unit, static_cast<std::uint32_t>(index));
  host_->schedule(view.now() + repair_s + uptime_s(index, unit), fail_, unit,
                  static_cast<std::uint32_t>(index));
}

void FailureClasses::domain_repaired(std::size_t index, std::uint32_t unit) {
  const std::span<const std::uint32_t> repaired = domain(index, unit);
  plan_.clear();
  for (std::uint32_t node : repaired) plan_.node_up(node);
  host_->apply(plan_);
  // Repaired nodes refill the spare pool while it is short (a node still down for another
  // failure, or already taken, is not free).
  const ClusterState& cluster = host_->view().cluster();
  for (std::uint32_t node : repaired)
    if (static_cast<int>(spares_.size()) < hot_spares_ && !host_->view().node_offline(node) &&
        cluster.nodes()[node].free_gpus == cluster.nodes()[node].gpus)
      hold_spare(node);
}

void FailureClasses::on_job_running(std::uint32_t index) {
  const JobState& job = host_->view().jobs()[index];
  cover(index);
  if (failed_at_[index] >= 0.0) {
    // Placed again at held_since (a restore, if any, ran from then): it waited since its failure.
    waiting_gpu_seconds_ += job.gpus * std::max(0.0, job.held_since - failed_at_[index]);
    failed_at_[index] = -1.0;
  }
  if (job_rate_per_s_ <= 0.0) return;
  const Time at = host_->view().now() + next_job_failure_s();
  host_->schedule(at, job_fail_, index, job.epoch);
}

void FailureClasses::job_fails(std::uint32_t index, std::uint32_t epoch) {
  const JobState& job = host_->view().jobs()[index];
  if (job.epoch != epoch || job.phase != JobPhase::kRunning) return;  // stale
  // Which job-level class failed it: in proportion to their rates.
  double pick = job_rng_.uniform() * job_rate_per_s_;
  std::size_t chosen = job_level_.back();
  for (std::size_t index_of_class : job_level_) {
    pick -= processes_[index_of_class].spec.rate_per_h / 3600.0;
    if (pick < 0.0) {
      chosen = index_of_class;
      break;
    }
  }
  plan_.clear();
  ++plan_count_;
  interrupt(index, processes_[chosen].spec.cause);
  host_->apply(plan_);
}

void FailureClasses::report(RunMetrics& metrics) const {
  metrics.node_failures += node_outages_;
  metrics.node_quarantines = quarantined_;
  std::uint64_t total = 0;
  for (int c = 0; c < kFailureCauses; ++c) total += interruptions_[c];
  metrics.interruptions = total;
  metrics.interruptions_gpu = interruptions_[static_cast<int>(FailureCause::kGpu)];
  metrics.interruptions_gpu_memory = interruptions_[static_cast<int>(FailureCause::kGpuMemory)];
  metrics.interruptions_nic = interruptions_[static_cast<int>(FailureCause::kNic)];
  metrics.interruptions_host = interruptions_[static_cast<int>(FailureCause::kHost)];
  metrics.interruptions_switch = interruptions_[static_cast<int>(FailureCause::kSwitch)];
  metrics.interruptions_power = interruptions_[static_cast<int>(FailureCause::kPower)];
  metrics.interruptions_software = interruptions_[static_cast<int>(FailureCause::kSoftware)];
  metrics.interruptions_maintenance = interruptions_[static_cast<int>(FailureCause::kMaintenance)];
  metrics.gpu_hours_lost_rollback = metrics.lost_gpu_seconds / 3600.0;
  metrics.gpu_hours_lost_restart = metrics.overhead_restore_gpu_seconds / 3600.0;
  metrics.gpu_hours_lost_checkpoint = metrics.overhead_checkpoint_gpu_seconds / 3600.0;
  metrics.gpu_hours_lost_waiting = waiting_gpu_seconds_ / 3600.0;
  // The pool's node-seconds up to the run's end, as account_spares() would add them.
  const double since = host_->view().now() - spare_clock_;
  const double idle = spare_idle_node_s_ + static_cast<double>(spares_.size()) * since;
  const double used = spare_used_node_s_ + spares_out_ * since;
  metrics.spare_util = idle + used > 0.0 ? used / (idle + used) : 0.0;
}

double FailureClasses::ettr(const JobRecord& record) {
  const double wall = record.finish_time - record.start_time;
  if (record.start_time < 0.0 || record.finish_time < 0.0 || !(wall > 0.0) || record.num_gpus <= 0)
    return std::numeric_limits<double>::quiet_NaN();
  const double useful = record.gpu_seconds - record.overhead_gpu_seconds - record.lost_gpu_seconds;
  return useful / (record.num_gpus * wall);
}

void FailureClasses::report_jobs(std::span<const JobRecord> jobs, RunMetrics& metrics) const {
  // ETTR: productive time over wall time since the first start (ettr()), over the jobs run.
  double sum = 0.0;
  std::uint64_t count = 0;
  for (const JobRecord& record : jobs) {
    const double ratio = ettr(record);
    if (std::isnan(ratio)) continue;
    sum += ratio;
    ++count;
  }
  metrics.ettr_mean = count ? sum / static_cast<double>(count) : 0.0;
  // By job size: ETTR as above; MTTF from every job that ran in the measured window (its
  // counters are zeroed outside it), finished or not.
  std::array<double, kJobSizeBuckets> ettr_sum{}, run_s{};
  std::array<std::uint64_t, kJobSizeBuckets> ettr_count{}, failures{};
  for (const JobRecord& record : jobs) {
    const int bucket = job_size_bucket(record.num_gpus);
    const double ratio = ettr(record);
    if (!std::isnan(ratio)) {
      ettr_sum[bucket] += ratio;
      ++ettr_count[bucket];
    }
    if (record.num_gpus <= 0 || !(record.gpu_seconds > 0.0)) continue;
    run_s[bucket] += record.gpu_seconds / record.num_gpus;
    if (record.index < job_interruptions_.size())
      failures[bucket] += job_interruptions_[record.index];
  }
  double* const ettr_by_size[] = {&metrics.ettr_mean_size_1, &metrics.ettr_mean_size_2_8,
                                  &metrics.ettr_mean_size_9_64, &metrics.ettr_mean_size_65_512,
                                  &metrics.ettr_mean_size_over_512};
  double* const mttf_by_size[] = {&metrics.mttf_h_size_1, &metrics.mttf_h_size_2_8,
                                  &metrics.mttf_h_size_9_64, &metrics.mttf_h_size_65_512,
                                  &metrics.mttf_h_size_over_512};
  // No value (NaN: `null` in --json, as a job's unfinished jct) where a bucket has no job run to
  // its end, or no interruption: an MTTF of 0 would read as failing at once. (0 when the
  // mechanism is off, as the family's other metrics.)
  constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
  for (int b = 0; b < kJobSizeBuckets; ++b) {
    *ettr_by_size[b] = ettr_count[b] ? ettr_sum[b] / static_cast<double>(ettr_count[b]) : kNoValue;
    *mttf_by_size[b] =
        failures[b] ? run_s[b] / 3600.0 / static_cast<double>(failures[b]) : kNoValue;
  }
}

void FailureClasses::conclude(RunResult& result) const {
  RunResult::Column ratio{"ettr", {}}, interruptions{"interruptions", {}};
  ratio.values.reserve(result.jobs.size());
  interruptions.values.reserve(result.jobs.size());
  for (const JobRecord& record : result.jobs) {
    ratio.values.push_back(ettr(record));
    interruptions.values.push_back(
        record.index < job_interruptions_.size() ? job_interruptions_[record.index] : 0);
  }
  result.job_columns.push_back(std::move(ratio));
  result.job_columns.push_back(std::move(interruptions));
}

}  // namespace clustersim::internal

namespace clustersim::options {

// ---- Failure classes ----
void declare_failure_class_keys(KeyRegistry& keys) {
  custom(keys, "mechanisms.failure_class", KeyType::kTable)
      .component("mechanism failure_classes")
      .training_only()
      .default_note("none")
      .check_target<SimOptions>([](const SimOptions& o) -> std::string {
        for (const FailureClass& c : o.mechanisms.failure_classes)
          if (!(c.rate_per_h >= 0.0) || !std::isfinite(c.rate_per_h) || !(c.shape > 0.0) ||
              !(c.repair_h >= 0.0) || !std::isfinite(c.repair_h))
            return "class '" + std::string(failure_cause_name(c.cause)) +
                   "': needs rate_per_h >= 0, shape > 0, repair_h >= 0";
        return "";
      })
      .doc(
          "`[mechanisms.failure_class.CAUSE]` (CAUSE: gpu, gpu_memory, nic, host, switch, power, "
          "software, maintenance) with `rate_per_h` (failures per unit-hour), `unit` (gpu, node, "
          "rack, leaf: a leaf switch of [fabric]'s tiers, else a rack's; job_hour; default by "
          "cause: switch's is leaf), `shape` (Weibull k of up-times, 1 = exponential), "
          "`repair_h` (mean hours the unit's node or rack stays down; default "
          "`mechanisms.repair_h`, 0 for job_hour) and `repair` (`constant` or `exponential`).");
  custom(keys, "mechanisms.failure_mix", KeyType::kPath)
      .component("mechanism failure_classes")
      .training_only()
      .default_note("none")
      .doc(
          "A CSV of interruption counts by component (`component,category,interruptions`, "
          "Llama 3's shape; optional `cause`) over `failure_mix_days` on `failure_mix_gpus`: "
          "sets the rate of each cause's class (a rate set in its table wins).");
  mechanism_key(
      keys, "failure_classes", "hot_spares",
      [](auto& o) -> auto& { return o.mechanisms.hot_spares; })
      .range(0, 1000000)
      .doc(
          "Nodes held back idle (the last ones); a class failure that takes nodes from jobs hands "
          "as many over at once (the restart pays detection there); repaired nodes refill the "
          "pool.");
  mechanism_key(
      keys, "failure_classes", "restart_detect_s",
      [](auto& o) -> auto& { return o.mechanisms.restart_detect_s; })
      .range(0.0, 1e9)
      .doc(
          "Seconds from a class failure until it is detected: every restart of a job it failed "
          "(on spares, other free nodes or after a repair) pays what is left of it, charged as "
          "restore.");
  mechanism_key(
      keys, "failure_classes", "restart_reschedule_s",
      [](auto& o) -> auto& { return o.mechanisms.restart_reschedule_s; })
      .range(0.0, 1e9)
      .doc(
          "Seconds to relaunch a job a class failed, after detection: paid by its every restart "
          "beside its restore, charged as restore.");
  mechanism_key(
      keys, "failure_classes", "shrink_on_failure",
      [](auto& o) -> auto& { return o.mechanisms.shrink_on_failure; })
      .doc(
          "An elastic job a failure takes nodes from (a class's, `mtbf_h`'s, a `failure_trace`'s; "
          "not an `availability_trace` window) shrinks to the GPUs it still holds (if at least its "
          "`min_gpus`): rolled back to its last save, it restores on them at once, and grows back "
          "into idle GPUs as elastic jobs do (needs `elastic`).");
  mechanism_key(
      keys, "failure_classes", "lemon_share",
      [](auto& o) -> auto& { return o.mechanisms.lemon_share; })
      .range(0.0, 1.0)
      .doc("The share of nodes (drawn from the seed) that are lemons.");
  mechanism_key(
      keys, "failure_classes", "lemon_factor",
      [](auto& o) -> auto& { return o.mechanisms.lemon_factor; })
      .range(1e-6, 1e6)
      .doc("A lemon node's GPU and node classes fail this many times as often.");
  mechanism_key(
      keys, "failure_classes", "quarantine_failures",
      [](auto& o) -> auto& { return o.mechanisms.quarantine_failures; })
      .range(0, 1000000)
      .doc(
          "A node whose GPU and node classes failed this many times within "
          "`quarantine_window_h` is drained for `quarantine_h` (0 = never).");
  mechanism_key(
      keys, "failure_classes", "quarantine_window_h",
      [](auto& o) -> auto& { return o.mechanisms.quarantine_window_h; })
      .range(0.0, 1e9)
      .doc("Quarantine: the window its failures are counted over, hours.");
  mechanism_key(
      keys, "failure_classes", "quarantine_h",
      [](auto& o) -> auto& { return o.mechanisms.quarantine_h; })
      .range(0.0, 1e9)
      .doc("Quarantine: how long a node is drained for diagnosis (beyond its repair), hours.");
  mechanism_key(
      keys, "failure_classes", "failure_mix_days",
      [](auto& o) -> auto& { return o.mechanisms.failure_mix_days; })
      .range(0.0, 1e6)
      .doc("The days the `failure_mix` counts were seen over (needed with it).");
  mechanism_key(
      keys, "failure_classes", "failure_mix_gpus",
      [](auto& o) -> auto& { return o.mechanisms.failure_mix_gpus; })
      .range(0.0, 1e9)
      .doc(
          "The GPUs the `failure_mix` counts were seen on (0 = the cluster's); nodes and racks "
          "follow from the cluster's GPUs per node and nodes per rack.");
}

}  // namespace clustersim::options
