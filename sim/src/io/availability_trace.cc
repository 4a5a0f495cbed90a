#include "io/internal/availability_trace.h"

#include <array>
#include <optional>
#include <sstream>
#include <utility>

#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "workload/internal/text_parsing.h"

namespace clustersim::io_internal {

namespace {

using workload_internal::trim;

constexpr std::array<std::string_view, 3> kAvailabilityColumns = {"nodes", "down", "up"};

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
  std::string line;
  std::vector<std::string> fields;
  std::size_t line_number = 0;
  std::array<int, 3> column_of{-1, -1, -1};  // by kAvailabilityColumns: position in a row
  std::size_t columns = 0;
  const auto fail = [&](std::string_view field, const std::string& message) {
    throw InputError(source_name, line_number, std::string(field), message);
  };
  while (workload_internal::read_line(in, line)) {
    ++line_number;
    const std::string_view text = trim(line);
    if (text.empty() || text.front() == '#') continue;
    if (auto error = workload_internal::split_csv(line, ',', fields)) fail("", *error);
    if (columns == 0) {  // the header
      for (std::size_t i = 0; i < fields.size(); ++i) {
        std::size_t c = 0;
        while (c < kAvailabilityColumns.size() && kAvailabilityColumns[c] != trim(fields[i])) ++c;
        if (c == kAvailabilityColumns.size())
          fail(fields[i], "unknown column (expected nodes,down,up)");
        if (column_of[c] >= 0) fail(fields[i], "column appears twice in header");
        column_of[c] = static_cast<int>(i);
      }
      for (std::size_t c = 0; c < kAvailabilityColumns.size(); ++c)
        if (column_of[c] < 0) fail(kAvailabilityColumns[c], "required column missing");
      columns = fields.size();
      continue;
    }
    if (fields.size() != columns)
      fail("", "row has " + std::to_string(fields.size()) + " fields, header has " +
                   std::to_string(columns));
    const std::string& nodes = fields[column_of[0]];
    const auto range = node_range(nodes, cluster);
    if (!range)
      fail("nodes", "no nodes '" + excerpt(nodes) + "' in the cluster (" +
                        std::to_string(cluster.total_nodes()) +
                        " nodes: K or A-B from 0, GROUP, GROUP/K or GROUP/A-B)");
    const auto time = [&](int column) {
      const auto value = workload_internal::parse_finite_double(fields[column_of[column]]);
      if (!value || *value < 0.0)
        fail(kAvailabilityColumns[column],
             "expected seconds >= 0, got '" + excerpt(fields[column_of[column]]) + "'");
      return *value;
    };
    NodeOutage outage;
    outage.source_line = line_number;
    outage.down = time(1);
    outage.up = time(2);
    if (!(outage.up > outage.down)) fail("up", "nodes must come back after they went away");
    for (long long node = range->first; node <= range->second; ++node) {
      outage.node = static_cast<std::uint32_t>(node);
      outages.push_back(outage);
    }
  }
  if (in.bad()) throw InputError(source_name, 0, "", "read error");
  if (columns == 0) throw InputError(source_name, 0, "", "no header (expected nodes,down,up)");
  return outages;
}

std::vector<NodeOutage> load_availability_trace(const std::string& path,
                                                const ClusterSpec& cluster) {
  std::istringstream in(read_input_file(path, "availability trace"));
  return read_availability_trace(in, path, cluster);
}

}  // namespace clustersim::io_internal
