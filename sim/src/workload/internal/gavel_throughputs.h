// Gavel's throughput table (scheduler/simulation_throughputs.json), reduced to what the reader
// needs: steps/s of each (job_type, scale_factor) running alone on one GPU type.
//
// Exposed (privately) so that callers reading many traces, and the fuzzer, parse the table once.
#pragma once

#include <istream>
#include <string>
#include <unordered_map>

#include "clustersim/job.h"
#include "clustersim/workload.h"

namespace clustersim::workload_internal {

struct GavelThroughputs {
  std::string gpu_type;
  // Key as in Gavel's file: "('<job_type>', <scale_factor>)"; value: steps/s alone (>= 0; 0: cannot
  // run).
  std::unordered_map<std::string, double> steps_per_second;
};

// Parses the JSON table and keeps `gpu_type`'s "null" (running alone) entries. Errors are
// InputError(source_name, 0, "throughputs" or the offending key, ...).
GavelThroughputs parse_gavel_throughputs(std::istream& in, const std::string& source_name,
                                         const std::string& gpu_type);

// Opens and parses `path` (InputError field "throughputs" when it cannot be opened).
GavelThroughputs load_gavel_throughputs(const std::string& path, const std::string& gpu_type);

// read_gavel with the table already parsed (options.gavel_throughputs_path is not used).
Workload read_gavel_with_throughputs(std::istream& in, const std::string& source_name,
                                     const ReaderOptions& options,
                                     const GavelThroughputs& throughputs);

}  // namespace clustersim::workload_internal
