// Workload readers: one per trace format. They sit at the I/O edge; the core never reads files.
//
// Every reader validates each row. A malformed row throws InputError naming file, line and field,
// unless `skip_invalid` is set, in which case the row is skipped, counted and its reason kept.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "clustersim/job.h"

namespace clustersim {

enum class TraceFormat { kCsv, kGavel, kOpenb, kHelios, kPhilly, kDag, kAcme };

// Parses "csv" | "gavel" | "openb" | "helios" | "philly" | "dag" | "acme"; throws
// std::invalid_argument otherwise.
TraceFormat parse_trace_format(std::string_view name);
std::string_view trace_format_name(TraceFormat format);

struct ComponentDescriptor;
// The trace readers' descriptors (component.h), in TraceFormat's order: the names above, the
// config's choices and read_trace() come from them.
const std::vector<ComponentDescriptor>& trace_format_components();

// openb pod lists: pods whose pod_phase is Failed, and pods with no deletion_time (still running
// when the trace ends: censored).
enum class FailedPods : std::uint8_t { kKeep, kDrop };
enum class CensoredPods : std::uint8_t { kDrop, kRunToEnd };
enum class CpuOnlyPods : std::uint8_t { kDrop, kRun };

struct ReaderOptions {
  bool skip_invalid = false;                   // count and report malformed rows instead of failing
  FailedPods failed_pods = FailedPods::kKeep;  // kept: replayed like any pod (as before)
  CensoredPods censored_pods = CensoredPods::kDrop;  // run_to_end: until the trace's last time
  // The placement study (placement_study.h; [workload] departures = "none") places every pod:
  // CPU-only pods, pods never scheduled and pod lists without times are kept, GPU shares too.
  bool every_pod = false;
  // openb in time: CPU-only pods (num_gpu 0) are dropped (as before) or run as 0-GPU jobs.
  CpuOnlyPods cpu_only_pods = CpuOnlyPods::kDrop;
  // GPU sharing is on ([sharing]; set by the config, not a key): a share (gpu_milli < 1000) is
  // kept as a share, not counted as a row changed to a whole GPU.
  bool gpu_shares = false;
  // Gavel only: throughput table (Gavel's simulation_throughputs.json) and the GPU type whose
  // steps/s turn `total_steps` into a duration. Required for the gavel format.
  std::string gavel_throughputs_path;
  std::string gavel_gpu_type = "v100";
};

// Reads `in`; `source_name` is the file name used in error messages.
Workload read_native_csv(std::istream& in, const std::string& source_name,
                         const ReaderOptions& options);
Workload read_gavel(std::istream& in, const std::string& source_name, const ReaderOptions& options);
Workload read_openb(std::istream& in, const std::string& source_name, const ReaderOptions& options);
Workload read_helios(std::istream& in, const std::string& source_name,
                     const ReaderOptions& options);
// Shanghai AI Lab's AcmeTrace job traces (LLM development; src/workload/scheduler_log_reader.cc).
Workload read_acme(std::istream& in, const std::string& source_name, const ReaderOptions& options);
Workload read_philly(std::istream& in, const std::string& source_name,
                     const ReaderOptions& options);
// The native DAG format (ML query pipelines; see dag_reader.cc and sim/README.md): one task per
// row, grouped into queries. The result has Workload::dag set. With skip_invalid, a bad row
// skips its whole query (every row of it counts in skipped_rows).
Workload read_dag(std::istream& in, const std::string& source_name, const ReaderOptions& options);

// Opens `path` and dispatches on `format`. A file that cannot be opened is an InputError (line 0).
Workload read_trace(const std::string& path, TraceFormat format, const ReaderOptions& options);

}  // namespace clustersim
