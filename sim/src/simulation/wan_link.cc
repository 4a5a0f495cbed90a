#include "simulation/wan_link.h"

#include <algorithm>
#include <limits>

namespace clustersim::internal {

std::vector<double> wan_arrival_times(const WanLinkSpec& link,
                                      std::span<const WanTransfer> transfers) {
  const double bytes_per_s = link.bandwidth_gbps * 1e9 / 8.0;
  const double infinity = std::numeric_limits<double>::infinity();
  std::vector<double> left(transfers.size()), sent(transfers.size(), infinity);
  for (std::size_t i = 0; i < transfers.size(); ++i) left[i] = transfers[i].bytes;
  // From one event (a start or an end of sending) to the next, each flowing transfer sends
  // bandwidth / flowing bytes per second.
  double now = transfers.empty() ? 0.0 : transfers[0].start_s;
  for (const WanTransfer& t : transfers) now = std::min(now, t.start_s);
  std::size_t done = 0;
  while (done < transfers.size()) {
    std::size_t flowing = 0;
    double next_start = infinity;
    for (std::size_t i = 0; i < transfers.size(); ++i) {
      if (!(sent[i] == infinity)) continue;
      if (transfers[i].start_s <= now)
        ++flowing;
      else
        next_start = std::min(next_start, transfers[i].start_s);
    }
    if (flowing == 0) {
      now = next_start;
      continue;
    }
    const double rate = bytes_per_s / static_cast<double>(flowing);
    double first_end = infinity;
    for (std::size_t i = 0; i < transfers.size(); ++i)
      if (sent[i] == infinity && transfers[i].start_s <= now)
        first_end = std::min(first_end, now + left[i] / rate);
    const double next = std::min(first_end, next_start);
    for (std::size_t i = 0; i < transfers.size(); ++i) {
      if (!(sent[i] == infinity) || transfers[i].start_s > now) continue;
      // Those ending first end exactly then (the same expression as above: no rounding sliver).
      if (next == first_end && now + left[i] / rate == first_end) {
        sent[i] = next;
        ++done;
      } else {
        left[i] -= rate * (next - now);
      }
    }
    now = next;
  }
  std::vector<double> arrival(transfers.size());
  for (std::size_t i = 0; i < transfers.size(); ++i) arrival[i] = sent[i] + link.latency_ms / 1e3;
  return arrival;
}

}  // namespace clustersim::internal
