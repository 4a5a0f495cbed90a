// A fleet's wide-area link (src/simulation/wan_link.h): checkpoint transfers timed by hand.
#include "simulation/wan_link.h"

#include <gtest/gtest.h>

#include <vector>

namespace clustersim {
namespace {

// An 8 Gb/s link (1 GB/s), 50 ms: A (4 GB at 0 s) sends alone for 1 s (1 GB), then shares
// with B (1 GB at 1 s), 0.5 GB/s each: B has sent by 3 s, A has 2 GB left then and sends them
// alone by 5 s. Each arrives 50 ms after its last byte left; C (1 GB at 10 s, alone) at 11.05.
TEST(Fleet, WanTransfersShareTheLinkEqually) {
  const WanLinkSpec link{"west", "east", 8.0, 50.0};
  const std::vector<internal::WanTransfer> transfers = {{0.0, 4e9}, {1.0, 1e9}, {10.0, 1e9}};
  const std::vector<double> arrival = internal::wan_arrival_times(link, transfers);
  ASSERT_EQ(arrival.size(), 3u);
  EXPECT_DOUBLE_EQ(arrival[0], 5.05);
  EXPECT_DOUBLE_EQ(arrival[1], 3.05);
  EXPECT_DOUBLE_EQ(arrival[2], 11.05);
}

}  // namespace
}  // namespace clustersim
