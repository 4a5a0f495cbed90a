// Gavel's Philly-derived traces (stanford-futuredata/gavel, scheduler/traces/): tab-separated, no
// header, one job per line, in one of two layouts, told apart by the first row's field count (every
// row must then have that count):
//
//   7 fields (older loader, the msr traces):  job_type  command  num_steps_arg  needs_data_dir
//                                             total_steps  arrival_time  scale_factor
//   10 fields (Gavel's loader since):         job_type  command  working_directory  num_steps_arg
//                                             needs_data_dir  total_steps  scale_factor
//                                             priority_weight  SLO  arrival_time
//
// Mapping:
// - id = the job's 0-based position among the file's rows ("0", "1", ...): Gavel's job ids, so
//   that results line up with Gavel's logs job by job (blank lines are not rows);
// - num_gpus = scale_factor, an integer >= 1;
// - submit_time = arrival_time (seconds, >= 0);
// - steps = total_steps (> 0): the job's work; duration = total_steps / steps_per_second, where
//   steps/s is throughputs[gavel_gpu_type]["('<job_type>', <scale_factor>)"]["null"] (running
//   alone); a missing or zero entry is an invalid row naming the job_type (with the table
//   throughput model, the job's speed on every other type comes from the same table);
// - model = job_type verbatim (e.g. "ResNet-18 (batch size 64)"): the batch size is kept because
//   it changes the throughput, and the name matches Gavel's table keys;
// - needs_data_dir must be 0 or 1 (not used otherwise);
// - 10 fields: weight = priority_weight (> 0); slo = SLO when > 0 (Gavel writes -1 for none);
//   7 fields: weight 1, no SLO;
// - gpu_type stays empty: the duration is measured on gavel_gpu_type, but the job may run anywhere.
// The command, working_directory and num_steps_arg columns are not used.
#include <algorithm>
#include <climits>
#include <cmath>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "clustersim/throughput_table.h"
#include "clustersim/workload.h"
#include "workload/internal/gavel_throughputs.h"
#include "workload/internal/row_collector.h"
#include "workload/internal/text_parsing.h"

