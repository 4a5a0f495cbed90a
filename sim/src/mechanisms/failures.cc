#include "mechanisms/failures.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "mechanisms/keys.h"

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

void keep_grants_off(const View& view, std::uint32_t job, std::span<const std::uint32_t> down,
                     Plan& plan) {
  if (!view.resizable(job) || view.jobs()[job].phase == JobPhase::kCheckpointing) return;
  // A domain is one node, a rack or a leaf: a linear look-up per grant is cheap enough.
  const auto kept_node = [down](const Grant& grant) {
    return std::find(down.begin(), down.end(), grant.node) == down.end();
  };
  int kept = 0;
  for (const Grant& grant : view.grants_of(job))
    if (kept_node(grant)) kept += grant.gpus;
  if (kept == 0 || kept < view.min_gpus(job)) return;  // too few left: it waits again
  for (const Grant& grant : view.grants_of(job))
    if (kept_node(grant)) plan.add_grant(grant);
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
  // The clock starts at the first arrival: an outage begun before it takes its node down then
  // (no job ran earlier), one already over has nothing left to take.
  const Time first_submit = host_->view().now();
  for (const NodeOutage& outage : options_.failure_trace) {
    if (outage.up <= first_submit) continue;
    host_->schedule(std::max(outage.down, first_submit), down_, outage.node, 0);
    host_->schedule(outage.up, up_, outage.node, 0);
  }
  if (!process_) return;
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
  plan_.clear();
  if (!view.node_offline(node)) {
    ++node_failures_;
    for (std::uint32_t job : view.holders_on(node)) {
      plan_.fail(job);
      if (options_.shrink_on_failure) keep_grants_off(view, job, std::span(&node, 1), plan_);
    }
  } else if (generated) {
    ++node_failures_;  // a second outage while down (it extends the outage)
  }
  plan_.node_down(node);  // one plan: the node's jobs fail, then it goes down
  host_->apply(plan_);
  if (generated) host_->schedule(view.now() + process_->repair_s(), up_, node, 1);
}

void Failures::node_up(std::uint32_t node, bool generated) {
  plan_.clear();
  plan_.node_up(node);
  host_->apply(plan_);
  if (generated) host_->schedule(host_->view().now() + process_->next_uptime(node), down_, node, 1);
}

}  // namespace clustersim::internal

namespace clustersim::options {

// ---- Failures ----
void declare_failure_keys(KeyRegistry& keys) {
  mechanism_key(
      keys, "failures", "mtbf_h", [](auto& o) -> auto& { return o.mechanisms.mtbf_h; })
      .range(0.0, 1e12)
      .doc("Node failures: each node's mean time between failures, hours (0 = none generated).");
  using FailureModel = MechanismOptions::FailureModel;
  choice<SimOptions>(
      keys, "mechanisms.failure_model", [](auto& o) -> auto& { return o.mechanisms.failure_model; },
      std::vector<std::pair<std::string, FailureModel>>{{"exponential", FailureModel::kExponential},
                                                        {"weibull", FailureModel::kWeibull}})
      .component("mechanism failures")
      .training_only()
      .doc("Up-times between a node's failures: `exponential` or `weibull`, with mean `mtbf_h`.");
  mechanism_key(
      keys, "failures", "weibull_shape",
      [](auto& o) -> auto& { return o.mechanisms.weibull_shape; })
      .range(1e-3, 1e3)
      .doc("Weibull k (< 1: infant mortality), scaled to the MTBF.");
  mechanism_key(
      keys, "failures", "repair_h", [](auto& o) -> auto& { return o.mechanisms.repair_h; })
      .range(0.0, 1e12)
      .doc("A failed node is down this long, hours.");
  custom(keys, "mechanisms.failure_trace", KeyType::kPath)
      .component("mechanism failures")
      .training_only()
      .default_note("none")
      .check_target<SimOptions>([](const SimOptions& o) -> std::string {
        const auto nodes = static_cast<std::uint32_t>(o.cluster.total_nodes());
        for (const NodeOutage& outage : o.mechanisms.failure_trace)
          if (outage.node >= nodes || !(outage.down >= 0.0) || !(outage.up > outage.down) ||
              !std::isfinite(outage.up))
            return "an outage needs a node of the cluster and 0 <= down < up";
        return "";
      })
      .doc(
          "A CSV of node outages `node,down,up` (node: an index from 0 or `GROUP/K`; seconds on "
          "the workload's clock), replayed with the generated failures, if any.");
}

}  // namespace clustersim::options
