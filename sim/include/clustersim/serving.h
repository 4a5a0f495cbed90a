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

#include <vector>

#include "clustersim/job.h"
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
// events. Deterministic: no randomness is drawn.
// Throws std::invalid_argument for bad options or a setup that does not match the workload,
// std::logic_error when a policy returns a GPU that cannot hold the task's model.
RunResult simulate_serving(const SimOptions& options, const Workload& workload,
                           const ServingSetup& setup);

}  // namespace clustersim
