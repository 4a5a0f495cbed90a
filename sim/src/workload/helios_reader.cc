// SenseTime Helios per-job logs (S-Lab-System-Group/HeliosData, <cluster>/cluster_log.csv):
//
//   job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue
//
// Columns are found by header name (any order). Used: job_id, user, vc, gpu_num, cpu_num, state,
// submit_time, duration; start_time and end_time, when present and not empty, must be valid times
// in order (submit_time <= start_time <= end_time): a row whose times contradict each other is
// invalid. The others (node_num, queue) are not needed and not validated, and unknown columns
// are ignored.
// Mapping:
// - id = job_id; user, vc as given; cpus = cpu_num;
// - submit_time = submit_time, "YYYY-MM-DD HH:MM:SS" read as UTC, in seconds since 1970;
// - duration = the duration column (seconds, must be > 0: a job that ran 0 s is an invalid row);
// - num_gpus = gpu_num; gpu_num 0 is a CPU job: filtered (filtered_rows), not a job;
// - state must be COMPLETED, CANCELLED, FAILED, TIMEOUT or NODE_FAIL (anything else is invalid);
//   every one of these ran for `duration` and occupied its GPUs, so all are replayed.
#include <array>
#include <climits>
#include <string>
#include <vector>

#include "clustersim/error.h"
#include "clustersim/workload.h"
#include "workload/internal/row_collector.h"
#include "workload/internal/text_parsing.h"

namespace clustersim {

namespace {

using workload_internal::FieldReader;
using workload_internal::RowCollector;

enum Column : int {
  kJobId,
  kUser,
  kVc,
  kGpuNum,
  kCpuNum,
  kState,
  kSubmitTime,
  kDuration,
  kStartTime,  // optional from here on
  kEndTime,
  kCount
};
constexpr std::array<std::string_view, kCount> kColumnNames = {
    "job_id", "user",        "vc",       "gpu_num",    "cpu_num",
    "state",  "submit_time", "duration", "start_time", "end_time"};
constexpr int kRequiredColumns = kStartTime;
constexpr std::array<std::string_view, 5> kStates = {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT",
                                                     "NODE_FAIL"};

}  // namespace

Workload read_helios(std::istream& in, const std::string& source_name,
                     const ReaderOptions& options) {
  RowCollector rows(source_name, options);
  std::string line;
  std::vector<std::string> fields;
  std::size_t line_number = 0;

  const std::size_t header_line =
      workload_internal::read_csv_header(in, rows, false, line, line_number, fields);
  const auto index_of = workload_internal::locate_columns(fields, kColumnNames, rows, header_line);
  for (int c = 0; c < kRequiredColumns; ++c) {
    if (index_of[c] < 0) {
      rows.fail(header_line, std::string(kColumnNames[c]), "required column missing");
    }
  }
  workload_internal::for_each_csv_row(
      in, rows, line_number, fields.size(), fields, [&](const FieldReader& field) {
        const auto text = [&](Column c) -> std::string_view { return fields[index_of[c]]; };
        const auto name = [](Column c) { return kColumnNames[c]; };

        JobSpec job;
        job.source_line = line_number;
        job.id = field.required_text(name(kJobId), text(kJobId));
        job.user = std::string(workload_internal::trim(text(kUser)));
        job.vc = std::string(workload_internal::trim(text(kVc)));
        const std::string_view state = workload_internal::trim(text(kState));
        bool known_state = false;
        for (const std::string_view s : kStates) known_state = known_state || s == state;
        if (!known_state) {
          field.fail(name(kState), "unknown state '" + excerpt(state) +
                                       "' (expected COMPLETED, CANCELLED, FAILED, TIMEOUT or "
                                       "NODE_FAIL)");
        }
        job.cpus = field.non_negative(name(kCpuNum), text(kCpuNum));
        job.submit_time = field.datetime(name(kSubmitTime), text(kSubmitTime));
        // Times that contradict each other make the whole row untrustworthy.
        double earliest = job.submit_time;
        std::string_view earliest_name = name(kSubmitTime);
        for (const Column c : {kStartTime, kEndTime}) {
          if (index_of[c] < 0 || workload_internal::trim(text(c)).empty()) continue;
          const double time = field.datetime(name(c), text(c));
          if (time < earliest) {
            field.fail(name(c), "is " + std::to_string(static_cast<std::int64_t>(earliest - time)) +
                                    " s before " + std::string(earliest_name));
          }
          earliest = time;
          earliest_name = name(c);
        }
        const auto gpus = field.integer(name(kGpuNum), text(kGpuNum), 0, INT_MAX);
        job.duration = field.non_negative(name(kDuration), text(kDuration));
        if (gpus == 0) {  // CPU job
          rows.add_filtered();
          return;
        }
        if (job.duration <= 0.0) field.fail(name(kDuration), "a GPU job must run for > 0 s");
        job.num_gpus = static_cast<int>(gpus);
        rows.add_job(std::move(job), std::string(name(kJobId)));
      });
  return rows.finish();
}

}  // namespace clustersim
