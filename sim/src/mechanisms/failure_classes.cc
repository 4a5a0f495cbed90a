#include "mechanisms/failure_classes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

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
  }
  return "?";
}

FailureUnit default_failure_unit(FailureCause cause) {
  switch (cause) {
    case FailureCause::kGpu:
    case FailureCause::kGpuMemory:
      return FailureUnit::kGpu;
    case FailureCause::kSwitch:
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

FailureClasses::FailureClasses(const SimOptions& options)
    : options_(options.mechanisms),
      lemon_seed_(stream_seed(options.seed, 0x1e407ULL)),
      job_rng_(stream_seed(options.seed, 0xc1a55e5ULL)),
      hot_spares_(options.mechanisms.hot_spares),
      hand_over_delay_s_(options.mechanisms.restart_detect_s +
                         options.mechanisms.restart_reschedule_s) {
  if (hot_spares_ < 0 || hot_spares_ >= options.cluster.total_nodes())
    throw std::invalid_argument("mechanisms.hot_spares must be >= 0 and below the cluster's nodes");
  const MechanismOptions& m = options.mechanisms;
  if (!(m.lemon_share >= 0.0 && m.lemon_share <= 1.0) || !(m.lemon_factor > 0.0) ||
      !std::isfinite(m.lemon_factor))
    throw std::invalid_argument("mechanisms.lemon_share must be in [0, 1], lemon_factor > 0");
  if (m.quarantine_failures < 0 || !(m.quarantine_window_h >= 0.0) || !(m.quarantine_h >= 0.0))
    throw std::invalid_argument(
        "mechanisms.quarantine_failures, quarantine_window_h, quarantine_h must be >= 0");
  if (!(hand_over_delay_s_ >= 0.0) || !std::isfinite(hand_over_delay_s_))
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
  hand_over_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
  quarantine_end_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
  lemon_.clear();
  recent_failures_.clear();
  ring_next_.clear();
  quarantined_ = 0;
  spares_.clear();
  is_spare_.clear();
}

void FailureClasses::hold_spare(std::uint32_t node) {
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
    at = spares_.erase(at);
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
    case FailureUnit::kJobHour:
      return 0;
  }
  return 0;
}

std::pair<std::uint32_t, std::uint32_t> FailureClasses::domain(std::size_t index,
                                                               std::uint32_t unit) const {
  switch (processes_[index].spec.unit) {
    case FailureUnit::kGpu:
      return {node_of_gpu_[unit], node_of_gpu_[unit] + 1};
    case FailureUnit::kRack: {
      const ClusterState& cluster = host_->view().cluster();
      return {cluster.rack_begin(static_cast<int>(unit)), cluster.rack_end(static_cast<int>(unit))};
    }
    case FailureUnit::kNode:
    case FailureUnit::kJobHour:
      break;
  }
  return {unit, unit + 1};
}

double FailureClasses::next_job_failure_s() { return unit_exponential(job_rng_) / job_rate_per_s_; }

double FailureClasses::uptime_s(std::size_t index, std::uint32_t unit) {
  const double uptime = next_uptime(index, unit);
  const FailureUnit kind = processes_[index].spec.unit;
  if (lemon_.empty() || (kind != FailureUnit::kGpu && kind != FailureUnit::kNode)) return uptime;
  return lemon_[domain(index, unit).first] ? uptime / options_.lemon_factor : uptime;
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
  } else if (timer.kind == hand_over_) {
    hand_over_spares(timer.tag);
  } else if (timer.kind == quarantine_end_) {
    plan_.clear();
    plan_.node_up(timer.subject);
    host_->apply(plan_);
  } else {
    job_fails(timer.subject, timer.tag);
  }
}

void FailureClasses::interrupt(std::uint32_t job, FailureCause cause, std::uint32_t first,
                               std::uint32_t last) {
  cover(job);
  if (stamp_[job] == plan_count_) return;  // already failed by this plan
  stamp_[job] = plan_count_;
  plan_.fail(job);
  if (options_.shrink_on_failure && first < last) keep_what_is_left(job, first, last);
  ++interruptions_[static_cast<int>(cause)];
  ++job_interruptions_[job];
  failed_at_[job] = host_->view().now();
}

