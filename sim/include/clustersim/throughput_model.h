// A job's speed under an allocation. The simulator asks whenever what a job holds changes;
// progress is piecewise-constant between such changes, so a job's completion time is computed,
// not polled.
#pragma once

#include <memory>
#include <string>
#include <vector>

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

// Axes along which a job's speed depends on its CPU cores and memory per GPU (the profile's
// matrix axes); allocation mechanisms search them for a job's best demand.
struct SensitivityAxes {
  const std::vector<double>* cpus_per_gpu = nullptr;  // null: insensitive to CPU cores
  const std::vector<double>* mem_gb_per_gpu = nullptr;
};

class ThroughputModel {
 public:
  virtual ~ThroughputModel() = default;
  // What the model needs to know about `job` on GPUs of `gpu_type` (e.g. its profile), looked up
  // once per job and type so that rate() does no lookups. Passed back to rate(). Default: null.
  virtual const void* resolve(const JobSpec& job, const std::string& gpu_type) const {
    (void)job, (void)gpu_type;
    return nullptr;
  }
  // Whether resolve() can return anything but null (else the engine keeps no table for it).
  virtual bool resolves() const { return false; }
  // Progress rate relative to the job's reference allocation: 1.0 means `duration` holds;
  // 0.5 means the job runs twice as long. Must be > 0. `resolved` is resolve()'s answer for the
  // job on allocation.gpu_type.
  virtual double rate(const JobSpec& job, const void* resolved,
                      const Allocation& allocation) const = 0;
  // Whether a job's speed depends on the GPU type it runs on, and a job may be unable to run on
  // some types (a throughput table's 0): the simulation then keeps each job's speed on each type
  // (View::type_speed) and no decision places a job where it cannot run. Default: no.
  virtual bool typed() const { return false; }
  // Whether the resolved job can run on that GPU type at all (asked only when typed()).
  virtual bool can_run(const void* resolved) const {
    (void)resolved;
    return true;
  }
  // The axes along which the resolved job's speed varies (default: none: insensitive).
  virtual SensitivityAxes axes(const void* resolved) const {
    (void)resolved;
    return {};
  }
  // Convenience for one-off calls: resolves, then rates.
  double rate(const JobSpec& job, const Allocation& allocation) const {
    static const std::string kAnyType;
    return rate(job, resolve(job, allocation.gpu_type ? *allocation.gpu_type : kAnyType),
                allocation);
  }
};

// 1.0 inside one node, scaled down when a job spans nodes of one rack or several racks.
struct PlacementPenalty {
  double cross_node_factor = 1.0;
  double cross_rack_factor = 1.0;
};

std::unique_ptr<ThroughputModel> make_placement_throughput_model(const PlacementPenalty& penalty);

}  // namespace clustersim
