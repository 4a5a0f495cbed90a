// What a decider or a mechanism reads of a running simulation: the clock, every job's state, what
// runs where, what is free, and the throughput model's answers. Read-only: state changes only
// through plans (plan.h) handed to the simulation, which checks and applies them.
//
// Spans stay valid until the simulation next changes state (a plan applied, the next event).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "clustersim/cluster_state.h"
#include "clustersim/job_state.h"
#include "clustersim/mechanisms.h"
#include "clustersim/plan.h"
#include "clustersim/throughput_model.h"

namespace clustersim {

struct SimOptions;
struct SchedulerOptions;

// Resources per GPU: cores, GB, MB/s. A negative value means the node's proportional share.
struct PerGpu {
  double cpus = -1.0;
  double mem_gb = -1.0;
  double storage_mbps = -1.0;
};

class View {
 public:
  virtual ~View() = default;

  virtual Time now() const = 0;
  virtual const SimOptions& sim_options() const = 0;
  virtual const SchedulerOptions& options() const = 0;  // sim_options().scheduler
  // The resource ledger: per node, what is free (cluster_state.h).
  virtual const ClusterState& cluster() const = 0;

  // Every job of the workload, in workload order (index = position); phases say which wait,
  // run, or have not arrived yet (job_state.h).
  virtual std::span<const JobState> jobs() const = 0;
  // Jobs waiting now, and jobs holding resources now (running, restoring, checkpointing); both
  // in no particular order.
  virtual std::span<const std::uint32_t> waiting() const = 0;
  virtual std::span<const std::uint32_t> holders() const = 0;
  // Holders with a grant on `node`, and what a holder holds (one grant per node).
  virtual std::span<const std::uint32_t> holders_on(std::uint32_t node) const = 0;
  virtual std::span<const Grant> grants_of(std::uint32_t job) const = 0;
  // The GPU type a holder's grants are on.
  int type_held(std::uint32_t job) const { return cluster().node(grants_of(job)[0].node).gpu_type; }

  // Virtual clusters: names (JobState::vc indexes them) and the GPUs each holds now.
  virtual std::span<const std::string> vc_names() const = 0;
  virtual std::span<const double> vc_usage() const = 0;
  // Nodes down (failures, drains): their resources are held by the outage, not by jobs.
  virtual bool node_offline(std::uint32_t node) const = 0;
  virtual std::size_t offline_nodes() const = 0;

  // Progress rate the job would have holding `grants` (throughput model, elastic scaling;
  // nothing is applied).
  virtual double rate_if(std::uint32_t job, std::span<const Grant> grants) const = 0;
  // Progress rate of the job with `per_gpu` on every GPU, all on one node of `gpu_type` (no
  // placement penalty): what allocation mechanisms compare when they choose a demand.
  virtual double rate_per_gpu(std::uint32_t job, int gpu_type, const PerGpu& per_gpu) const = 0;
  // Axes along which the job's speed varies on `gpu_type` (its profile's matrix axes).
  virtual SensitivityAxes axes(std::uint32_t job, int gpu_type) const = 0;

  // What a transition of `kind` is expected to cost the job, in seconds (planners compare moves
  // by it; no random draw).
  virtual double expected_overhead_s(OverheadKind kind, std::uint32_t job) const = 0;
  // Started this instant from scratch: it has no state to save, so it may still change its
  // GPUs for free (it starts on the new ones).
  virtual bool not_begun(std::uint32_t job) const = 0;
  // Whether a plan may give the running job another GPU count (elastic jobs with [mechanisms]
  // elastic on), and its range.
  virtual bool resizable(std::uint32_t job) const = 0;
  int min_gpus(std::uint32_t job) const { return jobs()[job].spec->min_gpus; }
  int max_gpus(std::uint32_t job) const { return jobs()[job].spec->max_gpus; }
};

}  // namespace clustersim
