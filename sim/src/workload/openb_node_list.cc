// Alibaba PAI "openb" node lists (cluster-trace-gpu-v2023/csv/openb_node_list_gpu_node.csv):
//
//   sn,cpu_milli,memory_mib,gpu,model
//
// One node per row, in the order the placement study breaks ties in. Columns are found by header
// name (any order; unknown columns are ignored); `model` may be empty on a node without GPUs.
// A bad value is an InputError naming file, line and field.
#include <array>
#include <fstream>

#include "clustersim/error.h"
#include "clustersim/placement_study.h"
#include "workload/internal/row_collector.h"
#include "workload/internal/text_parsing.h"

namespace clustersim {

namespace {

enum NodeColumn : int { kSn, kCpuMilli, kMemoryMib, kGpu, kModel, kNodeColumnCount };
constexpr std::array<std::string_view, kNodeColumnCount> kNodeColumnNames = {
    "sn", "cpu_milli", "memory_mib", "gpu", "model"};

}  // namespace

NodeList read_openb_node_list(std::istream& in, const std::string& source_name) {
  using workload_internal::FieldReader;
  const ReaderOptions strict;  // a bad row is an error: a cluster is not skipped row by row
  workload_internal::RowCollector rows(source_name, strict);
  std::string line;
  std::vector<std::string> fields;
  std::size_t line_number = 0;
  const std::size_t header_line =
      workload_internal::read_csv_header(in, rows, false, line, line_number, fields);
  const auto index_of =
      workload_internal::locate_columns(fields, kNodeColumnNames, rows, header_line);
  for (int c = 0; c < kModel; ++c)
    if (index_of[c] < 0)
      rows.fail(header_line, std::string(kNodeColumnNames[c]), "required column missing");
  NodeList list;
  list.source = source_name;
  workload_internal::for_each_csv_row(
      in, rows, line_number, fields.size(), fields, [&](const FieldReader& field) {
        const auto text = [&](NodeColumn c) -> std::string_view {
          return index_of[c] >= 0 ? std::string_view(fields[index_of[c]]) : std::string_view();
        };
        NodeListEntry node;
        node.source_line = line_number;
        node.name = field.required_text(kNodeColumnNames[kSn], text(kSn));
        node.cpu_milli =
            field.integer(kNodeColumnNames[kCpuMilli], text(kCpuMilli), 1, std::int64_t{1} << 40);
        node.memory_mib =
            field.integer(kNodeColumnNames[kMemoryMib], text(kMemoryMib), 0, std::int64_t{1} << 50);
        node.gpus = static_cast<int>(field.integer(kNodeColumnNames[kGpu], text(kGpu), 0, 64));
        node.model = std::string(workload_internal::trim(text(kModel)));
        if (node.gpus > 0 && node.model.empty())
          field.fail(kNodeColumnNames[kModel], "a node with GPUs needs its GPU model");
        list.nodes.push_back(std::move(node));
      });
  if (list.nodes.empty()) rows.fail(0, "", "no nodes");
  return list;
}

NodeList read_openb_node_list(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw InputError(path, 0, "", "cannot open the node list");
  return read_openb_node_list(file, path);
}

}  // namespace clustersim
