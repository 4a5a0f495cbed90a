// Allocation mechanisms: how much CPU, memory and storage bandwidth each admitted job gets (and,
// through the GPUs they choose, where it runs). The ordering policy (policy.h) says which job
// goes next; the mechanism turns "start this job" into a plan (plan.h): the job's grants per
// node, plus any change to running jobs it needs (e.g. Synergy-tune takes CPUs back from a job
// that loses little by it). Registered by name, one per file (sim/src/allocation/).
//
//   proportional  GPU-proportional CPU, memory and storage (the baseline; today's behaviour)
//   greedy        each job gets its best demand (profile) if it fits, else it waits
//   tune          Synergy's heuristic: best demand if it fits, else proportional, taking CPU and
//                 memory back from jobs above their proportional share that lose least
//   opt           an LP over all running jobs (COIN-OR CLP), rounded to a feasible allocation
//   drf           dominant-resource fair division of each node's CPUs and memory
//   tetris        best demand, packed onto the node whose free resources align best
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "clustersim/cluster_state.h"
#include "clustersim/job_state.h"
#include "clustersim/metrics.h"
#include "clustersim/plan.h"
#include "clustersim/simulator.h"
#include "clustersim/throughput_model.h"
#include "clustersim/view.h"

namespace clustersim {

// What an allocation mechanism reads of the simulation (the view), and the built-in decider's
// placement stage: type choice, locality and the configured placement policy. Nothing here
// changes state (the mechanism returns a plan; the simulation applies it).
class AllocationContext : public View {
 public:
  // The job's request as placement reads it: its trace's CPU/memory request per GPU where it
  // states one, else proportional (negative fields), its GPU type (or -1), and whether it must
  // start on the fewest nodes (strict locality, until relaxed).
  virtual PlacementRequest request_of(std::uint32_t job) const = 0;
  // Whether the job states its own CPU or memory needs in the trace (mechanisms then respect them).
  bool has_own_request(std::uint32_t job) const { return jobs()[job].own_request; }
  // GPU types a job may start on now, in the order to try them (its own type; or, for an untyped
  // job, the types with enough free GPUs, most free first). Reused storage: valid until the next
  // call.
  virtual std::span<const int> types_to_try(std::uint32_t job) = 0;
  // Places a request whose gpu_type is set, with the configured placement policy. Fills `out`
  // (node shares summing to request.gpus) or returns false.
  virtual bool place(const PlacementRequest& request, std::vector<NodeShare>& out) = 0;
};

class AllocationMechanism {
 public:
  virtual ~AllocationMechanism() = default;
  // Once, before the first event (size per-job tables here).
  virtual void bind(AllocationContext& context) { (void)context; }
  // The workload grew (arrivals stream in for a window): grow per-job tables to
  // context.jobs().size(), keeping what they hold.
  virtual void jobs_added(AllocationContext& context) { (void)context; }
  // Starting `job` (waiting, chosen by the ordering policy): fill `plan` (cleared by the caller)
  // with the job's grants and any change to running jobs, and return true; or return false:
  // the job waits.
  virtual bool start(std::uint32_t job, AllocationContext& context, Plan& plan) = 0;
  // Whether rebalance() should be called after event batches in which jobs started or gave
  // resources back.
  virtual bool rebalances() const { return false; }
  // Re-allocates running jobs (e.g. gives freed CPUs back to jobs below their best demand).
  virtual void rebalance(AllocationContext& context, Plan& plan) { (void)context, (void)plan; }
  // Adds what the mechanism measured to the run's metrics (e.g. opt's LP bound).
  virtual void report(RunMetrics& metrics) const { (void)metrics; }
};

std::unique_ptr<AllocationMechanism> make_allocation_mechanism(const SchedulerOptions& options);
std::vector<std::string> allocation_mechanism_names();

}  // namespace clustersim
