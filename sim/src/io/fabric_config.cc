// [fabric]'s table and its host-to-switch map (fabric.topology).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "clustersim/error.h"
#include "clustersim/fabric.h"
#include "clustersim/input_file.h"
#include "clustersim/llm.h"
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

// One SimAI ratio CSV: `Size` (bytes), then a column per group whose header starts with its
// servers ("1 Node(NVLinkx)", "2Node-16GPU(NIC )"); others ("Multi 16") are not read. Empty
// cells are 1 (SimAI's reading); each column is divided by its last row's value.
struct RatioColumns {
  std::vector<double> sizes;
  std::vector<int> servers;
  std::vector<std::vector<double>> columns;
};

RatioColumns read_ratio_csv(const std::string& path) {
  std::istringstream in(read_input_file(path, "fabric.collective_table"));
  std::string line;
  std::size_t number = 0;
  std::vector<std::string> header;
  std::vector<std::size_t> used;  // the cells read, by column
  RatioColumns out;
  const auto value = [&](const std::string& cell, const std::string& field) {
    std::size_t end = 0;
    double parsed = 0.0;
    try {
      parsed = std::stod(cell, &end);
    } catch (const std::exception&) {
      end = 0;
    }
    if (end == 0 || end != cell.size() || !(parsed > 0.0) || !std::isfinite(parsed))
      throw InputError(path, number, field, "expected a number > 0, got '" + cell + "'");
    return parsed;
  };
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string> cells = split_commas(line);
    if (header.empty()) {
      header = cells;
      if (header.front() != "Size")
        throw InputError(path, number, header.front(), "expected Size (a SimAI ratio table)");
      for (std::size_t i = 1; i < header.size(); ++i)
        if (!header[i].empty() && std::isdigit(static_cast<unsigned char>(header[i][0]))) {
          used.push_back(i);
          out.servers.push_back(std::stoi(header[i]));
        }
      out.columns.resize(used.size());
      continue;
    }
    if (cells.size() > header.size())
      throw InputError(path, number, "",
                       "row has " + std::to_string(cells.size()) + " fields, header has " +
                           std::to_string(header.size()));
    const double size = value(cells.front(), "Size");
    if (!out.sizes.empty() && size <= out.sizes.back())
      throw InputError(path, number, "Size", "sizes must ascend");
    out.sizes.push_back(size);
    for (std::size_t c = 0; c < used.size(); ++c) {
      const std::string cell = used[c] < cells.size() ? cells[used[c]] : "";
      out.columns[c].push_back(cell.empty() ? 1.0 : value(cell, header[used[c]]));
    }
  }
  if (out.sizes.empty()) throw InputError(path, 0, "", "no rows");
  for (std::vector<double>& column : out.columns) {
    const double last = column.back();
    for (double& v : column) v /= last;
  }
  return out;
}

// small_msg_collective_time.csv: nranks,time_ns, ranks ascending.
std::vector<std::pair<int, double>> read_small_messages(const std::string& path) {
  std::istringstream in(read_input_file(path, "fabric.collective_table"));
  std::string line;
  std::size_t number = 0;
  std::vector<std::pair<int, double>> rows;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line == "\r") continue;
    const std::vector<std::string> cells = split_commas(line);
    if (number == 1) {
      if (cells.size() < 2 || cells[0] != "nranks" || cells[1] != "time_ns")
        throw InputError(path, number, "", "expected the columns nranks,time_ns");
      continue;
    }
    int ranks = 0;
    double ns = -1.0;
    try {
      ranks = std::stoi(cells.at(0));
      ns = std::stod(cells.at(1));
    } catch (const std::exception&) {
      ranks = 0;
    }
    if (ranks < 1 || !(ns >= 0.0) || (!rows.empty() && ranks <= rows.back().first))
      throw InputError(path, number, "", "expected nranks >= 1 ascending and time_ns >= 0");
    rows.emplace_back(ranks, ns * 1e-9);
  }
  return rows;
}

