#include "workload/internal/input_kind.h"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <vector>

namespace clustersim::workload_internal {

namespace {

std::string_view sniff_trim(std::string_view text) {
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!text.empty() && blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && blank(text.back())) text.remove_suffix(1);
  return text;
}

std::string_view sniff_first_line(std::string_view head) {
  while (!head.empty()) {
    const std::size_t end = std::min(head.find('\n'), head.size());
    const std::string_view line = sniff_trim(head.substr(0, end));
    if (!line.empty() && line.front() != '#') return line;
    head.remove_prefix(std::min(end + 1, head.size()));
  }
  return {};
}

std::vector<std::string> sniff_fields(std::string_view line, char separator) {
  std::vector<std::string> out;
  while (true) {
    const std::size_t end = line.find(separator);
    std::string field(sniff_trim(line.substr(0, end)));
    if (field.size() >= 2 && field.front() == '"' && field.back() == '"')
      field = field.substr(1, field.size() - 2);
    out.push_back(std::move(field));
    if (end == std::string_view::npos) return out;
    line.remove_prefix(end + 1);
  }
}

bool sniff_has_all(const std::vector<std::string>& columns,
                   std::initializer_list<std::string_view> names) {
  return std::all_of(names.begin(), names.end(), [&](std::string_view name) {
    return std::find(columns.begin(), columns.end(), name) != columns.end();
  });
}

}  // namespace

std::optional<InputKind> sniff_input_kind(std::string_view head) {
  const std::string_view line = sniff_first_line(head);
  if (line.empty()) return std::nullopt;
  if (line.front() == '{' || line.front() == '[') {
    // JSON: told apart by keys each kind has near its start.
    const auto contains = [&](std::string_view key) {
      return head.find(key) != std::string_view::npos;
    };
    if (contains("\"clustersim-profile/"))
      return InputKind{"a clustersim job profile (JSON)", "a folder of them as throughput.profiles",
                       ""};
    if (contains("\"attempts\"") || contains("\"submitted_time\""))
      return InputKind{"Philly's job log (JSON)", "workload.format = \"philly\"", "philly"};
    if (contains("\"('"))
      return InputKind{"Gavel's throughput table (JSON)",
                       "workload.throughputs (with format = \"gavel\") or throughput.table", ""};
    return std::nullopt;
  }
  if (line.find('\t') != std::string_view::npos) {
    const std::size_t fields = sniff_fields(line, '\t').size();
    if (fields == 7 || fields == 10)
      return InputKind{"Gavel's job trace (tab-separated)", "workload.format = \"gavel\"", "gavel"};
    return std::nullopt;
  }
  const std::vector<std::string> columns = sniff_fields(line, ',');
  if (columns.size() == 1 && columns[0] == "runtime")
    return InputKind{"a runtime-distribution CSV, not a job trace",
                     "workload.generator = \"philly\" (Philly's runtime table is built in)", ""};
  if (sniff_has_all(columns, {"vc", "node num"}))
    return InputKind{"Philly's VC table (philly_vc.csv), not a job trace",
                     "cluster.vcs (VC name = GPU quota)", ""};
  if (sniff_has_all(columns, {"job_id", "submit_time", "num_gpus", "duration"}))
    return InputKind{"a native job CSV", "workload.format = \"csv\"", "csv"};
  if (sniff_has_all(columns, {"query_id", "task_id", "parents"}))
    return InputKind{"a serving query-DAG CSV", "workload.format = \"dag\"", "dag"};
  if (sniff_has_all(columns, {"name", "num_gpu", "creation_time"}))
    return InputKind{"an openb pod list", "workload.format = \"openb\"", "openb"};
  if (sniff_has_all(columns, {"sn", "cpu_milli", "gpu", "model"}))
    return InputKind{"an openb node list, not a job trace", "cluster.node_list", ""};
  if (sniff_has_all(columns, {"job_id", "gpu_num", "submit_time", "type", "gpu_time"}))
    return InputKind{"an AcmeTrace job trace", "workload.format = \"acme\"", "acme"};
  if (sniff_has_all(columns, {"job_id", "gpu_num", "submit_time"}))
    return InputKind{"a Helios trace", "workload.format = \"helios\"", "helios"};
  if (sniff_has_all(columns, {"node", "down", "up"}))
    return InputKind{"a node failure trace, not a job trace", "mechanisms.failure_trace", ""};
  return std::nullopt;
}

std::string input_kind_hint(std::string_view head, std::string_view format) {
  const std::optional<InputKind> kind = sniff_input_kind(head);
  if (!kind || (!kind->format.empty() && kind->format == format)) return "";
  return " (this looks like " + kind->what + ": use " + kind->use + ")";
}

}  // namespace clustersim::workload_internal
