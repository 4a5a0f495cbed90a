// The native DAG trace: ML queries as DAGs of model tasks, one task per row.
//
//   query_id,task_id,submit_time,model,parents,input_mb,output_mb,compute_ms
//
// A header row names the columns (any order; all eight are required, unknown or repeated ones
// are errors). Blank lines and lines starting with '#' are ignored; fields may be quoted as in
// the native CSV. A query is the run of consecutive rows with one `query_id` (rows of a query
// must be contiguous). Within a query:
// - `task_id` is unique (ids may repeat across queries); the task's job id is
//   "<query_id>/<task_id>", so a `query_id` may not contain '/';
// - `submit_time` (s) is the query's arrival: every row of the query gives the same value;
// - `parents` lists task ids of the same query separated by ';' (empty: a source task); rows
//   may come in any order, they are sorted topologically (file order among tasks whose parents
//   are done); a parent that is not in the query, a parent listed twice, and a dependency cycle
//   are errors naming the row's line and the field `parents`;
// - `input_mb`, `output_mb` are finite sizes >= 0 (MB = 1e6 bytes); `compute_ms` > 0 is the
//   task's compute time at rate 1 on the reference GPU (JobSpec::duration = compute_ms / 1000).
// With skip_invalid, the first bad row (or structural fault) of a query skips the whole query:
// all its rows count in skipped_rows and its first error is kept as the reason. A row whose
// query cannot be told (no query_id) is skipped alone.
#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <unordered_map>
#include <vector>

#include "clustersim/dag.h"
#include "clustersim/error.h"
#include "clustersim/workload.h"
#include "workload/internal/row_collector.h"
#include "workload/internal/text_parsing.h"

namespace clustersim {

namespace {

using workload_internal::FieldReader;
using workload_internal::RowCollector;
using workload_internal::trim;

enum Column : int {
  kQueryId,
  kTaskId,
  kSubmitTime,
  kModel,
  kParents,
  kInputMb,
  kOutputMb,
  kComputeMs,
  kColumnCount
};
constexpr std::array<std::string_view, kColumnCount> kColumnNames = {
    "query_id", "task_id",  "submit_time", "model",
    "parents",  "input_mb", "output_mb",   "compute_ms"};
constexpr std::string_view column_name(Column c) { return kColumnNames[c]; }

std::string quoted(std::string_view text) {
  std::string out(1, '\'');  // not "'" + ...: GCC 12 warns falsely (-Wrestrict) on that
  out += excerpt(text);
  out += '\'';
  return out;
}

struct TaskRow {
  std::size_t line = 0;
  std::string task_id;
  std::string model;
  std::vector<std::string> parent_ids;
  double input_mb = 0.0;
  double output_mb = 0.0;
  double duration_s = 0.0;
};

// The query being read: its rows so far, or the reason it is skipped.
struct OpenQuery {
  std::string id;
  std::size_t first_line = 0;
  double submit_time = 0.0;
  std::string submit_text;  // as its first row wrote it, for messages
  std::vector<TaskRow> rows;
  std::unordered_map<std::string, std::size_t> row_of_task;  // task id -> index in rows
  std::size_t row_count = 0;                                 // rows read, bad ones included
  bool bad = false;
};

class DagReader {
 public:
  DagReader(const std::string& source_name, const ReaderOptions& options)
      : rows_(source_name, options), skip_invalid_(options.skip_invalid) {
    workload_.dag.emplace();
    workload_.dag->parent_begin.push_back(0);
    workload_.dag->task_begin.push_back(0);
  }

  Workload read(std::istream& in) {
    std::string line;
    std::size_t line_number = 0;
    std::vector<std::string> fields;
    const std::size_t header_line =
        workload_internal::read_csv_header(in, rows_, true, line, line_number, fields);
    locate_columns(fields, header_line);

    while (workload_internal::read_line(in, line)) {
      ++line_number;
      const std::string_view text = trim(line);
      if (text.empty() || text.front() == '#') continue;
      read_row(line, line_number, fields);
    }
    if (in.bad()) rows_.fail(0, "", "read error");
    close_query();
    return finish();
  }

