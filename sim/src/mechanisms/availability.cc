#include "mechanisms/availability.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "mechanisms/keys.h"

namespace clustersim::internal {

Availability::Availability(const SimOptions& options) : options_(options.mechanisms) {
  // Spares' and supply_following's GPUs are held outside jobs: a node going down while some of
  // its GPUs are held that way would leave the ledger's GPU count wrong (an engine limitation
  // the failures share).
  if (options.mechanisms.hot_spares > 0)
    throw std::invalid_argument(
        "mechanisms.availability_trace cannot be combined with hot_spares yet");
  if (options.power.enabled && options.supply.follow)
    throw std::invalid_argument(
        "mechanisms.availability_trace cannot be combined with supply.follow yet");
}

void Availability::attach(Host& host) {
  host_ = &host;
  away_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
  back_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
}

void Availability::start() {
  // As the failures' trace: the clock starts at the first arrival; a window open then takes its
  // node at once (no job ran earlier), one already closed has nothing left to take.
  const Time first_submit = host_->view().now();
  for (const NodeOutage& window : options_.availability_trace) {
    if (window.up <= first_submit) continue;
    host_->schedule(std::max(window.down, first_submit), away_, window.node);
    host_->schedule(window.up, back_, window.node);
  }
}

void Availability::on_timer(const Timer& timer) {
  const std::uint32_t node = timer.subject;
  plan_.clear();
  if (timer.kind == away_) {
    if (!host_->view().node_offline(node))
      for (std::uint32_t job : host_->view().holders_on(node)) plan_.fail(job);
    plan_.node_down(node);  // one plan: its jobs leave, then it goes
  } else {
    plan_.node_up(node);
  }
  host_->apply(plan_);
}

}  // namespace clustersim::internal

namespace clustersim::options {

void declare_availability_keys(KeyRegistry& keys) {
  custom(keys, "mechanisms.availability_trace", KeyType::kPath)
      .component("mechanism availability")
      .training_only()
      .default_note("none")
      .check_target<SimOptions>([](const SimOptions& o) -> std::string {
        const auto nodes = static_cast<std::uint32_t>(o.cluster.total_nodes());
        for (const NodeOutage& window : o.mechanisms.availability_trace)
          if (window.node >= nodes || !(window.down >= 0.0) || !(window.up > window.down) ||
              !std::isfinite(window.up))
            return "a window needs nodes of the cluster and 0 <= down < up";
        return "";
      })
      .doc(
          "A CSV of node unavailability windows `nodes,down,up` (nodes: K or A-B from 0, GROUP, "
          "GROUP/K or GROUP/A-B; seconds on the workload's clock): the nodes run nothing "
          "between down and up; their jobs are interrupted as by a failure and wait again.");
}

}  // namespace clustersim::options