// A folder (nvlink_ratio.csv inside a domain, nic_ratio.csv across, small_msg_collective_time.csv
// when present) or one ratio CSV (its one-server column inside, the others across).
std::shared_ptr<const CollectiveTable> read_collective_table(const std::string& path) {
  namespace fs = std::filesystem;
  const bool folder = fs::is_directory(path);
  const std::string up_path = folder ? (fs::path(path) / "nvlink_ratio.csv").string() : path;
  const std::string out_path = folder ? (fs::path(path) / "nic_ratio.csv").string() : path;
  const RatioColumns up = read_ratio_csv(up_path);
  const RatioColumns out = folder ? read_ratio_csv(out_path) : up;
  auto table = std::make_shared<CollectiveTable>();
  const auto one_server = std::find(up.servers.begin(), up.servers.end(), 1);
  if (one_server == up.servers.end())
    throw InputError(up_path, 1, "", "no one-server column (\"1 Node...\"): the scale-up table");
  table->sizes = up.sizes;
  table->scale_up = up.columns[one_server - up.servers.begin()];
  for (std::size_t c = 0; c < out.servers.size(); ++c) {
    if (out.servers[c] < 2) continue;
    if (!table->servers.empty() && out.servers[c] <= table->servers.back())
      throw InputError(out_path, 1, "", "server counts of the columns must ascend");
    if (out.sizes != up.sizes)
      throw InputError(out_path, 1, "Size", "the rows' sizes differ from " + up_path + "'s");
    table->servers.push_back(out.servers[c]);
    table->scale_out.push_back(out.columns[c]);
  }
  const fs::path small = fs::path(path) / "small_msg_collective_time.csv";
  if (folder && fs::exists(small)) table->small_message_s = read_small_messages(small.string());
  return table;
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

namespace {

// [fabric.efficiency_by_type]: TYPE_PRECISION = efficiency, each key a GPU preset and a precision.
void read_efficiency_table(const toml::table& root, const std::string& source,
                           FabricOptions& fabric) {
  const toml::table* table = subtable(root, "fabric", source);
  const toml::node* node = table ? table->get("efficiency_by_type") : nullptr;
  if (!node) return;
  const toml::table* entries = node->as_table();
  if (!entries)
    TableReader(table, "fabric", source)
        .fail("efficiency_by_type", "expected a table of TYPE_PRECISION = efficiency (h100_fp8)");
  TableReader reader(entries, "fabric.efficiency_by_type", source);
  for (const auto& [name, value] : *entries) {
    const std::string key(name.str());
    const std::size_t cut = key.rfind('_');
    const GpuPeak* gpu = cut == std::string::npos ? nullptr : gpu_peak(key.substr(0, cut));
    const auto precision =
        cut == std::string::npos ? std::nullopt : parse_precision(key.substr(cut + 1));
    if (!gpu || !precision)
      reader.fail(key,
                  "expected TYPE_PRECISION: a GPU type of a100, h100, h200, b200 or gb200 and "
                  "bf16 or fp8 (h100_fp8)");
    fabric.efficiency_by_type[std::string(gpu->name) + "_" +
                              std::string(precision_name(*precision))] =
        reader.number(key, 1e-6, 1.0);
  }
}

}  // namespace

void parse_fabric(ConfigParse& parse, const toml::table& root, RunConfig& config) {
  parse_table(parse, root, "fabric", Targets{.sim = &config.sim});
  FabricOptions& fabric = config.sim.fabric;
  std::vector<int> node_gpus, node_type;
  std::vector<std::string> types;
  for (const NodeGroupSpec& group : config.sim.cluster.groups) {
    const auto type = std::find(types.begin(), types.end(), group.gpu_type);
    if (type == types.end()) types.push_back(group.gpu_type);
    node_gpus.insert(node_gpus.end(), group.nodes, group.gpus_per_node);
    node_type.insert(node_type.end(), group.nodes, static_cast<int>(type - types.begin()));
  }
  if (!fabric.topology.empty()) {
    read_switch_map(read_input_file(fabric.topology, "fabric.topology"), fabric.topology, fabric);
    if (node_gpus.size() > fabric.topology_leaf.size())
      throw InputError(parse.source(), 0, "fabric.topology",
                       "the map has " + std::to_string(fabric.topology_leaf.size()) +
                           " hosts for a cluster of " + std::to_string(node_gpus.size()) +
                           " nodes (node i is the map's host i)");
  }
  read_efficiency_table(root, parse.source(), fabric);
  if (!fabric.collective_table.empty())
    fabric.collectives = read_collective_table(fabric.collective_table);
  // Scale-up domains larger than a node: whole nodes, under one leaf (fabric.h).
  if (!domains_span_nodes(node_gpus, fabric.scale_up_gpus)) return;
  const TableReader reader(subtable(root, "fabric", parse.source()), "fabric", parse.source());
  std::vector<std::uint32_t> domain_of;
  std::string wrong = scale_up_domains(node_gpus, node_type, fabric.scale_up_gpus, domain_of);
  if (wrong.empty() && fabric.contention())
    wrong = domains_within_leaves(domain_of, fabric_topology(fabric, node_gpus).leaf_of);
  if (!wrong.empty()) reader.fail("scale_up_gpus", wrong);
}

}  // namespace clustersim::io_internal
