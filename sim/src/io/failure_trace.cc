#include "clustersim/failure_trace.h"

#include <array>
#include <sstream>

#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "io/internal/headed_csv.h"
#include "workload/internal/text_parsing.h"

namespace clustersim {

namespace {

using workload_internal::trim;

enum FailureTraceColumn { kFailedNode, kFailedAt, kRepairedAt };
constexpr std::array<io_internal::CsvColumn, 3> kColumns = {{{"node"}, {"down"}, {"up"}}};

// A node's index from "K" or "GROUP/K"; -1 when the cluster has no such node.
long long node_index(std::string_view text, const ClusterSpec& cluster) {
  const auto slash = text.rfind('/');
  if (slash == std::string_view::npos) {
    const auto index = workload_internal::parse_int64(text);
    if (!index || *index < 0 || *index >= cluster.total_nodes()) return -1;
    return *index;
  }
  const std::string_view group = trim(text.substr(0, slash));
  const auto k = workload_internal::parse_int64(text.substr(slash + 1));
  long long first = 0;
  for (const NodeGroupSpec& spec : cluster.groups) {
    if (spec.name == group) return k && *k >= 0 && *k < spec.nodes ? first + *k : -1;
    first += spec.nodes;
  }
  return -1;
}

}  // namespace

std::vector<NodeOutage> read_failure_trace(std::istream& in, const std::string& source_name,
                                           const ClusterSpec& cluster) {
  std::vector<NodeOutage> outages;
  io_internal::HeadedCsv csv(in, source_name, kColumns, "node,down,up");
  while (csv.next_row()) {
    NodeOutage outage;
    outage.source_line = csv.line();
    const std::string& node = csv[kFailedNode];
    const long long index = node_index(node, cluster);
    if (index < 0)
      csv.fail("node", "no node '" + excerpt(node) + "' in the cluster (" +
                           std::to_string(cluster.total_nodes()) +
                           " nodes: an index from 0, or GROUP/K)");
    outage.node = static_cast<std::uint32_t>(index);
    const auto time = [&](FailureTraceColumn column) {
      const auto value = workload_internal::parse_finite_double(csv[column]);
      if (!value || *value < 0.0)
        csv.fail(kColumns[column].name,
                 "expected seconds >= 0, got '" + excerpt(csv[column]) + "'");
      return *value;
    };
    outage.down = time(kFailedAt);
    outage.up = time(kRepairedAt);
    if (!(outage.up > outage.down)) csv.fail("up", "a node must come back up after it went down");
    outages.push_back(outage);
  }
  return outages;
}

std::vector<NodeOutage> load_failure_trace(const std::string& path, const ClusterSpec& cluster) {
  std::istringstream in(read_input_file(path, "failure trace"));
  return read_failure_trace(in, path, cluster);
}

}  // namespace clustersim
