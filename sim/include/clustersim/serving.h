// Serving DAG workloads (ML query pipelines; dag.h) simulated on the cluster's GPUs, with GPU
// memory as a cache of models (model_cache.h) and task placement by policy (task_placement.h).
// Pure computation, no I/O: the edges resolve models and defaults from the serving catalog
// (serving_catalog.h, make_serving_setup) and hand them in as a ServingSetup.
//
// Execution model (sim/README.md, "Serving (DAG) workloads"; the same one estimate_finish()
// assumes, so policies' estimates and the engine agree):
//   - a query's source tasks become ready at its arrival; a task becomes ready when its last
//     parent finishes; tasks ready at one instant are placed in decreasing upward rank, then
//     task index;
//   - a ready task is placed on one GPU (the policy's choice; the engine checks it) and its
//     inputs leave at once: each parent's output from the parent's node to the task's, in
//     parallel, at the slower NIC's rate plus the larger latency; nothing within a node;
//   - each GPU serves its tasks one at a time in placement order. When it turns to a task (the
//     task's "head" time) the model is made resident (a miss costs footprint / h2d bandwidth and
//     evicts by the cache policy), and the task computes once its inputs are there too:
//       compute_start = max(head + load, inputs_ready), finish = compute_start + duration;
//   - a query ends when its last task does.
#pragma once

#include <memory>
#include <vector>

#include "clustersim/job.h"
#include "clustersim/mechanism.h"
#include "clustersim/metrics.h"
#include "clustersim/simulator.h"
#include "clustersim/workload.h"

namespace clustersim {

// What the engine needs from the serving catalog, resolved.
struct ServingSetup {
  std::vector<int> task_model;             // per task: index into model_footprint_gb
  std::vector<double> model_footprint_gb;  // per model, GB (0: a task that loads nothing)
  struct Group {                           // per ClusterSpec::groups entry
    double gpu_mem_gb = 0.0;               // > 0
    double h2d_gbps = 0.0;                 // host-to-device, GB/s, > 0
    double net_gbps = 0.0;                 // Gb/s, > 0
    double net_latency_us = 0.0;           // >= 0
  };
  std::vector<Group> groups;
};

// Runs every query of `workload` (which must have a DagInfo) to completion on options.cluster
// with options.serving's policies. RunResult::jobs holds one record per task (submit = its
// query's arrival, start = compute start, queue_delay = ready -> head, gpu_seconds = load +
// compute: a GPU waiting for a task's inputs counts as idle); ::queries and ::tasks the serving
// records; metrics the serving fields plus jobs (tasks), jct_*, queue_*, makespan, gpu_seconds,
// gpu_util (gpu_seconds / (GPUs x makespan)), useful_gpu_seconds (= gpu_seconds), goodput and
// events. Deterministic: no randomness is drawn. It runs on a Simulation with no training jobs,
// the serving side (make_dag_serving) holding every GPU: the run of a DAG config
// (Simulation(config), simulation.h) is this one.
// Throws std::invalid_argument for bad options or a setup that does not match the workload,
// std::logic_error when a policy returns a GPU that cannot hold the task's model.
RunResult simulate_serving(const SimOptions& options, const Workload& workload,
                           const ServingSetup& setup);

// Training and serving on one cluster (sim/README.md, "Training and serving on one cluster"):
// the serving engine as a mechanism of a training Simulation, on the training engine's clock
// and ledger. Its pool of GPUs is claimed from the ledger (Host::hold_gpus): options.serving.gpus
// GPUs (the first in GPU order) for the whole run, more when a ready task finds no idle pool GPU
// that fits its model (a free GPU of the first node that has one; else, with
// options.serving.priority, the GPUs of the running training job with the least attained
// service, preempted: it pays its checkpoint, and its GPUs join the pool when it has saved);
// a GPU beyond the base pool goes back when it has nothing to do, its resident models with it.
// The cluster is the training run's (same node groups and GPUs as `setup`). The clock starts at
// the first training arrival or the first query, whichever comes first (Mechanism::begins_at).
class MixedServing : public Mechanism {
 public:
  // After the run: the serving records (RunResult::queries, ::tasks) and metrics (queries,
  // query_latency_*, task_*, cache and transfer metrics, serving_*) into the training result;
  // for a DAG run (make_dag_serving), the whole result.
  virtual void collect(RunResult& result) const = 0;
};
// `options`: the serving policies (task_placement, cache, ...), query_slo_s, priority and gpus.
// Throws std::invalid_argument for a pool that cannot hold some task's model.
std::unique_ptr<MixedServing> make_mixed_serving(const SimOptions& options, Workload queries,
                                                 ServingSetup setup);

// A DAG run's serving side: the whole run of `workload`'s queries on options.cluster, as a
// mechanism of a Simulation with no training jobs. It holds every GPU of the ledger from the
// first query to the last task's finish (so nothing grows, shrinks or preempts), and its
// collect() replaces the result with simulate_serving's (above): task records as the jobs, the
// serving records and metrics, and events (one per query arrival and one per task finish).
// `workload` and `setup` are shared by the runs (a reset() makes a new mechanism over them).
// Throws std::invalid_argument as simulate_serving does.
std::unique_ptr<MixedServing> make_dag_serving(const SimOptions& options,
                                               std::shared_ptr<const Workload> workload,
                                               std::shared_ptr<const ServingSetup> setup);

}  // namespace clustersim
