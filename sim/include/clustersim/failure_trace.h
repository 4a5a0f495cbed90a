// Failure traces ([mechanisms] failure_trace): replayed node outages, one per row.
//
//   node,down,up
//   12,3600,7200
//   v100/3,86400,90000
//
// `node` is a node's index in the cluster's order (groups in the order they are listed, 0-based)
// or GROUP/K, the K-th node (0-based) of the [[cluster.node_group]] named GROUP (the simple form
// [cluster] nodes = N is the group "default"). `down` and `up` are seconds on the workload's
// clock, 0 <= down < up. Blank lines and lines starting with '#' are ignored; the header is
// required. A node the cluster does not have, a bad time or a malformed row is an InputError
// naming the file, line and field.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "clustersim/cluster.h"
#include "clustersim/mechanisms.h"

namespace clustersim {

std::vector<NodeOutage> read_failure_trace(std::istream& in, const std::string& source_name,
                                           const ClusterSpec& cluster);
std::vector<NodeOutage> load_failure_trace(const std::string& path, const ClusterSpec& cluster);

}  // namespace clustersim
