#include "clustersim/failure_trace.h"

#include <array>
#include <sstream>

#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "workload/internal/text_parsing.h"

namespace clustersim {

namespace {

using workload_internal::trim;

constexpr std::array<std::string_view, 3> kColumns = {"node", "down", "up"};

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
  std::string line;
  std::vector<std::string> fields;
  std::size_t line_number = 0;
  std::array<int, 3> column_of{-1, -1, -1};  // by kColumns: position in a row
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
        while (c < kColumns.size() && kColumns[c] != fields[i]) ++c;
        if (c == kColumns.size()) fail(fields[i], "unknown column (expected node,down,up)");
        if (column_of[c] >= 0) fail(fields[i], "column appears twice in header");
        column_of[c] = static_cast<int>(i);
      }
      for (std::size_t c = 0; c < kColumns.size(); ++c)
        if (column_of[c] < 0) fail(kColumns[c], "required column missing");
      columns = fields.size();
      continue;
    }
    if (fields.size() != columns)
      fail("", "row has " + std::to_string(fields.size()) + " fields, header has " +
                   std::to_string(columns));
    NodeOutage outage;
    outage.source_line = line_number;
    const std::string& node = fields[column_of[0]];
    const long long index = node_index(node, cluster);
    if (index < 0)
      fail("node", "no node '" + excerpt(node) + "' in the cluster (" +
                       std::to_string(cluster.total_nodes()) +
                       " nodes: an index from 0, or GROUP/K)");
    outage.node = static_cast<std::uint32_t>(index);
    const auto time = [&](int column) {
      const auto value = workload_internal::parse_finite_double(fields[column_of[column]]);
      if (!value || *value < 0.0)
        fail(kColumns[column],
             "expected seconds >= 0, got '" + excerpt(fields[column_of[column]]) + "'");
      return *value;
    };
    outage.down = time(1);
    outage.up = time(2);
    if (!(outage.up > outage.down)) fail("up", "a node must come back up after it went down");
    outages.push_back(outage);
  }
  if (in.bad()) throw InputError(source_name, 0, "", "read error");
  if (columns == 0) throw InputError(source_name, 0, "", "no header (expected node,down,up)");
  return outages;
}

std::vector<NodeOutage> load_failure_trace(const std::string& path, const ClusterSpec& cluster) {
  std::istringstream in(read_input_file(path, "failure trace"));
  return read_failure_trace(in, path, cluster);
}

}  // namespace clustersim