 private:
  void locate_columns(const std::vector<std::string>& header, std::size_t header_line) {
    column_index_.fill(-1);
    for (std::size_t i = 0; i < header.size(); ++i) {
      const auto known = std::find(kColumnNames.begin(), kColumnNames.end(), header[i]);
      if (known == kColumnNames.end()) {
        rows_.fail(header_line, header[i],
                   header[i].empty() ? "empty column name in header" : "unknown column in header");
      }
      const auto column = known - kColumnNames.begin();
      if (column_index_[column] >= 0)
        rows_.fail(header_line, header[i], "column appears twice in header");
      column_index_[column] = static_cast<int>(i);
    }
    for (int c = 0; c < kColumnCount; ++c) {
      if (column_index_[c] < 0)
        rows_.fail(header_line, std::string(kColumnNames[c]), "required column missing");
    }
    field_count_ = header.size();
  }

  void read_row(const std::string& line, std::size_t line_number,
                std::vector<std::string>& fields) {
    const FieldReader field{rows_, line_number};
    // The query the row belongs to, if it can be told; a row without one is skipped alone.
    std::string query_id;
    try {
      if (auto error = workload_internal::split_csv(line, ',', fields)) field.fail("", *error);
      if (fields.size() != field_count_) {
        field.fail("", "row has " + std::to_string(fields.size()) + " fields, header has " +
                           std::to_string(field_count_));
      }
      query_id = field.required_text(column_name(kQueryId), text(fields, kQueryId));
      if (query_id.find('/') != std::string::npos)
        field.fail(column_name(kQueryId),
                   "a query id may not contain '/' (task ids are "
                   "\"<query_id>/<task_id>\"): " +
                       quoted(query_id));
    } catch (const InputError& error) {
      if (!skip_invalid_) throw;
      record_skip(1, error.what());
      return;
    }

    if (!open_ || query_id != query_.id) {
      close_query();
      open_query(query_id, line_number);
      if (const auto done = closed_queries_.find(query_id); done != closed_queries_.end()) {
        fail_query(field, column_name(kQueryId),
                   "query " + quoted(query_id) + " appears again after other queries (first at " +
                       "line " + std::to_string(done->second) + "); the rows of a query must " +
                       "be contiguous");
      }
    }
    ++query_.row_count;
    if (query_.bad) return;  // the query is skipped already: its other rows are not parsed
    try {
      parse_task(field, fields, line_number);
    } catch (const InputError& error) {
      if (!skip_invalid_) throw;
      query_.bad = true;
      first_error_ = error.what();
    }
  }

  std::string_view text(const std::vector<std::string>& fields, Column c) const {
    return fields[static_cast<std::size_t>(column_index_[c])];
  }

  void parse_task(const FieldReader& field, const std::vector<std::string>& fields,
                  std::size_t line_number) {
    TaskRow row;
    row.line = line_number;
    row.task_id = field.required_text(column_name(kTaskId), text(fields, kTaskId));
    if (row.task_id.find(';') != std::string::npos)
      field.fail(column_name(kTaskId),
                 "a task id may not contain ';' (it separates parents): " + quoted(row.task_id));
    const double submit = field.non_negative(column_name(kSubmitTime), text(fields, kSubmitTime));
    if (query_.rows.empty()) {  // the query's first row (a bad first row skips the query)
      query_.submit_time = submit;
      query_.submit_text = std::string(trim(text(fields, kSubmitTime)));
    } else if (submit != query_.submit_time) {
      field.fail(column_name(kSubmitTime),
                 "query " + quoted(query_.id) + " arrives at " + quoted(query_.submit_text) +
                     " (line " + std::to_string(query_.rows[0].line) + "); this row says " +
                     quoted(text(fields, kSubmitTime)));
    }
    row.model = field.required_text(column_name(kModel), text(fields, kModel));
    const std::string_view parents = trim(text(fields, kParents));
    if (!parents.empty()) {
      std::size_t start = 0;
      while (true) {
        const std::size_t end = parents.find(';', start);
        const std::string_view id =
            trim(parents.substr(start, end == std::string_view::npos ? end : end - start));
        if (id.empty()) field.fail(column_name(kParents), "empty parent id in " + quoted(parents));
        row.parent_ids.emplace_back(id);
        if (end == std::string_view::npos) break;
        start = end + 1;
      }
    }
    row.input_mb = field.non_negative(column_name(kInputMb), text(fields, kInputMb));
    row.output_mb = field.non_negative(column_name(kOutputMb), text(fields, kOutputMb));
    row.duration_s = field.positive(column_name(kComputeMs), text(fields, kComputeMs)) / 1000.0;
    if (!(row.duration_s > 0.0))  // a denormal compute_ms can round to 0 s
      field.fail(column_name(kComputeMs), "too small: " + quoted(text(fields, kComputeMs)));
    const auto [at, inserted] = query_.row_of_task.emplace(row.task_id, query_.rows.size());
    if (!inserted) {
      field.fail(column_name(kTaskId), "duplicate task id " + quoted(row.task_id) + " in query " +
                                           quoted(query_.id) + " (first at line " +
                                           std::to_string(query_.rows[at->second].line) + ")");
    }
    query_.rows.push_back(std::move(row));
  }

