// One factory per placement file; registry.cc maps names to them.
#pragma once

#include <memory>

#include "clustersim/placement.h"

namespace clustersim::placement {

std::unique_ptr<PlacementPolicy> make_consolidate(Rng& rng);
std::unique_ptr<PlacementPolicy> make_spread(Rng& rng);
std::unique_ptr<PlacementPolicy> make_best_fit(Rng& rng);
std::unique_ptr<PlacementPolicy> make_random(Rng& rng);
std::unique_ptr<PlacementPolicy> make_topology(Rng& rng);

}  // namespace clustersim::placement
