// Alibaba PAI "openb" pod lists (alibaba/clusterdata, cluster-trace-gpu-v2023/csv/):
//
//   name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,
//   deletion_time,scheduled_time
//
// Columns are found by header name (any order; qos and unknown columns are ignored).
// Mapping:
// - id = name; submit_time = creation_time (seconds);
// - duration = deletion_time - scheduled_time (must be > 0; scheduled before created is invalid);
// - num_gpus = num_gpu; gpu_milli (the share of each GPU, 1..1000) is kept on the job. Without
//   GPU sharing the event-driven engine allocates whole GPUs, so a share < 1000 runs on one whole
//   GPU (a changed row); with it ([sharing], ReaderOptions::gpu_shares) a share of one GPU shares
//   a GPU (not a changed row); gpu_milli 0 or > 1000 on a GPU pod is an invalid row;
// - cpus = cpu_milli / 1000; mem_gb = memory_mib / 1024;
// - gpu_spec is kept; gpu_type = gpu_spec when it names one type, empty ("any", a changed row)
//   when it lists several alternatives ("V100M16|V100M32").
// With cpu_only_pods = run, CPU-only pods (num_gpu 0; cpu_milli > 0) are 0-GPU jobs.
// Dropped (valid, counted in filtered_rows and in row_changes by reason, not jobs): CPU-only pods
// (num_gpu 0, unless cpu_only_pods = run), pods never scheduled (empty scheduled_time, e.g.
// Pending), pods with no deletion_time (censored: still running when the trace ends) unless
// censored_pods = run_to_end (then they run until the trace's last time, a changed row), and with
// failed_pods = drop, pods whose pod_phase is Failed. A file without the time columns
// (openb_pod_list_multigpu50.csv has only the first five) cannot be replayed in time: InputError at
// line 1 naming the first missing column. With every_pod (the placement study): every valid pod is
// a job, CPU-only ones (num_gpus 0) included; times are read when there (submit_time 0 otherwise),
// durations are not needed.
#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
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
  kName,
  kCpuMilli,
  kMemoryMib,
  kNumGpu,
  kGpuMilli,
  kCreationTime,
  kDeletionTime,
  kScheduledTime,
  kGpuSpec,  // optional from here on
  kPodPhase,
  kColumnCount
};
constexpr std::array<std::string_view, kColumnCount> kColumnNames = {
    "name",          "cpu_milli",     "memory_mib",     "num_gpu",  "gpu_milli",
    "creation_time", "deletion_time", "scheduled_time", "gpu_spec", "pod_phase"};
constexpr int kRequiredColumns = kGpuSpec;
constexpr int kRequiredColumnsOfEveryPod = kCreationTime;  // the placement study needs no times

}  // namespace

