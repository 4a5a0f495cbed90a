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

}  // namespace clustersim::internal
