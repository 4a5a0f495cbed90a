// Per-GPU-type job speed from a throughput table in the format of Gavel's
// simulation_throughputs.json (stanford-futuredata/gavel, scheduler/): for each GPU type, for each
// "('<job_type>', <scale_factor>)", the steps per second of the whole job on scale_factor GPUs of
// that type running alone ("null"; co-location entries are ignored); 0 = cannot run there.
//
// The table throughput model ([throughput] model = "table") makes a job's speed depend on the
// GPU type it runs on: a job whose work is in steps (JobSpec::steps) runs steps / steps-per-second
// of its type; a job without steps keeps its duration on `reference_type` and runs
// speed(type) / speed(reference_type) as fast elsewhere. A job whose (model, GPUs) has no entry
// for a type follows `on_missing`: an error, rate 1 (neutral), or cannot run there.
#pragma once

#include <istream>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "clustersim/job.h"
#include "clustersim/profile.h"
#include "clustersim/throughput_model.h"

namespace clustersim {

struct ThroughputTable {
  std::string source;  // file name, for messages
  // By GPU type, then by key "('<job_type>', <scale_factor>)": steps/s alone (>= 0; 0 = cannot
  // run on that type).
  std::map<std::string, std::unordered_map<std::string, double>> steps_per_second;

  static std::string key(const std::string& model, int gpus);
  // The entry of (model, gpus) on `gpu_type`, or null when the table has none.
  const double* find(const std::string& gpu_type, const std::string& model, int gpus) const;
};

// Parses the JSON text (errors: InputError(source, line, "throughputs" or "<type>/<key>/null")).
ThroughputTable parse_throughput_table(std::istream& in, const std::string& source);
// Opens and parses `path`.
ThroughputTable load_throughput_table(const std::string& path);

struct TableModelOptions {
  // A (model, GPUs) with no entry for a GPU type: an error, rate 1 there (neutral), or the job
  // cannot run on that type.
  MissingProfile on_missing = MissingProfile::kError;
  // Where the duration of a job without steps holds (its speed elsewhere is relative to this
  // type's entry). Needed only for jobs without steps.
  std::string reference_type;
  PlacementPenalty penalty;  // cross-node / cross-rack slowdown, multiplied in
};

// Checks every job against the table on each of `gpu_types` (the cluster's): with on_missing =
// error, a missing entry is an InputError(source_name, the job's line, "model", ...); a job
// without steps needs an entry > 0 on reference_type.
void check_table_coverage(const ThroughputTable& table, const std::vector<JobSpec>& jobs,
                          const std::vector<std::string>& gpu_types,
                          const TableModelOptions& options, const std::string& source_name);

std::unique_ptr<ThroughputModel> make_table_throughput_model(
    std::shared_ptr<const ThroughputTable> table, const TableModelOptions& options);

}  // namespace clustersim