void FailureClasses::keep_what_is_left(std::uint32_t job, std::uint32_t first, std::uint32_t last) {
  const View& view = host_->view();
  if (!view.resizable(job) || view.jobs()[job].phase == JobPhase::kCheckpointing) return;
  int kept = 0;
  for (const Grant& grant : view.grants_of(job))
    if (grant.node < first || grant.node >= last) kept += grant.gpus;
  if (kept == 0 || kept < view.min_gpus(job)) return;  // too few left: it waits again
  for (const Grant& grant : view.grants_of(job))
    if (grant.node < first || grant.node >= last) plan_.add_grant(grant);
}

void FailureClasses::unit_fails(std::size_t index, std::uint32_t unit) {
  const View& view = host_->view();
  const FailureClass& spec = processes_[index].spec;
  const auto [first, last] = domain(index, unit);
  plan_.clear();
  ++plan_count_;
  std::uint32_t nodes_taken_from_jobs = 0;
  for (std::uint32_t node = first; node < last; ++node) {
    if (!view.node_offline(node)) ++node_outages_;
    const auto holders = view.holders_on(node);
    if (!holders.empty()) ++nodes_taken_from_jobs;
    for (std::uint32_t job : holders) interrupt(job, spec.cause, first, last);
  }
  // Outages nest: a node already down for another failure stays down until both are repaired. A
  // spare that fails leaves the pool (its GPUs go back to the ledger, then down).
  for (std::uint32_t node = first; node < last; ++node) {
    if (!is_spare_.empty() && is_spare_[node]) {
      is_spare_[node] = 0;
      spares_.erase(std::find(spares_.begin(), spares_.end(), node));
      plan_.release_gpus(node, view.cluster().nodes()[node].gpus);
    }
    plan_.node_down(node);
  }
  // A GPU or node failure counts toward its node's quarantine (a rack's is not the node's own).
  if (spec.unit == FailureUnit::kGpu || spec.unit == FailureUnit::kNode) {
    if (quarantines(first)) {
      ++quarantined_;
      plan_.node_down(first);  // nested in the repair's outage: down until both have ended
      host_->schedule(view.now() + options_.quarantine_h * 3600.0, quarantine_end_, first, 0);
    }
  }
  host_->apply(plan_);
  if (hot_spares_ > 0 && nodes_taken_from_jobs > 0)
    host_->schedule(view.now() + hand_over_delay_s_, hand_over_, 0, nodes_taken_from_jobs);
  double repair_s = spec.repair_h * 3600.0;
  if (spec.repair_exponential) repair_s *= unit_exponential(processes_[index].rng);
  host_->schedule(view.now() + repair_s, up_, unit, static_cast<std::uint32_t>(index));
  host_->schedule(view.now() + repair_s + uptime_s(index, unit), fail_, unit,
                  static_cast<std::uint32_t>(index));
}

void FailureClasses::domain_repaired(std::size_t index, std::uint32_t unit) {
  const auto [first, last] = domain(index, unit);
  plan_.clear();
  for (std::uint32_t node = first; node < last; ++node) plan_.node_up(node);
  host_->apply(plan_);
  // Repaired nodes refill the spare pool while it is short (a node still down for another
  // failure, or already taken, is not free).
  const ClusterState& cluster = host_->view().cluster();
  for (std::uint32_t node = first; node < last; ++node)
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
          "rack, job_hour; default by cause), `shape` (Weibull k of up-times, 1 = exponential), "
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
          "as many over after `restart_detect_s` + `restart_reschedule_s`; repaired nodes "
          "refill the pool.");
  mechanism_key(
      keys, "failure_classes", "restart_detect_s",
      [](auto& o) -> auto& { return o.mechanisms.restart_detect_s; })
      .range(0.0, 1e9)
      .doc("Hot spares: seconds until a failure is detected (before the spares are handed over).");
  mechanism_key(
      keys, "failure_classes", "restart_reschedule_s",
      [](auto& o) -> auto& { return o.mechanisms.restart_reschedule_s; })
      .range(0.0, 1e9)
      .doc("Hot spares: seconds to reschedule the failed job onto them, after detection.");
  mechanism_key(
      keys, "failure_classes", "shrink_on_failure",
      [](auto& o) -> auto& { return o.mechanisms.shrink_on_failure; })
      .doc(
          "An elastic job a class failure takes nodes from shrinks to the GPUs it still holds "
          "(if at least its `min_gpus`): rolled back to its last save, it restores on them at "
          "once, and grows back into idle GPUs as elastic jobs do (needs `elastic`).");
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
