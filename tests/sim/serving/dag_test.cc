// The DAG data model's rules (check_dag) and the children index.
#include "clustersim/dag.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "clustersim/job.h"

namespace clustersim {
namespace {

// Query "q" (arrival 1): a -> {b, c} -> d; query "r" (arrival 2): one task.
Workload diamond() {
  Workload w;
  for (const char* id : {"q/a", "q/b", "q/c", "q/d", "r/x"}) {
    JobSpec& job = w.jobs.emplace_back();
    job.id = id;
    job.submit_time = job.id[0] == 'q' ? 1.0 : 2.0;
    job.duration = 0.5;
  }
  DagInfo dag;
  dag.query_of = {0, 0, 0, 0, 1};
  dag.parent_begin = {0, 0, 1, 2, 4, 4};
  dag.parents = {0, 0, 1, 2};
  dag.input_mb = {1, 1, 1, 2, 1};
  dag.output_mb = {1, 1, 1, 1, 1};
  dag.query_ids = {"q", "r"};
  dag.arrival_time = {1.0, 2.0};
  dag.task_begin = {0, 4, 5};
  w.dag = dag;
  return w;
}

void expect_broken(const Workload& w, const std::string& words) {
  try {
    check_dag(w);
    ADD_FAILURE() << "expected check_dag to fail with '" << words << "'";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
  }
}

TEST(Dag, ChildrenAreTheReverseOfParents) {
  const Workload w = diamond();
  EXPECT_NO_THROW(check_dag(w));
  const DagChildren children = dag_children(*w.dag);
  EXPECT_EQ(children.child_begin, std::vector<std::uint32_t>({0, 2, 3, 4, 4, 4}));
  EXPECT_EQ(children.children, std::vector<std::uint32_t>({1, 2, 3, 3}));
  EXPECT_EQ(w.dag->parent_count(3), 2u);
}

TEST(Dag, CheckNamesTheBrokenRule) {
  Workload w = diamond();
  w.dag->parents[3] = 3;  // d is its own parent
  expect_broken(w, "does not come before it");
  w = diamond();
  w.dag->parents = {0, 0, 1, 1};
  expect_broken(w, "lists a parent twice");
  w = diamond();
  w.dag->query_of[4] = 0;
  expect_broken(w, "outside its query's range");
  w = diamond();
  w.jobs[4].submit_time = 3.0;
  expect_broken(w, "submit_time differs");
  w = diamond();
  w.dag->input_mb[2] = -1.0;
  expect_broken(w, "bad input or output size");
  w = diamond();
  w.dag->query_ids[1] = w.dag->query_ids[0];
  expect_broken(w, "duplicate query id");
  w = diamond();
  w.dag->parent_begin.pop_back();
  expect_broken(w, "per-task arrays");
  w = diamond();
  w.jobs[1].num_gpus = 2;
  expect_broken(w, "other than 1 GPU");
  // A parent in another query: make r's task depend on q's a.
  w = diamond();
  w.dag->parent_begin = {0, 0, 1, 2, 4, 5};
  w.dag->parents = {0, 0, 1, 2, 0};
  expect_broken(w, "parent in another query");
  // No DagInfo: nothing to check.
  w = diamond();
  w.dag.reset();
  EXPECT_NO_THROW(check_dag(w));
}

}  // namespace
}  // namespace clustersim