  void open_query(const std::string& id, std::size_t line) {
    query_ = OpenQuery{};
    query_.id = id;
    query_.first_line = line;
    open_ = true;
    first_error_.clear();
  }

  // A fault of the whole query (it reappears after others): strict mode throws, else the query
  // is marked bad.
  void fail_query(const FieldReader& field, std::string_view name, const std::string& message) {
    try {
      field.fail(name, message);
    } catch (const InputError& error) {
      if (!skip_invalid_) throw;
      query_.bad = true;
      first_error_ = error.what();
    }
  }

  // Validates the open query's structure and appends its tasks, or skips it.
  void close_query() {
    if (!open_) return;
    open_ = false;
    closed_queries_.emplace(query_.id, query_.first_line);
    if (!query_.bad) {
      try {
        append_query();
        return;
      } catch (const InputError& error) {
        if (!skip_invalid_) throw;
        first_error_ = error.what();
      }
    }
    record_skip(query_.row_count, first_error_);
  }

  void append_query() {
    const std::size_t n = query_.rows.size();
    // Parents as row indices, checked.
    std::vector<std::vector<std::size_t>> parents(n);
    std::vector<std::size_t> unmet(n, 0);
    std::vector<std::vector<std::size_t>> children(n);
    for (std::size_t r = 0; r < n; ++r) {
      const TaskRow& row = query_.rows[r];
      for (const std::string& id : row.parent_ids) {
        const auto found = query_.row_of_task.find(id);
        if (found == query_.row_of_task.end()) {
          rows_.fail(row.line, std::string(column_name(kParents)),
                     "unknown parent " + quoted(id) + ": no task of query " + quoted(query_.id) +
                         " has that id");
        }
        const std::size_t p = found->second;
        if (std::find(parents[r].begin(), parents[r].end(), p) != parents[r].end())
          rows_.fail(row.line, std::string(column_name(kParents)),
                     "parent " + quoted(id) + " listed twice");
        parents[r].push_back(p);
        children[p].push_back(r);
        ++unmet[r];
      }
    }
    // Kahn's algorithm, taking the ready task that comes first in the file.
    std::priority_queue<std::size_t, std::vector<std::size_t>, std::greater<>> ready;
    for (std::size_t r = 0; r < n; ++r)
      if (unmet[r] == 0) ready.push(r);
    std::vector<std::size_t> order;
    order.reserve(n);
    while (!ready.empty()) {
      const std::size_t r = ready.top();
      ready.pop();
      order.push_back(r);
      for (const std::size_t c : children[r])
        if (--unmet[c] == 0) ready.push(c);
    }
    if (order.size() < n) report_cycle(parents, unmet);

    DagInfo& dag = *workload_.dag;
    const std::size_t base = workload_.jobs.size();
    if (base + n >= UINT32_MAX) rows_.fail(query_.first_line, "", "more than 2^32 - 2 tasks");
    std::vector<std::uint32_t> index_of_row(n);
    for (std::size_t k = 0; k < n; ++k)
      index_of_row[order[k]] = static_cast<std::uint32_t>(base + k);
    const auto query_index = static_cast<std::uint32_t>(dag.query_ids.size());
    for (const std::size_t r : order) {
      TaskRow& row = query_.rows[r];
      JobSpec& job = workload_.jobs.emplace_back();
      job.id = query_.id;
      job.id += '/';
      job.id += row.task_id;
      job.submit_time = query_.submit_time;
      job.num_gpus = 1;
      job.duration = row.duration_s;
      job.model = std::move(row.model);
      job.source_line = row.line;
      dag.query_of.push_back(query_index);
      for (const std::size_t p : parents[r]) dag.parents.push_back(index_of_row[p]);
      dag.parent_begin.push_back(static_cast<std::uint32_t>(dag.parents.size()));
      dag.input_mb.push_back(row.input_mb);
      dag.output_mb.push_back(row.output_mb);
    }
    dag.query_ids.push_back(query_.id);
    dag.arrival_time.push_back(query_.submit_time);
    dag.task_begin.push_back(static_cast<std::uint32_t>(workload_.jobs.size()));
  }

