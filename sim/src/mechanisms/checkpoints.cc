#include "mechanisms/checkpoints.h"

#include <algorithm>

#include "mechanisms/keys.h"

namespace clustersim::internal {

void Checkpoints::attach(Host& host) {
  host_ = &host;
  due_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
}

void Checkpoints::on_job_running(std::uint32_t index) {
  const JobState& job = host_->view().jobs()[index];
  const double every = interval(job);
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
}

}  // namespace clustersim::options
