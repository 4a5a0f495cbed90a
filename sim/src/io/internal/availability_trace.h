// Node availability traces ([mechanisms] availability_trace): windows in which nodes are
// unavailable (maintenance, preemptible capacity taken back), one per row.
//
//   nodes,down,up
//   3,3600,7200            one node by index (the cluster's order, 0-based)
//   0-15,86400,90000       a range of indices, both ends included
//   v100/2,0,600           the K-th node (0-based) of the [[cluster.node_group]] GROUP
//   v100/0-3,0,600         a range within a group
//   v100,100,200           every node of a group
//
// `down` and `up` are seconds on the workload's clock, 0 <= down < up. Each row becomes one
// NodeOutage per node, in row order. Blank lines and lines starting with '#' are ignored; the
// header is required. InputError (FILE:LINE: field: message) on a malformed row or a node the
// cluster does not have.
#pragma once

#include <istream>
#include <string>
#include <vector>

#include "clustersim/cluster.h"
#include "clustersim/mechanisms.h"

namespace clustersim::io_internal {

std::vector<NodeOutage> read_availability_trace(std::istream& in, const std::string& source_name,
                                                const ClusterSpec& cluster);
std::vector<NodeOutage> load_availability_trace(const std::string& path,
                                                const ClusterSpec& cluster);

}  // namespace clustersim::io_internal