  // Some tasks are still waiting on a parent: they contain a cycle. Walk parents from the first
  // such task (in file order) until a task repeats; that stretch is a cycle.
  [[noreturn]] void report_cycle(const std::vector<std::vector<std::size_t>>& parents,
                                 const std::vector<std::size_t>& unmet) {
    const std::size_t n = parents.size();
    std::size_t at = 0;
    while (unmet[at] == 0) ++at;
    std::vector<std::size_t> step_of(n, SIZE_MAX);
    std::vector<std::size_t> path;
    while (step_of[at] == SIZE_MAX) {
      step_of[at] = path.size();
      path.push_back(at);
      for (const std::size_t p : parents[at]) {
        if (unmet[p] > 0) {  // a parent that never ran is itself stuck
          at = p;
          break;
        }
      }
    }
    std::vector<std::size_t> cycle(path.begin() + static_cast<std::ptrdiff_t>(step_of[at]),
                                   path.end());
    // Name the cycle from its task that comes first in the file, in dependency order (parent
    // before child): the walk went from child to parent, so reverse it.
    std::reverse(cycle.begin(), cycle.end());
    const auto first = std::min_element(cycle.begin(), cycle.end());
    std::rotate(cycle.begin(), first, cycle.end());
    constexpr std::size_t kShown = 6;
    std::string message = "task " + quoted(query_.rows[cycle[0]].task_id) + " of query " +
                          quoted(query_.id) + " is on a dependency cycle: ";
    for (std::size_t k = 0; k < cycle.size() && k < kShown; ++k) {
      message += excerpt(query_.rows[cycle[k]].task_id, 20);
      message += " (line " + std::to_string(query_.rows[cycle[k]].line) + ") -> ";
    }
    if (cycle.size() > kShown) message += "... -> ";
    message += excerpt(query_.rows[cycle[0]].task_id, 20);
    rows_.fail(query_.rows[cycle[0]].line, std::string(column_name(kParents)), message);
  }

  void record_skip(std::size_t rows, const std::string& reason) {
    workload_.skipped_rows += rows;
    if (workload_.skip_reasons.size() < workload_internal::kMaxSkipReasons)
      workload_.skip_reasons.push_back(reason);
  }

  Workload finish() {
    if (workload_.jobs.empty()) {
      std::string message = "no tasks";
      if (workload_.skipped_rows > 0)
        message += " (" + std::to_string(workload_.skipped_rows) + " rows skipped as invalid)";
      if (!workload_.skip_reasons.empty()) message += "; first skip: " + workload_.skip_reasons[0];
      rows_.fail(0, "", message);
    }
    check_dag(workload_);  // the rules the consumers rely on; a failure here is a reader bug
    return std::move(workload_);
  }

  RowCollector rows_;  // file name, error format and the header helpers
  bool skip_invalid_;
  std::array<int, kColumnCount> column_index_{};
  std::size_t field_count_ = 0;
  Workload workload_;
  OpenQuery query_;
  bool open_ = false;
  std::string first_error_;                                      // why the open query is skipped
  std::unordered_map<std::string, std::size_t> closed_queries_;  // id -> first line
};

}  // namespace

Workload read_dag(std::istream& in, const std::string& source_name, const ReaderOptions& options) {
  return DagReader(source_name, options).read(in);
}

}  // namespace clustersim
