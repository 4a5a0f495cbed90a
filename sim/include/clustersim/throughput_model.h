// A job's speed under an allocation. The simulator asks once per placement; progress is
// piecewise-constant between events, so a job's completion time is computed, not polled.
#pragma once

#include <memory>
#include <string>

#include "clustersim/job.h"

namespace clustersim {

// What a job was given. CPU and memory are totals over all of the job's nodes.
struct Allocation {
  int gpus = 0;
  int nodes = 0;
  int racks = 0;
  double cpus = 0.0;
  double mem_gb = 0.0;
  double storage_mbps = 0.0;
  const std::string* gpu_type = nullptr;  // type of the GPUs held (all of one type)
};

class ThroughputModel {
 public:
  virtual ~ThroughputModel() = default;
  // Progress rate relative to the job's reference allocation: 1.0 means `duration` holds;
  // 0.5 means the job runs twice as long. Must be > 0.
  virtual double rate(const JobSpec& job, const Allocation& allocation) const = 0;
};

// 1.0 inside one node, scaled down when a job spans nodes of one rack or several racks.
struct PlacementPenalty {
  double cross_node_factor = 1.0;
  double cross_rack_factor = 1.0;
};

std::unique_ptr<ThroughputModel> make_placement_throughput_model(const PlacementPenalty& penalty);

}  // namespace clustersim