namespace clustersim {

namespace workload_internal {

GavelThroughputs parse_gavel_throughputs(std::istream& in, const std::string& source_name,
                                         const std::string& gpu_type) {
  ThroughputTable table = parse_throughput_table(in, source_name);
  const auto gpu = table.steps_per_second.find(gpu_type);
  if (gpu == table.steps_per_second.end()) {
    throw InputError(source_name, 0, "gavel_gpu_type",
                     "GPU type '" + excerpt(gpu_type) + "' not in the throughput table");
  }
  GavelThroughputs result;
  result.gpu_type = gpu_type;
  result.steps_per_second = std::move(gpu->second);
  return result;
}

GavelThroughputs load_gavel_throughputs(const std::string& path, const std::string& gpu_type) {
  if (path.empty()) {
    throw InputError("", 0, "throughputs",
                     "the gavel format needs Gavel's simulation_throughputs.json "
                     "(gavel_throughputs_path)");
  }
  std::ifstream file = open_input_file(path, "throughput table");
  return parse_gavel_throughputs(file, path, gpu_type);
}

namespace {

// The two layouts: field names in order, and where each used field is.
struct GavelLayout {
  std::span<const std::string_view> names;
  std::size_t needs_data_dir, total_steps, scale_factor, arrival_time;
  int priority_weight, slo;  // -1: not in this layout
};

constexpr std::string_view kOldFields[] = {"job_type",       "command",     "num_steps_arg",
                                           "needs_data_dir", "total_steps", "arrival_time",
                                           "scale_factor"};
constexpr std::string_view kNewFields[] = {
    "job_type",    "command",      "working_directory", "num_steps_arg", "needs_data_dir",
    "total_steps", "scale_factor", "priority_weight",   "SLO",           "arrival_time"};
constexpr GavelLayout kOldLayout{kOldFields, 3, 4, 6, 5, -1, -1};
constexpr GavelLayout kNewLayout{kNewFields, 4, 5, 6, 9, 7, 8};

}  // namespace

Workload read_gavel_with_throughputs(std::istream& in, const std::string& source_name,
                                     const ReaderOptions& options,
                                     const GavelThroughputs& throughputs) {
  RowCollector rows(source_name, options);
  std::string line;
  std::vector<std::string> fields;
  std::size_t line_number = 0;
  std::size_t position = 0;  // the row's 0-based position: its Gavel job id
  const GavelLayout* layout = nullptr;
  std::size_t layout_line = 0;
  while (read_line(in, line)) {
    ++line_number;
    if (is_blank(line)) continue;
    const std::size_t id = position++;
    rows.row([&] {
      const FieldReader field{rows, line_number};
      split_plain(line, '\t', fields);
      if (layout == nullptr) {
        if (fields.size() != std::size(kOldFields) && fields.size() != std::size(kNewFields)) {
          field.fail("", "row has " + std::to_string(fields.size()) +
                             " tab-separated fields; Gavel's layouts have 7 or 10");
        }
        layout = fields.size() == std::size(kOldFields) ? &kOldLayout : &kNewLayout;
        layout_line = line_number;
      }
      const std::size_t expected = layout->names.size();
      if (fields.size() < expected) {
        field.fail(layout->names[fields.size()],
                   "missing value: row has " + std::to_string(fields.size()) +
                       " tab-separated fields, expected " + std::to_string(expected) +
                       " (the layout of line " + std::to_string(layout_line) + ")");
      }
      if (fields.size() > expected) {
        field.fail("", "row has " + std::to_string(fields.size()) +
                           " tab-separated fields, expected " + std::to_string(expected) +
                           " (the layout of line " + std::to_string(layout_line) + ")");
      }
      JobSpec job;
      job.source_line = line_number;
      job.id = std::to_string(id);
      job.model = field.required_text("job_type", fields[0]);
      field.integer("needs_data_dir", fields[layout->needs_data_dir], 0, 1);
      job.steps = field.positive("total_steps", fields[layout->total_steps]);
      job.num_gpus =
          static_cast<int>(field.integer("scale_factor", fields[layout->scale_factor], 1, INT_MAX));
      job.submit_time = field.non_negative("arrival_time", fields[layout->arrival_time]);
      if (layout->priority_weight >= 0) {
        job.weight = field.positive("priority_weight",
                                    fields[static_cast<std::size_t>(layout->priority_weight)]);
        const auto slo = parse_finite_double(fields[static_cast<std::size_t>(layout->slo)]);
        if (!slo)
          field.fail("SLO", "not a number: '" +
                                excerpt(fields[static_cast<std::size_t>(layout->slo)]) + "'");
        job.slo = std::max(0.0, *slo);  // Gavel writes -1 for none
      }

      const std::string key = "('" + job.model + "', " + std::to_string(job.num_gpus) + ")";
      const auto entry = throughputs.steps_per_second.find(key);
      if (entry == throughputs.steps_per_second.end() || entry->second <= 0.0) {
        field.fail("job_type", std::string(entry == throughputs.steps_per_second.end()
                                               ? "no throughput for ('"
                                               : "zero throughput (cannot run) for ('") +
                                   excerpt(job.model) + "', " + std::to_string(job.num_gpus) +
                                   ") on '" + excerpt(throughputs.gpu_type) + "'");
      }
      job.duration = job.steps / entry->second;
      if (!std::isfinite(job.duration) || job.duration <= 0.0) {
        field.fail("total_steps",
                   "duration total_steps / steps_per_second is not a finite number > 0");
      }
      rows.add_job(std::move(job), "job_id");
    });
  }
  if (in.bad()) rows.fail(0, "", "read error");
  return rows.finish();
}

}  // namespace workload_internal

Workload read_gavel(std::istream& in, const std::string& source_name,
                    const ReaderOptions& options) {
  if (options.gavel_throughputs_path.empty()) {
    throw InputError(source_name, 0, "throughputs",
                     "the gavel format needs Gavel's simulation_throughputs.json "
                     "(gavel_throughputs_path)");
  }
  const workload_internal::GavelThroughputs throughputs = workload_internal::load_gavel_throughputs(
      options.gavel_throughputs_path, options.gavel_gpu_type);
  return workload_internal::read_gavel_with_throughputs(in, source_name, options, throughputs);
}

}  // namespace clustersim
