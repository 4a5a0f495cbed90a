#include "io/internal/availability_trace.h"

#include <array>
#include <optional>
#include <sstream>
#include <utility>

#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "io/internal/headed_csv.h"
#include "workload/internal/text_parsing.h"

namespace clustersim::io_internal {

namespace {

using workload_internal::trim;

enum AvailabilityColumn { kOutageNodes, kOutageDown, kOutageUp };
constexpr std::array<CsvColumn, 3> kAvailabilityColumns = {{{"nodes"}, {"down"}, {"up"}}};

// "K" or "A-B" (both ends included) within [0, count); nullopt when malformed or outside.
std::optional<std::pair<long long, long long>> index_range(std::string_view text, long long count) {
  text = trim(text);
  const auto dash = text.find('-');
  const auto first = workload_internal::parse_int64(trim(text.substr(0, dash)));
  const auto last = dash == std::string_view::npos
                        ? first
                        : workload_internal::parse_int64(trim(text.substr(dash + 1)));
  if (!first || !last || *first < 0 || *last < *first || *last >= count) return std::nullopt;
  return std::make_pair(*first, *last);
}

// The nodes a `nodes` field names, as cluster indices [first, last]; nullopt when it names none.
std::optional<std::pair<long long, long long>> node_range(std::string_view text,
                                                          const ClusterSpec& cluster) {
  const auto slash = text.rfind('/');
  long long offset = 0;
  const std::string_view name =
      trim(slash == std::string_view::npos ? text : text.substr(0, slash));
  for (const NodeGroupSpec& group : cluster.groups) {
    if (group.name == name) {
      if (slash == std::string_view::npos) return std::make_pair(offset, offset + group.nodes - 1);
      const auto range = index_range(text.substr(slash + 1), group.nodes);
      if (!range) return std::nullopt;
      return std::make_pair(offset + range->first, offset + range->second);
    }
    offset += group.nodes;
  }
  if (slash != std::string_view::npos) return std::nullopt;
  return index_range(text, cluster.total_nodes());
}

}  // namespace

std::vector<NodeOutage> read_availability_trace(std::istream& in, const std::string& source_name,
                                                const ClusterSpec& cluster) {
  std::vector<NodeOutage> outages;
  HeadedCsv csv(in, source_name, kAvailabilityColumns, "nodes,down,up");
  while (csv.next_row()) {
    const std::string& nodes = csv[kOutageNodes];
    const auto range = node_range(nodes, cluster);
    if (!range)
      csv.fail("nodes", "no nodes '" + excerpt(nodes) + "' in the cluster (" +
                            std::to_string(cluster.total_nodes()) +
                            " nodes: K or A-B from 0, GROUP, GROUP/K or GROUP/A-B)");
    const auto time = [&](AvailabilityColumn column) {
      const auto value = workload_internal::parse_finite_double(csv[column]);
      if (!value || *value < 0.0)
        csv.fail(kAvailabilityColumns[column].name,
                 "expected seconds >= 0, got '" + excerpt(csv[column]) + "'");
      return *value;
    };
    NodeOutage outage;
    outage.source_line = csv.line();
    outage.down = time(kOutageDown);
    outage.up = time(kOutageUp);
    if (!(outage.up > outage.down)) csv.fail("up", "nodes must come back after they went away");
    for (long long node = range->first; node <= range->second; ++node) {
      outage.node = static_cast<std::uint32_t>(node);
      outages.push_back(outage);
    }
  }
  return outages;
}

std::vector<NodeOutage> load_availability_trace(const std::string& path,
                                                const ClusterSpec& cluster) {
  std::istringstream in(read_input_file(path, "availability trace"));
  return read_availability_trace(in, path, cluster);
}

}  // namespace clustersim::io_internal
