// Training and serving on one cluster (serving.h, make_mixed_serving), worked by hand: a serving
// burst preempts exactly the training jobs ranked last (least attained service), they pay their
// checkpoint and restore, and both kinds' metrics come out as computed here.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "clustersim/serving.h"
#include "clustersim/simulation.h"

namespace clustersim {
namespace {

// Three single-task queries at t = 100, each task 20 s of compute on model 0 (2 GB; a load
// costs 2 GB / 5 GB/s = 0.4 s).
Workload burst() {
  Workload w;
  DagInfo dag;
  dag.task_begin.push_back(0);
  dag.parent_begin.push_back(0);
  for (int q = 0; q < 3; ++q) {
    dag.query_ids.push_back("q" + std::to_string(q));
    dag.arrival_time.push_back(100.0);
    dag.task_begin.push_back(static_cast<std::uint32_t>(q + 1));
    JobSpec& task = w.jobs.emplace_back();
    task.id = "q" + std::to_string(q) + "/0";
    task.submit_time = 100.0;
    task.duration = 20.0;
    dag.query_of.push_back(static_cast<std::uint32_t>(q));
    dag.parent_begin.push_back(0);
    dag.input_mb.push_back(0.0);
    dag.output_mb.push_back(0.0);
  }
  w.dag = dag;
  check_dag(w);
  return w;
}

JobSpec training(const std::string& id, double submit) {
  JobSpec job;
  job.id = id;
  job.submit_time = submit;
  job.num_gpus = 1;
  job.duration = 1000.0;
  return job;
}

// 2 nodes x 2 GPUs of 16 GB; FIFO training with checkpoint_s 10 and restore_s 5; serving with
// least_loaded placement and a base pool of 1 GPU (GPU 0). Training: A and B (1 GPU, 1000 s) at
// t = 0, C (1 GPU, 1000 s) at t = 50: with the base pool, they fill the other three GPUs.
RunResult run_mixed(bool priority) {
  SimOptions options;
  NodeGroupSpec group;
  group.nodes = 2;
  group.gpus_per_node = 2;
  options.cluster.groups.push_back(group);
  options.scheduler.policy = "fifo";
  options.scheduler.checkpoint_s = 10.0;
  options.scheduler.restore_s = 5.0;
  options.check_invariants = true;

  SimOptions serving = options;
  serving.serving.task_placement = "least_loaded";
  serving.serving.priority = priority;
  serving.serving.gpus = 1;
  ServingSetup setup;
  setup.task_model.assign(3, 0);
  setup.model_footprint_gb = {2.0};
  setup.groups.push_back({16.0, 5.0, 100.0, 2.0});
  std::unique_ptr<MixedServing> mechanism = make_mixed_serving(serving, burst(), setup);
  MixedServing& mixed = *mechanism;

  Simulation sim(options,
                 std::vector<JobSpec>{training("A", 0.0), training("B", 0.0), training("C", 50.0)});
  sim.add_mechanism(std::move(mechanism));
  RunResult result = sim.run();
  mixed.collect(result);
  return result;
}

TEST(MixedServing, BurstPreemptsTheJobsWithLeastAttainedServiceAndPaysTheirCheckpoint) {
  const RunResult r = run_mixed(/*priority=*/true);
  // At t = 100 the three tasks are placed in task order. Task 0: GPU 0 (the base pool) is idle:
  // it goes there (head 100, load 0.4 s, compute 100.4 -> 120.4). Task 1: no idle pool GPU, no
  // free GPU: the running job with the least attained service is preempted. Attained: A 100 s,
  // B 100 s, C 50 s -> C. Its GPU joins the pool at 100 + checkpoint 10 = 110; least_loaded
  // takes it (free at 110 < GPU 0's 120.4): head 110, load 0.4, compute 110.4 -> 130.4.
  // Task 2: again no idle GPU; A and B tie at 100 s and were submitted together: the higher
  // index, B, goes. Its GPU (free at 110) beats GPU 0 (120.4) and C's (130.4): 110 -> 130.4.
  ASSERT_EQ(r.jobs.size(), 3u);
  EXPECT_EQ(r.jobs[0].preemptions, 0);  // A
  EXPECT_EQ(r.jobs[1].preemptions, 1);  // B
  EXPECT_EQ(r.jobs[2].preemptions, 1);  // C
  EXPECT_EQ(r.metrics.serving_preemptions, 2u);
  ASSERT_EQ(r.queries.size(), 3u);
  EXPECT_DOUBLE_EQ(r.tasks[0].finish, 120.4);
  EXPECT_DOUBLE_EQ(r.tasks[1].head, 110.0);
  EXPECT_DOUBLE_EQ(r.tasks[1].finish, 130.4);
  EXPECT_DOUBLE_EQ(r.tasks[2].finish, 130.4);
  EXPECT_NE(r.tasks[1].gpu, 0);
  EXPECT_NE(r.tasks[2].gpu, 0);
  EXPECT_NE(r.tasks[1].gpu, r.tasks[2].gpu);
  // Serving: latencies 20.4, 30.4, 30.4 (mean 81.2 / 3, max 30.4); queue (head - ready) 0, 10,
  // 10; three misses of 0.4 s; the pool held GPU 0 from t = 0 (the first training arrival) to
  // 130.4 (its last query), and C's and B's GPUs 110 -> 130.4: 130.4 + 2 x 20.4 = 171.2
  // GPU-seconds, of which 3 x (0.4 + 20) = 61.2 busy.
  EXPECT_EQ(r.metrics.queries, 3u);
  EXPECT_NEAR(r.metrics.query_latency_mean, 81.2 / 3.0, 1e-9);
  EXPECT_NEAR(r.metrics.query_latency_max, 30.4, 1e-9);
  EXPECT_NEAR(r.metrics.task_queue_mean, 20.0 / 3.0, 1e-9);
  EXPECT_EQ(r.metrics.model_loads, 3u);
  EXPECT_NEAR(r.metrics.task_load_mean, 0.4, 1e-12);
  EXPECT_NEAR(r.metrics.serving_gpu_seconds, 171.2, 1e-9);
  EXPECT_NEAR(r.metrics.serving_busy_gpu_seconds, 61.2, 1e-9);
  // Training: B and C save 100 -> 110, wait while serving holds their GPUs, get them back when
  // the pool gives them back at 130.4, restore 5 s, then run what is left. B: 900 s left ->
  // 135.4 + 900 = 1035.4. C: 950 s left -> 1085.4 (JCT 1085.4 - 50 = 1035.4). A: 1000.
  EXPECT_NEAR(r.jobs[0].finish_time, 1000.0, 1e-9);
  EXPECT_NEAR(r.jobs[1].finish_time, 1035.4, 1e-9);
  EXPECT_NEAR(r.jobs[2].finish_time, 1085.4, 1e-9);
  EXPECT_NEAR(r.metrics.jct_mean, (1000.0 + 1035.4 + 1035.4) / 3.0, 1e-9);
  EXPECT_NEAR(r.jobs[1].queue_delay, 130.4 - 110.0, 1e-9);
  EXPECT_NEAR(r.jobs[2].queue_delay, 130.4 - 110.0, 1e-9);
  // Their checkpoints (10 GPU-s each) and restores (5 each).
  EXPECT_NEAR(r.metrics.overhead_checkpoint_gpu_seconds, 20.0, 1e-9);
  EXPECT_NEAR(r.metrics.overhead_restore_gpu_seconds, 10.0, 1e-9);
}

TEST(MixedServing, WithoutPriorityServingQueuesOnItsPoolAndTrainingRunsUntouched) {
  const RunResult r = run_mixed(/*priority=*/false);
  // No GPU is free at t = 100 and serving may not preempt: all three tasks queue on GPU 0.
  // Task 0: load 0.4, 100.4 -> 120.4; task 1: a hit, 120.4 -> 140.4; task 2: 140.4 -> 160.4.
  EXPECT_EQ(r.metrics.serving_preemptions, 0u);
  for (const JobRecord& job : r.jobs) EXPECT_EQ(job.preemptions, 0);
  EXPECT_DOUBLE_EQ(r.tasks[2].finish, 160.4);
  for (const TaskRecord& task : r.tasks) EXPECT_EQ(task.gpu, 0);
  // Latencies 20.4, 40.4, 60.4: mean 40.4, max 60.4; one load, two hits.
  EXPECT_NEAR(r.metrics.query_latency_mean, 40.4, 1e-9);
  EXPECT_NEAR(r.metrics.query_latency_max, 60.4, 1e-9);
  EXPECT_EQ(r.metrics.model_loads, 1u);
  EXPECT_NEAR(r.metrics.cache_hit_rate, 2.0 / 3.0, 1e-12);
  EXPECT_NEAR(r.metrics.serving_gpu_seconds, 160.4, 1e-9);
  // Training as if alone on the other three GPUs: A, B 0 -> 1000, C 50 -> 1050.
  EXPECT_NEAR(r.metrics.jct_mean, 1000.0, 1e-9);
  EXPECT_NEAR(r.jobs[2].finish_time, 1050.0, 1e-9);
}

TEST(MixedServing, FreeGpusGrowThePoolBeforeAnyPreemption) {
  // Only A runs (B and C never arrive): at t = 100 task 0 takes GPU 0, tasks 1 and 2 take free
  // GPUs of the ledger (the first node with one), so nothing is preempted and every task runs at
  // once: latencies 20.4 each.
  SimOptions options;
  NodeGroupSpec group;
  group.nodes = 2;
  group.gpus_per_node = 2;
  options.cluster.groups.push_back(group);
  options.scheduler.checkpoint_s = 10.0;
  options.check_invariants = true;
  SimOptions serving = options;
  serving.serving.task_placement = "least_loaded";
  ServingSetup setup;
  setup.task_model.assign(3, 0);
  setup.model_footprint_gb = {2.0};
  setup.groups.push_back({16.0, 5.0, 100.0, 2.0});
  std::unique_ptr<MixedServing> mechanism = make_mixed_serving(serving, burst(), setup);
  MixedServing& mixed = *mechanism;
  Simulation sim(options, std::vector<JobSpec>{training("A", 0.0)});
  sim.add_mechanism(std::move(mechanism));
  RunResult r = sim.run();
  mixed.collect(r);
  EXPECT_EQ(r.metrics.serving_preemptions, 0u);
  EXPECT_NEAR(r.metrics.query_latency_max, 20.4, 1e-9);
  // GPU 0 for 0 -> 120.4, two grown GPUs for 100 -> 120.4.
  EXPECT_NEAR(r.metrics.serving_gpu_seconds, 120.4 + 2.0 * 20.4, 1e-9);
  EXPECT_NEAR(r.jobs[0].finish_time, 1000.0, 1e-9);
}

TEST(MixedServing, RefusesABasePoolThatCannotHoldTheModels) {
  SimOptions options;
  NodeGroupSpec group;
  group.nodes = 1;
  group.gpus_per_node = 2;
  options.cluster.groups.push_back(group);
  ServingSetup setup;
  setup.task_model.assign(3, 0);
  setup.model_footprint_gb = {20.0};  // more than a 16 GB GPU
  setup.groups.push_back({16.0, 5.0, 100.0, 2.0});
  try {
    make_mixed_serving(options, burst(), setup);
    FAIL() << "expected a refusal";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("serving.gpus"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace clustersim