Workload read_openb(std::istream& in, const std::string& source_name,
                    const ReaderOptions& options) {
  RowCollector rows(source_name, options);
  std::string line;
  std::vector<std::string> fields;
  std::size_t line_number = 0;

  const std::size_t header_line =
      workload_internal::read_csv_header(in, rows, false, line, line_number, fields);
  const auto index_of = workload_internal::locate_columns(fields, kColumnNames, rows, header_line);
  const int required = options.every_pod ? kRequiredColumnsOfEveryPod : kRequiredColumns;
  for (int c = 0; c < required; ++c) {
    if (index_of[c] < 0) {
      rows.fail(header_line, std::string(kColumnNames[c]),
                c >= kCreationTime
                    ? "column missing: this pod list has no pod times and cannot be replayed"
                    : "required column missing");
    }
  }
  Workload changes;  // the reasons rows were dropped or changed, counted
  const auto drop = [&](const char* reason) {
    rows.add_filtered();
    changes.count_row_change(reason, true);
  };
  // Censored pods that run to the trace's end: their scheduled time, by position in the jobs.
  std::vector<std::pair<std::size_t, double>> censored;
  double trace_end = 0.0;
  std::size_t jobs_added = 0;
  workload_internal::for_each_csv_row(
      in, rows, line_number, fields.size(), fields, [&](const FieldReader& field) {
        const auto has = [&](Column c) { return index_of[c] >= 0; };
        const auto text = [&](Column c) -> std::string_view {
          return has(c) ? std::string_view(fields[index_of[c]]) : std::string_view();
        };
        const auto name = [](Column c) { return kColumnNames[c]; };
        const auto blank = [&](Column c) { return workload_internal::trim(text(c)).empty(); };

        JobSpec job;
        job.source_line = line_number;
        job.id = field.required_text(name(kName), text(kName));
        job.cpus = field.non_negative(name(kCpuMilli), text(kCpuMilli)) / 1000.0;
        job.mem_gb = field.non_negative(name(kMemoryMib), text(kMemoryMib)) / 1024.0;
        const auto num_gpu = field.integer(name(kNumGpu), text(kNumGpu), 0, INT_MAX);
        if (num_gpu > 0) {
          job.gpu_milli =
              static_cast<int>(field.integer(name(kGpuMilli), text(kGpuMilli), 1, 1000));
        }
        // The trace's last time (for censored pods that run to it), read leniently here: rows
        // are checked below as far as they are replayed, as before.
        for (const Column c : {kCreationTime, kScheduledTime, kDeletionTime}) {
          if (!has(c)) continue;
          if (const auto value = workload_internal::parse_finite_double(text(c)))
            trace_end = std::max(trace_end, *value);
        }
        if (has(kGpuSpec)) {
          const std::string_view spec = workload_internal::trim(text(kGpuSpec));
          job.gpu_spec = std::string(spec);
          if (spec.find('|') == std::string_view::npos) job.gpu_type = job.gpu_spec;
        }
        if (options.failed_pods == FailedPods::kDrop && has(kPodPhase) &&
            workload_internal::trim(text(kPodPhase)) == "Failed") {
          drop("pod_phase Failed (failed_pods = \"drop\"): dropped");
          return;
        }
        if (options.every_pod) {  // the placement study: every pod, whole GPUs or shares
          if (has(kCreationTime) && !blank(kCreationTime))
            job.submit_time = field.non_negative(name(kCreationTime), text(kCreationTime));
          job.num_gpus = static_cast<int>(num_gpu);
          rows.add_job(std::move(job), std::string(name(kName)));
          ++jobs_added;
          return;
        }
        if (num_gpu == 0 && options.cpu_only_pods == CpuOnlyPods::kDrop) {
          drop("CPU-only pod (num_gpu 0): dropped");  // nothing for a GPU scheduler to place
          return;
        }
        if (num_gpu == 0 && !(job.cpus > 0.0))
          field.fail(name(kCpuMilli), "a CPU-only pod run as a job needs cpu_milli > 0");
        // Without GPU sharing, shares < 1000 round up to a whole GPU.
        job.num_gpus = static_cast<int>(num_gpu);
        job.submit_time = field.non_negative(name(kCreationTime), text(kCreationTime));
        if (blank(kScheduledTime)) {
          drop("never scheduled (no scheduled_time): dropped");  // it did not run to replay
          return;
        }
        if (blank(kDeletionTime) && options.censored_pods == CensoredPods::kDrop) {
          drop("censored (no deletion_time: still running at the trace's end): dropped");
          return;
        }
        const double scheduled = field.non_negative(name(kScheduledTime), text(kScheduledTime));
        if (scheduled < job.submit_time) {
          field.fail(name(kScheduledTime), "scheduled before it was created");
        }
        if (!blank(kDeletionTime)) {
          const double deleted = field.non_negative(name(kDeletionTime), text(kDeletionTime));
          job.duration = deleted - scheduled;
          if (!(job.duration > 0.0)) {
            field.fail(name(kDeletionTime), "deletion_time must be after scheduled_time");
          }
        }
        const bool runs_to_end = blank(kDeletionTime);
        if (job.gpu_milli < 1000 && !(options.gpu_shares && job.num_gpus == 1))
          changes.count_row_change("GPU share (gpu_milli < 1000) run on a whole GPU: changed",
                                   false);
        if (job.gpu_type.empty() && !job.gpu_spec.empty())
          changes.count_row_change("gpu_spec lists alternatives, run on any GPU type: changed",
                                   false);
        rows.add_job(std::move(job), std::string(name(kName)));
        if (runs_to_end) censored.emplace_back(jobs_added, scheduled);
        ++jobs_added;
      });
  Workload workload = rows.finish();
  // Censored pods run until the trace's last time (one that would not run at all is dropped).
  std::vector<bool> remove(workload.jobs.size(), false);
  bool any_removed = false;
  for (const auto& [index, scheduled] : censored) {
    JobSpec& job = workload.jobs[index];
    job.duration = trace_end - scheduled;
    if (job.duration > 0.0) {
      changes.count_row_change(
          "censored (no deletion_time): runs to the trace's end (censored_pods = "
          "\"run_to_end\"): changed",
          false);
    } else {
      remove[index] = any_removed = true;
      ++workload.filtered_rows;
      changes.count_row_change("censored, scheduled at the trace's end: dropped", true);
    }
  }
  if (any_removed) {
    std::vector<JobSpec> kept;
    for (std::size_t i = 0; i < workload.jobs.size(); ++i)
      if (!remove[i]) kept.push_back(std::move(workload.jobs[i]));
    workload.jobs = std::move(kept);
  }
  workload.row_changes = std::move(changes.row_changes);
  return workload;
}

}  // namespace clustersim
