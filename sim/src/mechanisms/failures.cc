#include "mechanisms/failures.h"

#include <cmath>
#include <stdexcept>

namespace clustersim::internal {

FailureProcess::FailureProcess(const MechanismOptions& options, std::size_t nodes,
                               std::uint64_t seed)
    : model_(options.failure_model),
      mtbf_s_(options.mtbf_h * 3600.0),
      shape_(options.weibull_shape),
      repair_s_(options.repair_h * 3600.0) {
  if (!(mtbf_s_ > 0.0) || !std::isfinite(mtbf_s_))
    throw std::invalid_argument("mechanisms.mtbf_h must be > 0");
  if (!(shape_ > 0.0) || !std::isfinite(shape_))
    throw std::invalid_argument("mechanisms.weibull_shape must be > 0");
  if (!(repair_s_ >= 0.0) || !std::isfinite(repair_s_))
    throw std::invalid_argument("mechanisms.repair_h must be >= 0");
  // Mean of Weibull(k, scale) = scale * Gamma(1 + 1/k).
  weibull_scale_ = mtbf_s_ / std::tgamma(1.0 + 1.0 / shape_);
  streams_.reserve(nodes);
  std::uint64_t state = seed;
  for (std::size_t n = 0; n < nodes; ++n) streams_.emplace_back(splitmix64(state));
}

double FailureProcess::next_uptime(std::uint32_t node) {
  // Inverse CDF on 1 - u in (0, 1]: never log(0).
  const double tail = 1.0 - streams_[node].uniform();
  const double exponential = -std::log(tail);
  if (model_ == MechanismOptions::FailureModel::kExponential) return mtbf_s_ * exponential;
  return weibull_scale_ * std::pow(exponential, 1.0 / shape_);
}

Failures::Failures(const SimOptions& options) : options_(options.mechanisms) {
  if (options.mechanisms.mtbf_h > 0.0)
    process_ = std::make_unique<FailureProcess>(options.mechanisms, options.cluster.total_nodes(),
                                                stream_seed(options.seed, 0xfa11ed0dULL));
}

void Failures::attach(Host& host) {
  host_ = &host;
  down_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
  up_ = host.add_timer_kind(*this, TimerPhase::kBeforeArrivals);
}

void Failures::start() {
  for (const NodeOutage& outage : options_.failure_trace) {
    host_->schedule(outage.down, down_, outage.node, 0);
    host_->schedule(outage.up, up_, outage.node, 0);
  }
  if (!process_) return;
  const Time first_submit = host_->view().now();
  const auto nodes = static_cast<std::uint32_t>(host_->view().cluster().nodes().size());
  for (std::uint32_t node = 0; node < nodes; ++node)
    host_->schedule(first_submit + process_->next_uptime(node), down_, node, 1);
}

void Failures::on_timer(const Timer& timer) {
  if (timer.kind == down_) {
    node_down(timer.subject, timer.tag == 1);
  } else {
    node_up(timer.subject, timer.tag == 1);
  }
}

void Failures::node_down(std::uint32_t node, bool generated) {
  const View& view = host_->view();
  if (!view.node_offline(node)) {
    ++node_failures_;
    plan_.clear();
    for (std::uint32_t job : view.holders_on(node)) plan_.fail(job);
    if (!plan_.empty()) host_->apply(plan_);
  } else if (generated) {
    ++node_failures_;  // a second outage while down (it extends the outage)
  }
  host_->node_down(node);
  if (generated) host_->schedule(view.now() + process_->repair_s(), up_, node, 1);
}

void Failures::node_up(std::uint32_t node, bool generated) {
  host_->node_up(node);
  if (generated) host_->schedule(host_->view().now() + process_->next_uptime(node), down_, node, 1);
}

}  // namespace clustersim::internal
