// The serving engine on hand-computed DAGs: transfers between nodes, model loads and evictions,
// fan-in, and what the policies decide through the engine.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "clustersim/serving.h"
#include "clustersim/task_placement.h"

namespace clustersim {
namespace {

// A DAG workload built task by task, and the setup that goes with it.
class DagBuilder {
 public:
  // A new query arriving at `arrival`; its tasks follow until the next query().
  DagBuilder& query(const std::string& id, double arrival) {
    dag_.query_ids.push_back(id);
    dag_.arrival_time.push_back(arrival);
    if (dag_.task_begin.empty()) dag_.task_begin.push_back(0);
    dag_.task_begin.push_back(dag_.task_begin.back());
    if (dag_.parent_begin.empty()) dag_.parent_begin.push_back(0);
    return *this;
  }
  // A task of the current query; `parents` are indices of earlier tasks of that query (global).
  std::uint32_t task(int model, double compute_s, double output_mb,
                     std::vector<std::uint32_t> parents = {}) {
    const auto index = static_cast<std::uint32_t>(workload_.jobs.size());
    JobSpec& job = workload_.jobs.emplace_back();
    job.id = dag_.query_ids.back();  // "<query>/<index>", appended (GCC 12 warns on a + chain)
    job.id += '/';
    job.id += std::to_string(index);
    job.submit_time = dag_.arrival_time.back();
    job.duration = compute_s;
    dag_.query_of.push_back(static_cast<std::uint32_t>(dag_.query_ids.size() - 1));
    for (const std::uint32_t p : parents) dag_.parents.push_back(p);
    dag_.parent_begin.push_back(static_cast<std::uint32_t>(dag_.parents.size()));
    dag_.input_mb.push_back(0.0);
    dag_.output_mb.push_back(output_mb);
    ++dag_.task_begin.back();
    task_model_.push_back(model);
    return index;
  }
  Workload workload() const {
    Workload w = workload_;
    w.dag = dag_;
    check_dag(w);
    return w;
  }
  const std::vector<int>& task_model() const { return task_model_; }

