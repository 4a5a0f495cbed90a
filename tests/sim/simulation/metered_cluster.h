// The power tests' cluster: GPUs "generic" at idle 50 W and peak 300 W, intensity 1 (a busy GPU
// draws 250 W above idle), node base 100 W, PUE 1: the figures their hand computations use.
#pragma once

#include "clustersim/simulator.h"
#include "test_util.h"

namespace clustersim::testing {

inline SimOptions metered_cluster(int nodes, int gpus_per_node) {
  SimOptions options = small_cluster(nodes, gpus_per_node);
  options.power.enabled = true;
  options.power.gpu_idle_w = {{"generic", 50.0}};
  options.power.gpu_peak_w = {{"generic", 300.0}};
  options.power.intensity = 1.0;
  options.power.node_base_w = 100.0;
  options.power.pue = 1.0;
  return options;
}

}  // namespace clustersim::testing
