// Format names and the file-level entry point of the trace readers.
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "clustersim/config.h"
#include "clustersim/error.h"
#include "clustersim/input_file.h"
#include "clustersim/workload.h"
#include "options/declare.h"

namespace clustersim {

TraceFormat parse_trace_format(std::string_view name) {
  if (name == "csv") return TraceFormat::kCsv;
  if (name == "gavel") return TraceFormat::kGavel;
  if (name == "openb") return TraceFormat::kOpenb;
  if (name == "helios") return TraceFormat::kHelios;
  if (name == "philly") return TraceFormat::kPhilly;
  if (name == "dag") return TraceFormat::kDag;
  throw std::invalid_argument("unknown trace format '" + std::string(name) +
                              "' (expected csv, gavel, openb, helios, philly or dag)");
}

std::string_view trace_format_name(TraceFormat format) {
  switch (format) {
    case TraceFormat::kCsv:
      return "csv";
    case TraceFormat::kGavel:
      return "gavel";
    case TraceFormat::kOpenb:
      return "openb";
    case TraceFormat::kHelios:
      return "helios";
    case TraceFormat::kPhilly:
      return "philly";
    case TraceFormat::kDag:
      return "dag";
  }
  return "unknown";
}

Workload read_trace(const std::string& path, TraceFormat format, const ReaderOptions& options) {
  // Binary mode: the readers strip "\r\n" themselves, and the Philly reader reports byte offsets.
  std::ifstream file = open_input_file(path, "trace file");
  switch (format) {
    case TraceFormat::kCsv:
      return read_native_csv(file, path, options);
    case TraceFormat::kGavel:
      return read_gavel(file, path, options);
    case TraceFormat::kOpenb:
      return read_openb(file, path, options);
    case TraceFormat::kHelios:
      return read_helios(file, path, options);
    case TraceFormat::kPhilly:
      return read_philly(file, path, options);
    case TraceFormat::kDag:
      return read_dag(file, path, options);
  }
  throw std::invalid_argument("unknown trace format");
}

namespace options {

void declare_reader_keys(KeyRegistry& keys) {
  custom(keys, "workload.trace", KeyType::kPath)
      .component("readers")
      .doc(
          "A trace file (relative to the config file); set exactly one of `trace` and "
          "`generator`.");
  choice<WorkloadSource>(
      keys, "workload.format", [](auto& w) -> auto& { return w.format; },
      std::vector<std::pair<std::string, TraceFormat>>{{"csv", TraceFormat::kCsv},
                                                       {"gavel", TraceFormat::kGavel},
                                                       {"openb", TraceFormat::kOpenb},
                                                       {"helios", TraceFormat::kHelios},
                                                       {"philly", TraceFormat::kPhilly},
                                                       {"dag", TraceFormat::kDag}})
      .when("workload.trace", {})
      .component("readers")
      .doc(
          "The trace's format ([`sim/README.md`](sim/README.md#trace-formats)); `dag`: serving "
          "query DAGs (below), run on the serving engine.");
  field<ReaderOptions>(
      keys, "workload.skip_invalid", [](auto& r) -> auto& { return r.skip_invalid; })
      .component("readers")
      .doc("Skip (count and report) malformed rows instead of failing.");
}

// Gavel traces (gavel_reader.cc): the throughput table and the reference GPU type.
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
