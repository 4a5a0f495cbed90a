// Per-job logs of Slurm-like schedulers, one row per job, columns found by header name (any
// order; unknown columns are ignored). Two published formats share this reader:
//
// - SenseTime Helios (`helios`; S-Lab-System-Group/HeliosData, <cluster>/cluster_log.csv):
//     job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue
// - Shanghai AI Lab Acme (`acme`; InternLM/AcmeTrace, data/job_trace/trace_{seren,kalos}.csv,
//   LLM development clusters, NSDI 2024):
//     job_id,user,node_num,gpu_num,cpu_num,type,state,submit_time,start_time,end_time,duration,
//     queue,gpu_time
//   (Kalos adds mem_per_pod_GB, shared_mem_per_pod, fail_time, stop_time: ignored). Its times
//   carry a UTC offset ("2023-03-01 00:18:22+08:00").
//
// Used: job_id, user, gpu_num, cpu_num, state, submit_time, duration, and Helios' vc or Acme's
// type; start_time and end_time, when present and not empty, must be valid times in order
// (submit_time <= start_time <= end_time): a row whose times contradict each other is invalid.
// The others (node_num, queue, gpu_time) are derived or not needed and not validated.
// Mapping:
// - id = job_id; user as given; cpus = cpu_num; Helios: vc as given; Acme: no VC (the default
//   one), model = type (Acme's workload class in LLM development, e.g. Pretrain, SFT,
//   Evaluation, Debug, MLLM, Other: kept as the job's workload class for per-type analysis; a
//   throughput profile that does not know the class says so by name);
// - submit_time = submit_time, "YYYY-MM-DD HH:MM:SS" read as UTC (or with its "+HH:MM" offset
//   applied), in seconds since 1970;
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
  kGpuNum,
  kCpuNum,
  kState,
  kSubmitTime,
  kDuration,
  kGroup,      // Helios' vc or Acme's type: required, the one column the formats differ by
  kStartTime,  // optional from here on
  kEndTime,
  kCount
};
constexpr int kRequiredColumns = kStartTime;
constexpr std::array<std::string_view, 5> kStates = {"COMPLETED", "CANCELLED", "FAILED", "TIMEOUT",
                                                     "NODE_FAIL"};

// What a format's group column is called and which job field it fills.
struct LogFormat {
  std::string_view group_column;
  std::string JobSpec::*group_field;
};

Workload read_scheduler_log(std::istream& in, const std::string& source_name,
                            const ReaderOptions& options, const LogFormat& format) {
  const std::array<std::string_view, kCount> column_names = {
      "job_id",      "user",     "gpu_num",           "cpu_num",    "state",
      "submit_time", "duration", format.group_column, "start_time", "end_time"};
  RowCollector rows(source_name, options);
  std::string line;
  std::vector<std::string> fields;
  std::size_t line_number = 0;

  const std::size_t header_line =
      workload_internal::read_csv_header(in, rows, false, line, line_number, fields);
  const auto index_of = workload_internal::locate_columns(fields, column_names, rows, header_line);
  for (int c = 0; c < kRequiredColumns; ++c) {
    if (index_of[c] < 0) {
      rows.fail(header_line, std::string(column_names[c]), "required column missing");
    }
  }
  workload_internal::for_each_csv_row(
      in, rows, line_number, fields.size(), fields, [&](const FieldReader& field) {
        const auto text = [&](Column c) -> std::string_view { return fields[index_of[c]]; };
        const auto name = [&](Column c) { return column_names[c]; };

        JobSpec job;
        job.source_line = line_number;
        job.id = field.required_text(name(kJobId), text(kJobId));
        job.user = std::string(workload_internal::trim(text(kUser)));
        job.*format.group_field = std::string(workload_internal::trim(text(kGroup)));
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

}  // namespace

Workload read_helios(std::istream& in, const std::string& source_name,
                     const ReaderOptions& options) {
  return read_scheduler_log(in, source_name, options, LogFormat{"vc", &JobSpec::vc});
}

Workload read_acme(std::istream& in, const std::string& source_name, const ReaderOptions& options) {
  return read_scheduler_log(in, source_name, options, LogFormat{"type", &JobSpec::model});
}

}  // namespace clustersim
