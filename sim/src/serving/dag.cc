#include "clustersim/dag.h"

#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "clustersim/job.h"

namespace clustersim {

DagChildren dag_children(const DagInfo& dag) {
  const std::size_t tasks = dag.task_count();
  DagChildren out;
  out.child_begin.assign(tasks + 1, 0);
  for (const std::uint32_t parent : dag.parents) ++out.child_begin[parent + 1];
  for (std::size_t t = 0; t < tasks; ++t) out.child_begin[t + 1] += out.child_begin[t];
  out.children.resize(dag.parents.size());
  std::vector<std::uint32_t> next(out.child_begin.begin(), out.child_begin.end() - 1);
  // Children are visited in increasing index order, so each list comes out sorted.
  for (std::uint32_t t = 0; t < tasks; ++t) {
    for (std::uint32_t i = dag.parent_begin[t]; i < dag.parent_begin[t + 1]; ++i) {
      out.children[next[dag.parents[i]]++] = t;
    }
  }
  return out;
}

namespace {

[[noreturn]] void broken(const std::string& rule) {
  throw std::invalid_argument("DAG workload: " + rule);
}

std::string task_name(std::size_t t) { return "task " + std::to_string(t); }

}  // namespace

void check_dag(const Workload& workload) {
  if (!workload.dag) return;
  const DagInfo& dag = *workload.dag;
  const std::size_t tasks = workload.jobs.size();
  const std::size_t queries = dag.query_ids.size();
  if (dag.query_of.size() != tasks || dag.input_mb.size() != tasks ||
      dag.output_mb.size() != tasks || dag.parent_begin.size() != tasks + 1)
    broken("per-task arrays do not match the " + std::to_string(tasks) + " jobs");
  if (dag.arrival_time.size() != queries || dag.task_begin.size() != queries + 1)
    broken("per-query arrays do not match the " + std::to_string(queries) + " query ids");
  if (tasks >= UINT32_MAX) broken("more tasks than 32-bit indices can hold");
  if (dag.parent_begin[0] != 0 || dag.parent_begin[tasks] != dag.parents.size())
    broken("parent_begin does not span the parents array");
  if (dag.task_begin[0] != 0 || dag.task_begin[queries] != tasks)
    broken("task_begin does not span the tasks");

  std::unordered_set<std::string> ids;
  for (std::size_t q = 0; q < queries; ++q) {
    if (dag.task_begin[q + 1] <= dag.task_begin[q])
      broken("query " + std::to_string(q) + " has no tasks");
    if (!ids.insert(dag.query_ids[q]).second)
      broken("duplicate query id at query " + std::to_string(q));
    if (!std::isfinite(dag.arrival_time[q]) || dag.arrival_time[q] < 0.0)
      broken("query " + std::to_string(q) + " has a bad arrival time");
  }
  std::vector<std::uint32_t> listed_by(tasks, UINT32_MAX);  // the last child that named a parent
  for (std::size_t q = 0; q < queries; ++q) {
    for (std::uint32_t t = dag.task_begin[q]; t < dag.task_begin[q + 1]; ++t) {
      if (dag.query_of[t] != q) broken(task_name(t) + " lies outside its query's range");
      const JobSpec& job = workload.jobs[t];
      if (job.submit_time != dag.arrival_time[q])
        broken(task_name(t) + "'s submit_time differs from its query's arrival");
      if (job.num_gpus != 1) broken(task_name(t) + " asks for other than 1 GPU");
      if (!std::isfinite(job.duration) || job.duration <= 0.0)
        broken(task_name(t) + " has no positive compute time");
      if (!std::isfinite(dag.input_mb[t]) || dag.input_mb[t] < 0.0 ||
          !std::isfinite(dag.output_mb[t]) || dag.output_mb[t] < 0.0)
        broken(task_name(t) + " has a bad input or output size");
      if (dag.parent_begin[t + 1] < dag.parent_begin[t]) broken("parent_begin decreases");
      for (std::uint32_t i = dag.parent_begin[t]; i < dag.parent_begin[t + 1]; ++i) {
        const std::uint32_t parent = dag.parents[i];
        if (parent >= t) broken(task_name(t) + " has a parent that does not come before it");
        if (parent < dag.task_begin[q]) broken(task_name(t) + " has a parent in another query");
        if (listed_by[parent] == t) broken(task_name(t) + " lists a parent twice");
        listed_by[parent] = t;
      }
    }
  }
}

}  // namespace clustersim
