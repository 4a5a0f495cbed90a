// DAG workloads: queries (ML pipelines) made of tasks, each task one model run on one GPU.
//
// Every task is also a JobSpec in Workload::jobs (id "<query_id>/<task_id>", submit_time = its
// query's arrival, num_gpus = 1, duration = its compute time at rate 1 on the reference GPU in
// seconds, model). DagInfo holds the structure beside them, in arrays parallel to the jobs:
//
//   - the tasks of a query are contiguous in Workload::jobs and topologically ordered (every
//     parent comes before its children), so task t's parents are all < t;
//   - parents are stored in CSR form: task t's parents are
//     parents[parent_begin[t] .. parent_begin[t + 1]), as task indices into Workload::jobs;
//   - sizes are in MB (1e6 bytes): input_mb is what the task reads (for a source task, the
//     query's own input), output_mb what it hands each child (what crosses the network when a
//     child runs on another node).
//
// check_dag() verifies all of this; readers and generators call it before returning, so code
// that consumes a Workload with a DagInfo may rely on it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clustersim {

struct Workload;

struct DagInfo {
  // Per task (size = number of jobs).
  std::vector<std::uint32_t> query_of;      // index into the per-query arrays
  std::vector<std::uint32_t> parent_begin;  // size = tasks + 1; parent_begin[0] = 0
  std::vector<std::uint32_t> parents;       // task indices, each < the child's index
  std::vector<double> input_mb;             // finite, >= 0
  std::vector<double> output_mb;            // finite, >= 0
  // Per query.
  std::vector<std::string> query_ids;     // external ids, unique, in workload order
  std::vector<double> arrival_time;       // seconds; every task's submit_time equals it
  std::vector<std::uint32_t> task_begin;  // size = queries + 1: tasks of q are
                                          // [task_begin[q], task_begin[q + 1]), never empty

  std::size_t task_count() const { return query_of.size(); }
  std::size_t query_count() const { return query_ids.size(); }
  std::uint32_t parent_count(std::uint32_t task) const {
    return parent_begin[task + 1] - parent_begin[task];
  }
};

// Children in CSR form (the reverse of DagInfo's parents): task t's children are
// children[child_begin[t] .. child_begin[t + 1]), in increasing index order.
struct DagChildren {
  std::vector<std::uint32_t> child_begin;
  std::vector<std::uint32_t> children;
};
DagChildren dag_children(const DagInfo& dag);

// Throws std::invalid_argument naming the first broken rule: array sizes, CSR bounds, parents
// before children and within the same query, contiguous non-empty queries, finite non-negative
// sizes, unique query ids, and each task's JobSpec (submit_time = its query's arrival,
// num_gpus = 1, duration > 0). A workload without a DagInfo passes.
void check_dag(const Workload& workload);

}  // namespace clustersim
