// A job as the workload describes it (input to the simulator; never mutated by it).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "clustersim/dag.h"
#include "clustersim/llm.h"

namespace clustersim {

using Time = double;  // seconds; exact (no ticks)

struct JobSpec {
  std::string id;          // external id, unique within a workload
  Time submit_time = 0.0;  // seconds, any origin
  int num_gpus = 1;        // whole GPUs requested (>= 0; 0: a CPU-only job, cpus > 0)
  double duration = 0.0;   // seconds of running at the requested allocation (progress rate 1.0)
  std::string model;       // workload class, e.g. "resnet50"; empty = unknown
  std::string vc;          // virtual cluster (tenant); empty = the default VC
  std::string user;
  double cpus = 0.0;    // CPU cores requested in total; 0 = proportional to GPUs
  double mem_gb = 0.0;  // host memory requested in total; 0 = proportional to GPUs
  int priority = 0;     // larger = more important (used by policies that honour it)
  // GPU memory it needs on each GPU (GB); 0 = not stated. Where the cluster models GPU memory
  // ([cluster] gpu_mem_gb), GPU shares co-locate only while their memory fits too (a whole GPU
  // always gives its job all of it), and a job needing more than any GPU it may use is refused
  // at load. (A float in the padding after priority: the spec does not grow.)
  float gpu_mem_gb = 0.0f;
  std::string gpu_type;  // required GPU type; empty = any
  // Elastic jobs ([mechanisms] elastic): the GPU counts it may run with (0 = rigid: num_gpus).
  int min_gpus = 0;
  int max_gpus = 0;
  // Seconds of running between periodic checkpoints; 0 = [mechanisms] checkpoint_interval_s.
  double checkpoint_interval_s = 0.0;
  // Work in training steps when the trace gives them (Gavel's total_steps); 0 = not given. With
  // a throughput table ([throughput] model = "table"), such a job runs steps / steps-per-second
  // of its GPU type; `duration` stays its time on the reader's reference type.
  double steps = 0.0;
  // Priority weight of fair-share allocation policies (Gavel's priority_weight; > 0).
  double weight = 1.0;
  // Gavel's SLO: the job should finish within slo x its duration of arriving; 0 = none.
  double slo = 0.0;
  std::size_t source_line = 0;  // line of the trace this job came from (0 = generated)
  // Share of each GPU in thousandths (openb's gpu_milli; 1000 = whole GPUs). The event-driven
  // engine allocates whole GPUs (a share rounds up) unless GPU sharing is on ([sharing]: a job
  // of one GPU with a share < 1000 then shares a GPU); the placement study ([workload] departures
  // = "none", placement_study.h) packs shares onto GPUs.
  int gpu_milli = 1000;
  // A MIG slice it runs on: a profile id of mig.h (mig_profile_id("1g.10gb"); num_gpus 1); 0 =
  // none. It runs only on GPUs of MIG-partitioned node groups ([cluster] mig) whose geometry
  // offers the profile, at its compute slices / 7 of the whole GPU's speed. (In the padding after
  // gpu_milli.)
  std::uint8_t mig_profile = 0;
  // GPU models it may run on, '|'-separated (openb's gpu_spec); empty = any. gpu_type is set
  // only when it names exactly one.
  std::string gpu_spec;
};

// Jobs read or generated for one run, plus what the reader skipped (only with skip_invalid).
struct Workload {
  std::vector<JobSpec> jobs;
  std::size_t skipped_rows = 0;   // malformed rows skipped (only when skipping was asked for)
  std::size_t filtered_rows = 0;  // valid rows that are not GPU jobs (CPU-only pods, ...)
  std::vector<std::string> skip_reasons;  // the first few skip messages, for the report
  // Valid rows the reader dropped or changed, by reason, in the order the reasons first
  // occurred: front ends print each as a warning, and runs count them (trace_rows_dropped,
  // trace_rows_changed).
  struct RowChange {
    std::string reason;
    std::size_t rows = 0;
    bool dropped = false;  // else changed
  };
  std::vector<RowChange> row_changes;
  void count_row_change(const std::string& reason, bool dropped) {
    for (RowChange& change : row_changes)
      if (change.reason == reason) {
        ++change.rows;
        return;
      }
    row_changes.push_back({reason, 1, dropped});
  }
  // DAG workloads only (format "dag", generator "query_dag"): the queries and the task graph,
  // parallel to `jobs` (see dag.h). Absent for every other workload.
  std::optional<DagInfo> dag;
  // LLM training jobs (a trace's model and layout columns, llm.h), beside `jobs`; null when the
  // trace has none.
  std::shared_ptr<const LlmJobTable> llm;
};

}  // namespace clustersim