 private:
  Workload workload_;
  DagInfo dag_;
  std::vector<int> task_model_;
};

// `nodes` nodes of `gpus_per_node` GPUs with `mem_gb` each, `h2d_gbps` loads, `net_gbps` NICs
// and `latency_us` per transfer.
struct Cluster {
  int nodes = 1;
  int gpus_per_node = 1;
  double mem_gb = 16.0;
  double h2d_gbps = 5.0;
  double net_gbps = 8.0;
  double latency_us = 500.0;
};

NodeGroupSpec group_of(int nodes, int gpus_per_node) {
  NodeGroupSpec group;
  group.nodes = nodes;
  group.gpus_per_node = gpus_per_node;
  return group;
}

RunResult run(const DagBuilder& dag, const std::vector<double>& footprints, const Cluster& c,
              const std::string& placement, const std::string& cache = "lru") {
  SimOptions options;
  options.cluster.groups.push_back(group_of(c.nodes, c.gpus_per_node));
  options.serving.task_placement = placement;
  options.serving.cache = cache;
  ServingSetup setup;
  setup.task_model = dag.task_model();
  setup.model_footprint_gb = footprints;
  setup.groups.push_back({c.mem_gb, c.h2d_gbps, c.net_gbps, c.latency_us});
  return simulate_serving(options, dag.workload(), setup);
}

// The transfer of 100 MB over 8 Gb/s with 500 us latency, written out: 100 x 8e6 bits /
// 8e9 bits/s + 500e-6 s.
constexpr double kTransfer100Mb = 0.1 + 0.0005;

// a (2 s) -> b (3 s), a hands b 100 MB; no model to load (footprint 0).
DagBuilder chain() {
  DagBuilder dag;
  dag.query("q", 1.0);
  const std::uint32_t a = dag.task(0, 2.0, 100.0);
  dag.task(0, 3.0, 0.0, {a});
  return dag;
}

TEST(ServingEngine, ChainSplitAcrossNodesPaysExactlyTheTransfer) {
  // round_robin puts a on GPU 0 and b on GPU 1. One node of two GPUs: collocated (no transfer);
  // two nodes of one GPU: split.
  const RunResult together = run(chain(), {0.0}, {.nodes = 1, .gpus_per_node = 2}, "round_robin");
  const RunResult apart = run(chain(), {0.0}, {.nodes = 2, .gpus_per_node = 1}, "round_robin");
  ASSERT_EQ(together.queries.size(), 1u);
  EXPECT_EQ(together.tasks[1].gpu, 1);
  EXPECT_EQ(apart.tasks[1].gpu, 1);
  EXPECT_DOUBLE_EQ(together.queries[0].latency, 2.0 + 3.0);
  EXPECT_DOUBLE_EQ(apart.queries[0].latency, 2.0 + kTransfer100Mb + 3.0);
  EXPECT_NEAR(apart.queries[0].latency - together.queries[0].latency, kTransfer100Mb, 1e-12);
  EXPECT_DOUBLE_EQ(apart.tasks[1].transfer_s, kTransfer100Mb);
  EXPECT_EQ(together.tasks[1].transfer_s, 0.0);
  // b's GPU turned to it when it became ready, then waited for its input.
  EXPECT_DOUBLE_EQ(apart.tasks[1].head, 3.0);
  EXPECT_DOUBLE_EQ(apart.tasks[1].compute_start, 3.0 + kTransfer100Mb);
  EXPECT_EQ(apart.metrics.bytes_moved, 100e6);
  EXPECT_EQ(together.metrics.bytes_moved, 0.0);
  EXPECT_DOUBLE_EQ(apart.metrics.query_latency_mean, apart.queries[0].latency);
  EXPECT_DOUBLE_EQ(apart.metrics.task_transfer_mean, kTransfer100Mb / 2.0);
}

TEST(ServingEngine, CompassCollocatesTheChainOnTwoNodes) {
  // The same split cluster: compass plans b onto a's GPU (its input is there: no transfer), so
  // the query runs as if collocated.
  const RunResult r = run(chain(), {0.0}, {.nodes = 2, .gpus_per_node = 1}, "compass");
  EXPECT_EQ(r.tasks[0].gpu, r.tasks[1].gpu);
  EXPECT_DOUBLE_EQ(r.queries[0].latency, 2.0 + 3.0);
  EXPECT_EQ(r.metrics.bytes_moved, 0.0);
}

// One GPU; models of `gb` each; single-task queries of `models` (1 s compute each) arriving at
// `times`.
DagBuilder sequence(const std::vector<int>& models, const std::vector<double>& times) {
  DagBuilder dag;
  for (std::size_t i = 0; i < models.size(); ++i) {
    std::string id = "q";
    id += std::to_string(i);
    dag.query(id, times[i]);
    dag.task(models[i], 1.0, 0.0);
  }
  return dag;
}

TEST(ServingEngine, CacheThatMustEvictLoadsExactly) {
  // 10 GB GPU, two 6 GB models used alternately, each query alone on the GPU: every use is a
  // miss that evicts the other model (after the first). Load = 6 GB / 5 GB/s = 1.2 s.
  const DagBuilder alternating = sequence({0, 1, 0, 1}, {0, 10, 20, 30});
  const RunResult r = run(alternating, {6.0, 6.0}, {.mem_gb = 10.0}, "least_loaded");
  EXPECT_EQ(r.metrics.model_loads, 4u);
  EXPECT_EQ(r.metrics.evictions, 3u);
  EXPECT_EQ(r.metrics.cache_hit_rate, 0.0);
  for (const QueryRecord& q : r.queries) EXPECT_NEAR(q.latency, 1.2 + 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(r.metrics.task_load_mean, 1.2);
  // With room for both: two loads, then hits.
  const RunResult roomy = run(alternating, {6.0, 6.0}, {.mem_gb = 12.0}, "least_loaded");
  EXPECT_EQ(roomy.metrics.model_loads, 2u);
  EXPECT_EQ(roomy.metrics.evictions, 0u);
  EXPECT_EQ(roomy.metrics.cache_hit_rate, 0.5);
  EXPECT_DOUBLE_EQ(roomy.queries[3].latency, 1.0);
}

TEST(ServingEngine, LookaheadCacheKeepsTheModelQueuedNext) {
  // Four queries arrive together on one 10 GB GPU, models A, B, C, A of 4 GB (0.8 s loads). When
  // C must be loaded, LRU evicts A (least recently used) and A is loaded again; the compass
  // cache sees A queued next and evicts B instead.
  const DagBuilder dag = sequence({0, 1, 2, 0}, {0, 0, 0, 0});
  const RunResult lru = run(dag, {4.0, 4.0, 4.0}, {.mem_gb = 10.0}, "least_loaded", "lru");
  const RunResult compass = run(dag, {4.0, 4.0, 4.0}, {.mem_gb = 10.0}, "least_loaded", "compass");
  EXPECT_EQ(lru.metrics.model_loads, 4u);
  EXPECT_EQ(lru.metrics.evictions, 2u);
  EXPECT_EQ(compass.metrics.model_loads, 3u);
  EXPECT_EQ(compass.metrics.evictions, 1u);
  // Served in order, one at a time: A 0.8 + 1, B +1.8, C +1.8, then A: +1.8 (reload) or +1.
  EXPECT_DOUBLE_EQ(lru.tasks[2].finish, 5.4);
  EXPECT_DOUBLE_EQ(lru.tasks[3].finish, 5.4 + 1.8);
  EXPECT_DOUBLE_EQ(compass.tasks[3].finish, 5.4 + 1.0);
  EXPECT_TRUE(compass.tasks[3].cache_hit);
  EXPECT_DOUBLE_EQ(compass.metrics.cache_hit_rate, 0.25);
}

TEST(ServingEngine, FanInWaitsForItsSlowestParent) {
  // s (0.5 s) -> {a (1 s), b (3 s)} -> j (0.25 s), on three GPUs of one node: a and b run side
  // by side; j becomes ready when b, the slower, finishes.
  DagBuilder dag;
  dag.query("q", 0.0);
  const std::uint32_t s = dag.task(0, 0.5, 1.0);
  const std::uint32_t a = dag.task(0, 1.0, 1.0, {s});
  const std::uint32_t b = dag.task(0, 3.0, 1.0, {s});
  const std::uint32_t j = dag.task(0, 0.25, 0.0, {a, b});
  const RunResult r = run(dag, {0.0}, {.nodes = 1, .gpus_per_node = 3}, "least_loaded");
  EXPECT_NE(r.tasks[a].gpu, r.tasks[b].gpu);
  EXPECT_DOUBLE_EQ(r.tasks[a].finish, 1.5);
  EXPECT_DOUBLE_EQ(r.tasks[b].finish, 3.5);
  EXPECT_DOUBLE_EQ(r.tasks[j].ready, 3.5);
  EXPECT_DOUBLE_EQ(r.queries[0].latency, 0.5 + 3.0 + 0.25);
  // Across nodes, inputs leave when j is placed (the moment its last parent finishes: its GPU
  // is not known before), so j waits for its last parent and then for its slowest input. Two
  // nodes of one GPU, round_robin: s -> GPU 0; a (higher upward rank) -> GPU 1, its 0 MB input
  // crossing (the 500 us latency); b -> GPU 0; j -> GPU 1, beside a, while b's 100 MB cross.
  DagBuilder far;
  far.query("q", 0.0);
  const std::uint32_t fs = far.task(0, 0.5, 0.0);
  const std::uint32_t fa = far.task(0, 3.2, 0.0, {fs});
  const std::uint32_t fb = far.task(0, 2.95, 100.0, {fs});
  const std::uint32_t fj = far.task(0, 0.25, 0.0, {fa, fb});
  const RunResult rf = run(far, {0.0}, {.nodes = 2, .gpus_per_node = 1}, "round_robin");
  EXPECT_EQ(rf.tasks[fa].gpu, 1);
  EXPECT_EQ(rf.tasks[fb].gpu, 0);
  EXPECT_EQ(rf.tasks[fj].gpu, 1);
  EXPECT_DOUBLE_EQ(rf.tasks[fb].finish, 0.5 + 2.95);
  EXPECT_DOUBLE_EQ(rf.tasks[fa].finish, 0.5 + 0.0005 + 3.2);
  EXPECT_DOUBLE_EQ(rf.tasks[fj].ready, rf.tasks[fa].finish);  // a, the slower parent
  EXPECT_DOUBLE_EQ(rf.tasks[fj].transfer_s, kTransfer100Mb);  // b's output, the slower input
  EXPECT_DOUBLE_EQ(rf.tasks[fj].compute_start, 3.7005 + kTransfer100Mb);
  EXPECT_DOUBLE_EQ(rf.queries[0].latency, 3.7005 + kTransfer100Mb + 0.25);
}

TEST(ServingEngine, HeftWeighsTheLoadAgainstTheQueue) {
  // "warm" loads the 8 GB model on GPU 0 (1.6 s at 5 GB/s) and runs until 2.6. At 2, "probe"
  // (the same model; placed first: higher upward rank) finishes at 2.6 + 1 = 3.6 on GPU 0 after
  // waiting, or at 2 + 1.6 + 1 = 4.6 on the idle GPU 1 after a load: heft waits, least_loaded
  // takes the idle GPU and loads.
  DagBuilder dag;
  dag.query("warm", 0.0);
  dag.task(0, 1.0, 0.0);
  dag.query("next", 2.0);
  dag.task(1, 0.6, 0.0);  // no model to load
  dag.query("probe", 2.0);
  dag.task(0, 1.0, 0.0);
  const RunResult heft = run(dag, {8.0, 0.0}, {.nodes = 1, .gpus_per_node = 2}, "heft");
  EXPECT_EQ(heft.tasks[0].gpu, 0);
  EXPECT_EQ(heft.tasks[2].gpu, 0);
  EXPECT_TRUE(heft.tasks[2].cache_hit);
  EXPECT_DOUBLE_EQ(heft.tasks[2].finish, 3.6);
  EXPECT_EQ(heft.tasks[1].gpu, 1);
  const RunResult ll = run(dag, {8.0, 0.0}, {.nodes = 1, .gpus_per_node = 2}, "least_loaded");
  EXPECT_EQ(ll.tasks[0].gpu, 0);
  EXPECT_EQ(ll.tasks[2].gpu, 1);
  EXPECT_FALSE(ll.tasks[2].cache_hit);
  EXPECT_DOUBLE_EQ(ll.tasks[2].finish, 4.6);
}

TEST(ServingEngine, ModelAffinityFollowsTheResidentModel) {
  // Model 0 is resident on GPU 0 after the first query; the second query's task goes there even
  // though GPU 1 is idle.
  const DagBuilder dag = sequence({0, 0}, {0, 10});
  const RunResult r = run(dag, {4.0}, {.nodes = 1, .gpus_per_node = 2}, "model_affinity");
  EXPECT_EQ(r.tasks[0].gpu, 0);
  EXPECT_EQ(r.tasks[1].gpu, 0);
  EXPECT_EQ(r.metrics.model_loads, 1u);
}

TEST(ServingEngine, SummaryMetricsFollowTheRecords) {
  const DagBuilder dag = sequence({0, 1, 2, 0}, {0, 0, 0, 0});
  SimOptions options;
  options.cluster.groups.push_back(group_of(1, 1));
  options.serving.task_placement = "least_loaded";
  options.serving.query_slo_s = 4.0;
  ServingSetup setup{dag.task_model(), {4.0, 4.0, 4.0}, {{10.0, 5.0, 8.0, 500.0}}};
  const RunResult r = simulate_serving(options, dag.workload(), setup);
  // Finishes 1.8, 3.6, 5.4, 7.2 (LRU reloads A): latencies equal them (all arrive at 0).
  EXPECT_EQ(r.metrics.queries, 4u);
  EXPECT_EQ(r.metrics.jobs, 4u);
  EXPECT_DOUBLE_EQ(r.metrics.query_latency_mean, (1.8 + 3.6 + 5.4 + 7.2) / 4);
  EXPECT_DOUBLE_EQ(r.metrics.query_latency_p50, (3.6 + 5.4) / 2);
  EXPECT_DOUBLE_EQ(r.metrics.query_latency_p99, 5.4 + (7.2 - 5.4) * 0.97);
  EXPECT_DOUBLE_EQ(r.metrics.query_latency_max, 7.2);
  EXPECT_EQ(r.metrics.query_slo_attainment, 0.5);  // 1.8 and 3.6 are within 4 s
  EXPECT_DOUBLE_EQ(r.metrics.makespan, 7.2);
  EXPECT_DOUBLE_EQ(r.metrics.gpu_seconds, 4 * (0.8 + 1.0));
  EXPECT_DOUBLE_EQ(r.metrics.gpu_util, 1.0);  // the GPU never idles
  EXPECT_DOUBLE_EQ(r.metrics.task_queue_mean, (0 + 1.8 + 3.6 + 5.4) / 4);
  EXPECT_EQ(r.metrics.events, 8u);  // 4 arrivals, 4 completions
  EXPECT_DOUBLE_EQ(r.jobs[3].queue_delay, 5.4);
  EXPECT_DOUBLE_EQ(r.jobs[3].jct, 7.2);
}

TEST(ServingEngine, OnlyPlacesWhereTheModelFits) {
  // Two node groups: 4 GB GPUs and one 16 GB GPU. The 10 GB model can only go to the big one,
  // whatever the policy.
  const DagBuilder dag = sequence({0, 0, 0}, {0, 0, 0});
  for (const std::string& policy : task_placement_names()) {
    SimOptions options;
    options.cluster.groups = {group_of(2, 1), group_of(1, 1)};  // small GPUs, then one large
    options.serving.task_placement = policy;
    ServingSetup setup{dag.task_model(), {10.0}, {{4.0, 5.0, 8.0, 0.0}, {16.0, 5.0, 8.0, 0.0}}};
    const RunResult r = simulate_serving(options, dag.workload(), setup);
    for (const TaskRecord& t : r.tasks) EXPECT_EQ(t.gpu, 2) << policy;
  }
}

TEST(ServingEngine, RefusesMismatchedSetups) {
  const DagBuilder dag = chain();
  SimOptions options;
  options.cluster.groups.push_back(group_of(1, 8));
  ServingSetup setup{dag.task_model(), {0.0}, {{16.0, 5.0, 8.0, 0.0}}};
  EXPECT_NO_THROW(simulate_serving(options, dag.workload(), setup));
  ServingSetup no_groups = setup;
  no_groups.groups.clear();
  EXPECT_THROW(simulate_serving(options, dag.workload(), no_groups), std::invalid_argument);
  ServingSetup bad_model = setup;
  bad_model.task_model[1] = 3;
  EXPECT_THROW(simulate_serving(options, dag.workload(), bad_model), std::invalid_argument);
  Workload training = dag.workload();
  training.dag.reset();
  EXPECT_THROW(simulate_serving(options, training, setup), std::invalid_argument);
  options.serving.task_placement = "nope";
  EXPECT_THROW(simulate_serving(options, dag.workload(), setup), std::invalid_argument);
}

}  // namespace
}  // namespace clustersim
