#include "mechanisms/checkpoints.h"

#include <algorithm>
#include <cmath>

#include "mechanisms/failure_classes.h"
#include "mechanisms/keys.h"

namespace clustersim::internal {

double young_daly_interval_s(double save_s, double failures_per_s) {
  if (!(save_s > 0.0) || !(failures_per_s > 0.0)) return 0.0;
  return std::sqrt(2.0 * save_s / failures_per_s);
}

double job_failure_rate_per_s(const MechanismOptions& options, int gpus, int nodes, int racks,
                              int leaves) {
  double per_h = options.mtbf_h > 0.0 ? nodes / options.mtbf_h : 0.0;
  for (const FailureClass& c : options.failure_classes) {
    switch (c.unit) {
      case FailureUnit::kGpu:
        per_h += c.rate_per_h * gpus;
        break;
      case FailureUnit::kNode:
        per_h += c.rate_per_h * nodes;
        break;
      case FailureUnit::kRack:
        per_h += c.rate_per_h * racks;
        break;
      case FailureUnit::kLeaf:
        per_h += c.rate_per_h * (leaves < 0 ? racks : leaves);
        break;
      case FailureUnit::kJobHour:
        per_h += c.rate_per_h;
        break;
    }
  }
  return per_h / 3600.0;
}

Checkpoints::Checkpoints(const SimOptions& options)
    : options_(options.mechanisms), fabric_(options.fabric) {
  // Expected costs only (no draw): the seed is never used.
  if (options_.checkpoint_policy == MechanismOptions::CheckpointPolicy::kYoungDaly)
    overheads_ = std::make_unique<OverheadModel>(options, 0);
}

void Checkpoints::attach(Host& host) {
  host_ = &host;
  due_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
}

void Checkpoints::start() {
  leaf_of_.clear();
  const bool leaf_class =
      std::any_of(options_.failure_classes.begin(), options_.failure_classes.end(),
                  [](const FailureClass& c) { return c.unit == FailureUnit::kLeaf; });
  if (overheads_ && leaf_class && fabric_.contention())
    leaf_of_ = failure_leaf_of(fabric_, host_->view().cluster());
}

double Checkpoints::interval(std::uint32_t index, const JobState& job) {
  if (job.spec->checkpoint_interval_s > 0.0) return job.spec->checkpoint_interval_s;
  if (!overheads_) return options_.checkpoint_interval_s;
  const View& view = host_->view();
  racks_.clear();
  for (const Grant& grant : view.grants_of(index))
    racks_.push_back(view.cluster().nodes()[grant.node].rack);
  const int nodes = static_cast<int>(racks_.size());  // a job holds one grant per node
  std::sort(racks_.begin(), racks_.end());
  const auto racks = static_cast<int>(std::unique(racks_.begin(), racks_.end()) - racks_.begin());
  int leaves = -1;
  if (!leaf_of_.empty()) {
    leaves_.clear();
    for (const Grant& grant : view.grants_of(index)) leaves_.push_back(leaf_of_[grant.node]);
    std::sort(leaves_.begin(), leaves_.end());
    leaves = static_cast<int>(std::unique(leaves_.begin(), leaves_.end()) - leaves_.begin());
  }
  overheads_->load(view.jobs().size());
  const double save_s = overheads_->expected_seconds(OverheadKind::kCheckpoint, index, *job.spec);
  return young_daly_interval_s(save_s,
                               job_failure_rate_per_s(options_, job.gpus, nodes, racks, leaves));
}

void Checkpoints::on_job_running(std::uint32_t index) {
  const JobState& job = host_->view().jobs()[index];
  const double every = interval(index, job);
  if (every <= 0.0) return;
  const Time now = host_->view().now();
  const double due = now + std::max(0.0, every - job.run_since_save);
  if (due < now + job.remaining / job.rate) host_->schedule(due, due_, index, job.epoch);
}

void Checkpoints::on_timer(const Timer& timer) {
  const JobState& job = host_->view().jobs()[timer.subject];
  if (timer.tag != job.epoch) return;  // it changed phase since: stale
  plan_.clear();
  plan_.save(timer.subject);
  host_->apply(plan_);
}

}  // namespace clustersim::internal

namespace clustersim::options {

// ---- Periodic checkpoints ----
void declare_checkpoint_keys(KeyRegistry& keys) {
  mechanism_key(
      keys, "checkpoints", "checkpoint_interval_s",
      [](auto& o) -> auto& { return o.mechanisms.checkpoint_interval_s; })
      .range(0.0, 1e12)
      .doc(
          "A running job saves after every this many seconds of running (its CSV "
          "`checkpoint_interval_s` wins); a failure rolls it back to its last save.");
  using Policy = MechanismOptions::CheckpointPolicy;
  choice<SimOptions>(
      keys, "mechanisms.checkpoint_policy",
      [](auto& o) -> auto& { return o.mechanisms.checkpoint_policy; },
      std::vector<std::pair<std::string, Policy>>{{"fixed", Policy::kFixed},
                                                  {"young_daly", Policy::kYoungDaly}})
      .component("mechanism checkpoints")
      .training_only()
      .doc(
          "A job's save interval where it names none: `fixed` (`checkpoint_interval_s`) or "
          "`young_daly`, sqrt(2 w / lambda) for its expected checkpoint cost w and the failures "
          "per second lambda its placement sees from the failure classes and `mtbf_h`.");
  using Write = MechanismOptions::CheckpointWrite;
  choice<SimOptions>(
      keys, "mechanisms.checkpoint_write",
      [](auto& o) -> auto& { return o.mechanisms.checkpoint_write; },
      std::vector<std::pair<std::string, Write>>{{"sync", Write::kSync}, {"async", Write::kAsync}})
      .component("mechanism checkpoints")
      .training_only()
      .doc(
          "How a periodic save is written: `sync` (the job pauses for the whole checkpoint cost) "
          "or `async` (it pauses for `checkpoint_snapshot_s`, then runs while the save is written "
          "for the checkpoint cost; the save counts once written, and a failure during the "
          "write rolls back to the one before; a save due during a write waits for it).");
  mechanism_key(
      keys, "checkpoints", "checkpoint_snapshot_s",
      [](auto& o) -> auto& { return o.mechanisms.checkpoint_snapshot_s; })
      .range(0.0, 1e12)
      .when("mechanisms.checkpoint_write", {"async"})
      .doc("Seconds an asynchronous save pauses the job for (the copy of its state).");
}

}  // namespace clustersim::options
