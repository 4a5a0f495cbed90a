#include "mechanisms/idle_power_off.h"

#include <algorithm>
#include <stdexcept>

#include "metrics/power_meter.h"

namespace clustersim::internal {

IdlePowerOff::IdlePowerOff(const SimOptions& options) : options_(options.power) {}

void IdlePowerOff::attach(Host& host) {
  if (!meter_) throw std::logic_error("idle_power_off: needs the power meter ([power] enabled)");
  host_ = &host;
  off_timer_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
  boot_timer_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
  const std::size_t nodes = host.view().cluster().nodes().size();
  power_.assign(nodes, Power::kOn);
  timed_.assign(nodes, 0);
  era_.assign(nodes, 0);
  off_since_.assign(nodes, 0.0);
}

bool IdlePowerOff::idle(std::uint32_t node) const {
  const View& view = host_->view();
  const auto& state = view.cluster().node(node);
  return power_[node] == Power::kOn && !view.node_offline(node) && view.holders_on(node).empty() &&
         state.free_gpus == state.gpus;
}

bool IdlePowerOff::serves(std::uint32_t node, int gpu_type) const {
  return gpu_type < 0 || host_->view().cluster().node(node).gpu_type == gpu_type;
}

int IdlePowerOff::head_need() const {
  if (stages_->queue_empty()) return 0;
  // A job of no whole GPU (CPU-only, a share) needs one node: counted as one GPU of it.
  return std::max(1, host_->view().jobs()[stages_->head()].gpus);
}

int IdlePowerOff::ready_gpus(int gpu_type, std::uint32_t skip) const {
  const ClusterState& cluster = host_->view().cluster();
  int ready = 0;
  for (std::uint32_t n = 0; n < power_.size(); ++n)
    if (n != skip && serves(n, gpu_type) && (idle(n) || power_[n] == Power::kBooting))
      ready += std::max(1, cluster.node(n).gpus);
  return ready;
}

void IdlePowerOff::wake_for_head() {
  const int need = head_need();
  if (need == 0) return;
  const int type = host_->view().jobs()[stages_->head()].gpu_type;
  const auto none = static_cast<std::uint32_t>(power_.size());
  int ready = ready_gpus(type, none);
  const View& view = host_->view();
  for (std::uint32_t n = 0; n < power_.size() && ready < need; ++n) {
    if (power_[n] != Power::kOff || !serves(n, type)) continue;
    power_[n] = Power::kBooting;
    off_s_ += view.now() - off_since_[n];
    ++boots_;
    meter_->set_node_off(n, false);  // booting, it draws its base and idle power
    host_->schedule(view.now() + options_.boot_s, boot_timer_, n);
    ready += std::max(1, view.cluster().node(n).gpus);
  }
}

void IdlePowerOff::switch_off(std::uint32_t node) {
  power_[node] = Power::kOff;
  off_since_[node] = host_->view().now();
  meter_->set_node_off(node, true);
  host_->node_down(node);
}

void IdlePowerOff::on_timer(const Timer& timer) {
  const std::uint32_t node = timer.subject;
  if (timer.kind == boot_timer_) {
    power_[node] = Power::kOn;
    host_->node_up(node);  // a decision follows: the head starts on it
    return;
  }
  if (timer.tag != era_[node]) return;  // its idle stretch ended meanwhile
  if (!idle(node)) {                    // it went down or runs a job: a new stretch later
    timed_[node] = 0;
    ++era_[node];
    return;
  }
  const int need = head_need();
  if (need > 0 && serves(node, host_->view().jobs()[stages_->head()].gpu_type) &&
      ready_gpus(host_->view().jobs()[stages_->head()].gpu_type, node) < need) {
    // The waiting head would need it back: it stays on, looked at again later.
    host_->schedule(host_->view().now() + *options_.idle_off_after_s, off_timer_, node, era_[node]);
    return;
  }
  timed_[node] = 0;
  ++era_[node];
  switch_off(node);
}

void IdlePowerOff::after_decision(Time now) {
  for (std::uint32_t n = 0; n < power_.size(); ++n) {
    const bool is_idle = idle(n);
    if (is_idle && !timed_[n]) {
      timed_[n] = 1;
      host_->schedule(now + *options_.idle_off_after_s, off_timer_, n, era_[n]);
    } else if (!is_idle && timed_[n]) {
      timed_[n] = 0;
      ++era_[n];  // its pending timer no longer counts
    }
  }
  wake_for_head();
}

void IdlePowerOff::report(RunMetrics& metrics) const {
  const Time now = host_->view().now();
  double off_s = off_s_;
  for (std::uint32_t n = 0; n < power_.size(); ++n)
    if (power_[n] == Power::kOff) off_s += now - off_since_[n];
  metrics.node_boots = boots_;
  metrics.node_off_h = off_s / 3600.0;
}

}  // namespace clustersim::internal
