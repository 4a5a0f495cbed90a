// Alibaba PAI "openb" pod lists (alibaba/clusterdata, cluster-trace-gpu-v2023/csv/):
//
//   name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,
//   deletion_time,scheduled_time
//
// Columns are found by header name (any order; qos, pod_phase and unknown columns are ignored).
// Mapping:
// - id = name; submit_time = creation_time (seconds);
// - duration = deletion_time - scheduled_time (must be > 0; scheduled before created is invalid);
// - num_gpus = num_gpu. gpu_milli is the share of each GPU (1..1000); a fractional share
//   (< 1000, GPU sharing) is rounded up to one whole GPU because the simulator allocates whole
//   GPUs. gpu_milli 0 or > 1000 on a GPU pod is an invalid row;
// - cpus = cpu_milli / 1000; mem_gb = memory_mib / 1024;
// - gpu_type = gpu_spec when it names one type; empty ("any") when it is empty or lists several
//   alternatives ("V100M16|V100M32").
// Filtered (valid, counted in filtered_rows, not jobs): CPU-only pods (num_gpu 0), pods never
// scheduled (empty scheduled_time, e.g. Pending) and pods with no deletion_time (never finished,
// so no duration can be known).
// A file without the time columns (openb_pod_list_multigpu50.csv has only the first five) cannot
// be replayed: InputError at line 1 naming the first missing column.
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
  kColumnCount
};
constexpr std::array<std::string_view, kColumnCount> kColumnNames = {
    "name",          "cpu_milli",     "memory_mib",     "num_gpu", "gpu_milli",
    "creation_time", "deletion_time", "scheduled_time", "gpu_spec"};
constexpr int kRequiredColumns = kGpuSpec;

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
  for (int c = 0; c < kRequiredColumns; ++c) {
    if (index_of[c] < 0) {
      rows.fail(header_line, std::string(kColumnNames[c]),
                c >= kCreationTime
                    ? "column missing: this pod list has no pod times and cannot be replayed"
                    : "required column missing");
    }
  }
  workload_internal::for_each_csv_row(
      in, rows, line_number, fields.size(), fields, [&](const FieldReader& field) {
        const auto text = [&](Column c) -> std::string_view { return fields[index_of[c]]; };
        const auto name = [](Column c) { return kColumnNames[c]; };

        JobSpec job;
        job.source_line = line_number;
        job.id = field.required_text(name(kName), text(kName));
        job.cpus = field.non_negative(name(kCpuMilli), text(kCpuMilli)) / 1000.0;
        job.mem_gb = field.non_negative(name(kMemoryMib), text(kMemoryMib)) / 1024.0;
        const auto num_gpu = field.integer(name(kNumGpu), text(kNumGpu), 0, INT_MAX);
        if (num_gpu == 0) {  // CPU-only pod: nothing for a GPU scheduler to place
          rows.add_filtered();
          return;
        }
        field.integer(name(kGpuMilli), text(kGpuMilli), 1, 1000);
        job.num_gpus = static_cast<int>(num_gpu);  // shares < 1000 round up to a whole GPU
        job.submit_time = field.non_negative(name(kCreationTime), text(kCreationTime));
        if (workload_internal::trim(text(kScheduledTime)).empty() ||
            workload_internal::trim(text(kDeletionTime)).empty()) {
          rows.add_filtered();  // never scheduled or never finished: it did not run to replay
          return;
        }
        const double scheduled = field.non_negative(name(kScheduledTime), text(kScheduledTime));
        const double deleted = field.non_negative(name(kDeletionTime), text(kDeletionTime));
        if (scheduled < job.submit_time) {
          field.fail(name(kScheduledTime), "scheduled before it was created");
        }
        job.duration = deleted - scheduled;
        if (!(job.duration > 0.0)) {
          field.fail(name(kDeletionTime), "deletion_time must be after scheduled_time");
        }
        if (index_of[kGpuSpec] >= 0) {
          const std::string_view spec = workload_internal::trim(text(kGpuSpec));
          if (spec.find('|') == std::string_view::npos) job.gpu_type = std::string(spec);
        }
        rows.add_job(std::move(job), std::string(name(kName)));
      });
  return rows.finish();
}

}  // namespace clustersim
