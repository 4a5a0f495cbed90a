// Gavel's Philly-derived traces (stanford-futuredata/gavel, scheduler/traces/msr/): tab-separated,
// no header, one job per line:
//
//   job_type  command  num_steps_arg  scale_factor  total_steps  arrival_time  priority_weight
//
// Mapping:
// - id = "gavel-<line>" (1-based line in the file), so ids are unique by construction;
// - num_gpus = scale_factor, an integer >= 1 (0, as in Gavel's A3C rows, is an invalid row);
// - submit_time = arrival_time (seconds, >= 0);
// - duration = total_steps / steps_per_second, where steps/s is
//   throughputs[gavel_gpu_type]["('<job_type>', <scale_factor>)"]["null"] (running alone);
//   a missing entry is an invalid row naming the job_type;
// - model = job_type verbatim (e.g. "ResNet-18 (batch size 64)"): the batch size is kept because
//   it changes the throughput, and the name matches Gavel's table keys;
// - priority = priority_weight, which must be an integer (Gavel writes "1", "4", ...);
// - gpu_type stays empty: the duration is measured on gavel_gpu_type, but the job may run anywhere.
// Blank lines are ignored. The command and num_steps_arg columns are not used.
#include <climits>
#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "clustersim/workload.h"
#include "io/internal/json_error.h"
#include "options/declare.h"
#include "workload/internal/gavel_throughputs.h"
#include "workload/internal/row_collector.h"
#include "workload/internal/text_parsing.h"

namespace clustersim {

namespace workload_internal {

GavelThroughputs parse_gavel_throughputs(std::istream& in, const std::string& source_name,
                                         const std::string& gpu_type) {
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw InputError(source_name, 0, "", "error while reading the throughput table");
  nlohmann::json table;
  try {
    table = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& error) {  // syntax error, or a number overflow
    throw io_internal::json_parse_error(source_name, text, error);
  }
  if (!table.is_object()) {
    throw InputError(source_name, 0, "throughputs", "expected a JSON object of GPU types");
  }
  const auto gpu = table.find(gpu_type);
  if (gpu == table.end() || !gpu->is_object()) {
    throw InputError(source_name, 0, "gavel_gpu_type",
                     "GPU type '" + excerpt(gpu_type) + "' not in the throughput table");
  }
  GavelThroughputs result;
  result.gpu_type = gpu_type;
  for (const auto& [key, entry] : gpu->items()) {
    if (!entry.is_object()) continue;
    const auto alone = entry.find("null");
    if (alone == entry.end()) continue;  // only co-located measurements: not usable alone
    if (!alone->is_number()) {
      throw InputError(source_name, 0, excerpt(gpu_type + "/" + key, 60) + "/null", "not a number");
    }
    const double steps_per_second = alone->get<double>();
    if (!std::isfinite(steps_per_second) || steps_per_second <= 0.0) {
      throw InputError(source_name, 0, excerpt(gpu_type + "/" + key, 60) + "/null",
                       "steps/s must be a finite number > 0");
    }
    result.steps_per_second.emplace(key, steps_per_second);
  }
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

Workload read_gavel_with_throughputs(std::istream& in, const std::string& source_name,
                                     const ReaderOptions& options,
                                     const GavelThroughputs& throughputs) {
  static constexpr std::string_view kFields[] = {"job_type",       "command",     "num_steps_arg",
                                                 "scale_factor",   "total_steps", "arrival_time",
                                                 "priority_weight"};
  constexpr std::size_t kFieldCount = std::size(kFields);
  RowCollector rows(source_name, options);
  std::string line;
  std::vector<std::string> fields;
  std::size_t line_number = 0;
  while (read_line(in, line)) {
    ++line_number;
    if (is_blank(line)) continue;
    rows.row([&] {
      const FieldReader field{rows, line_number};
      split_plain(line, '\t', fields);
      if (fields.size() < kFieldCount) {
        field.fail(kFields[fields.size()], "missing value: row has " +
                                               std::to_string(fields.size()) +
                                               " tab-separated fields, expected 7");
      }
      if (fields.size() > kFieldCount) {
        field.fail(
            "", "row has " + std::to_string(fields.size()) + " tab-separated fields, expected 7");
      }
      JobSpec job;
      job.source_line = line_number;
      job.id = "gavel-" + std::to_string(line_number);
      job.model = field.required_text("job_type", fields[0]);
      job.num_gpus = static_cast<int>(field.integer("scale_factor", fields[3], 1, INT_MAX));
      const double total_steps = field.positive("total_steps", fields[4]);
      job.submit_time = field.non_negative("arrival_time", fields[5]);
      const double weight = field.non_negative("priority_weight", fields[6]);
      if (weight != std::floor(weight) || weight > INT_MAX) {
        field.fail("priority_weight", "must be an integer, got '" + excerpt(fields[6]) + "'");
      }
      job.priority = static_cast<int>(weight);

      const std::string key = "('" + job.model + "', " + std::to_string(job.num_gpus) + ")";
      const auto entry = throughputs.steps_per_second.find(key);
      if (entry == throughputs.steps_per_second.end()) {
        field.fail("job_type", "no throughput for ('" + excerpt(job.model) + "', " +
                                   std::to_string(job.num_gpus) + ") on '" +
                                   excerpt(throughputs.gpu_type) + "'");
      }
      job.duration = total_steps / entry->second;
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

namespace options {

void declare_gavel_keys(KeyRegistry& keys) {
  field<ReaderOptions>(
      keys, "workload.throughputs", [](auto& r) -> auto& { return r.gavel_throughputs_path; })
      .when("workload.trace", {})
      .component("reader gavel")
      .training_only()
      .default_note("—")
      .path()
      .doc("`format = \"gavel\"`: Gavel's `simulation_throughputs.json` (required by it).");
  field<ReaderOptions>(
      keys, "workload.gavel_gpu_type", [](auto& r) -> auto& { return r.gavel_gpu_type; })
      .when("workload.trace", {})
      .component("reader gavel")
      .training_only()
      .doc("`format = \"gavel\"`: the GPU type whose steps/s give durations.");
}

}  // namespace options

}  // namespace clustersim
