// What a run measures: one record per job, a summary per run, and a sampled time series.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clustersim/job.h"

namespace clustersim {

struct JobRecord {
  std::uint32_t index = 0;  // position in the workload's job list
  Time submit_time = 0.0;
  Time start_time = -1.0;  // first start; -1 if never started (rejected)
  Time finish_time = -1.0;
  double jct = 0.0;          // finish - submit
  double queue_delay = 0.0;  // total time spent waiting, re-queues after preemption included
  int num_gpus = 0;
  int preemptions = 0;
  double gpu_seconds = 0.0;           // GPUs held x time held, overheads included
  double overhead_gpu_seconds = 0.0;  // GPUs held x time spent checkpointing or restoring
  int nodes = 0;                      // nodes spanned by the last placement
  bool rejected = false;              // impossible job rejected at load (reject_impossible)
};

// Summary of a run. Every value is a deterministic function of (config, workload, seed).
struct RunMetrics {
  std::size_t jobs = 0;      // jobs completed
  std::size_t rejected = 0;  // impossible jobs rejected at load
  double jct_mean = 0, jct_p50 = 0, jct_p95 = 0, jct_p99 = 0, jct_max = 0;
  double queue_mean = 0, queue_p50 = 0, queue_p99 = 0;
  double makespan = 0;     // last finish - first submit
  double gpu_util = 0;     // allocated GPU-seconds / (GPUs x makespan)
  double gpu_seconds = 0;  // allocated GPU-seconds, overheads included
  double overhead_gpu_seconds = 0;
  std::size_t preemptions = 0;
  double frag_mean = 0;       // time-averaged fragmented GPUs (see docs/metrics.md)
  double queue_len_mean = 0;  // time-averaged number of waiting jobs
  std::uint64_t events = 0;   // events processed
  std::uint64_t rounds = 0;   // scheduling rounds (lease boundaries) evaluated
};

// One sample of the cluster's state, taken every `sample_interval_s`.
struct Sample {
  Time time = 0.0;
  int busy_gpus = 0;
  int idle_gpus = 0;
  int fragmented_gpus = 0;  // idle GPUs that cannot host the head-of-queue job
  int queue_length = 0;
  int running_jobs = 0;
};

struct RunResult {
  RunMetrics metrics;
  std::vector<JobRecord> jobs;  // one per workload job, workload order
  std::vector<Sample> samples;
};

}  // namespace clustersim
