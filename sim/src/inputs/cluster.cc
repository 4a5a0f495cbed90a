#include "clustersim/cluster.h"

namespace clustersim {

int ClusterSpec::total_gpus() const {
  int total = 0;
  for (const auto& group : groups) total += group.nodes * group.gpus_per_node;
  return total;
}

int ClusterSpec::total_nodes() const {
  int total = 0;
  for (const auto& group : groups) total += group.nodes;
  return total;
}

}  // namespace clustersim
