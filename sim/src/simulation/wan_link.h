// Checkpoint transfers over a fleet's wide-area link (fleet.h's WanLinkSpec; sim/README.md,
// "Fleet"): the rule the rebalancer's transfers will be timed by, on its own so that it is
// checked by hand before the rebalancer uses it.
#pragma once

#include <span>
#include <vector>

#include "clustersim/fleet.h"

namespace clustersim::internal {

struct WanTransfer {
  double start_s = 0.0;  // when its bytes start to flow
  double bytes = 0.0;    // the checkpoint's size
};

// When each transfer has arrived: its bytes flow at the link's bandwidth shared equally by the
// transfers whose bytes are flowing at that moment (processor sharing), and the last byte
// arrives `latency_ms` after it left. In the order given; O(n^2) in the transfers of one link.
std::vector<double> wan_arrival_times(const WanLinkSpec& link,
                                      std::span<const WanTransfer> transfers);

}  // namespace clustersim::internal
