// Percentiles of run metrics, one definition for every engine (training and serving).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace clustersim::internal {

// Linear interpolation between closest ranks (numpy's default). Selects the two ranks with
// nth_element (linear time; no full sort); `values` is reordered.
inline double percentile(std::vector<double>& values, double q) {
  if (values.empty()) return 0.0;
  const double position = q * static_cast<double>(values.size() - 1);
  const auto lower = static_cast<std::size_t>(std::floor(position));
  const std::size_t upper = std::min(lower + 1, values.size() - 1);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(lower),
                   values.end());
  const double low = values[lower];
  const double high =
      upper == lower
          ? low
          : *std::min_element(values.begin() + static_cast<std::ptrdiff_t>(upper), values.end());
  return low + (high - low) * (position - static_cast<double>(lower));
}

}  // namespace clustersim::internal
