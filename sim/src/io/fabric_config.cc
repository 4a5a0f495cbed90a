// [fabric]'s table and its host-to-switch map (fabric.topology).
#include <sstream>
#include <string>
#include <vector>

#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "io/internal/config_reader.h"
#include "io/internal/config_tables.h"

namespace clustersim::io_internal {

namespace {

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> cells;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, ',')) {
    while (!cell.empty() && (cell.back() == '\r' || cell.back() == ' ')) cell.pop_back();
    cells.push_back(cell);
  }
  if (!line.empty() && line.back() == ',') cells.emplace_back();
  return cells;
}

}  // namespace

void read_switch_map(const std::string& text, const std::string& source, FabricOptions& fabric) {
  std::istringstream in(text);
  std::string line;
  std::size_t number = 0;
  int leaf_column = -1, spine_column = -1;
  std::size_t columns = 0;
  fabric.topology_leaf.clear();
  fabric.topology_spine.clear();
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string> cells = split_commas(line);
    if (columns == 0) {
      columns = cells.size();
      for (std::size_t i = 0; i < cells.size(); ++i) {
        if (cells[i] == "ASW") leaf_column = static_cast<int>(i);
        if (cells[i] == "PSW") spine_column = static_cast<int>(i);
      }
      if (leaf_column < 0 || spine_column < 0)
        throw InputError(source, number, leaf_column < 0 ? "ASW" : "PSW",
                         "required column missing (a host-to-switch map: ip,DSW,PSW,ASW)");
      continue;
    }
    if (cells.size() != columns)
      throw InputError(source, number, "",
                       "row has " + std::to_string(cells.size()) + " fields, header has " +
                           std::to_string(columns));
    const std::string& leaf = cells[leaf_column];
    const std::string& spine = cells[spine_column];
    if (leaf.empty()) throw InputError(source, number, "ASW", "missing value");
    if (spine.empty()) throw InputError(source, number, "PSW", "missing value");
    fabric.topology_leaf.push_back(leaf);
    fabric.topology_spine.push_back(spine);
  }
  if (fabric.topology_leaf.empty()) throw InputError(source, 0, "", "no hosts");
}

void parse_fabric(ConfigParse& parse, const toml::table& root, RunConfig& config) {
  parse_table(parse, root, "fabric", Targets{.sim = &config.sim});
  FabricOptions& fabric = config.sim.fabric;
  if (fabric.topology.empty()) return;
  read_switch_map(read_input_file(fabric.topology, "fabric.topology"), fabric.topology, fabric);
  const std::size_t nodes = [&] {
    std::size_t n = 0;
    for (const NodeGroupSpec& group : config.sim.cluster.groups) n += group.nodes;
    return n;
  }();
  if (nodes > fabric.topology_leaf.size())
    throw InputError(parse.source(), 0, "fabric.topology",
                     "the map has " + std::to_string(fabric.topology_leaf.size()) +
                         " hosts for a cluster of " + std::to_string(nodes) +
                         " nodes (node i is the map's host i)");
}

}  // namespace clustersim::io_internal
