// The placement study (placement_study.h): FGD's choice worked by hand, the baselines' scores,
// the typical-pod rule, the experiment's bookkeeping and its config keys.
#include "clustersim/placement_study.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "clustersim/config.h"
#include "clustersim/error.h"
#include "clustersim/workload.h"

namespace clustersim {
namespace {

StudyPod pod(std::int64_t cpu_milli, int gpus, std::int64_t gpu_milli) {
  StudyPod p;
  p.cpu_milli = cpu_milli;
  p.num_gpus = gpus;
  p.gpu_milli = gpus > 0 ? gpu_milli : 0;
  return p;
}

StudyNode node(std::int64_t cpu_left, std::vector<std::int64_t> gpu_left) {
  StudyNode n;
  n.cpu_milli_left = n.cpu_milli_capacity = cpu_left;
  n.memory_mib_left = 1 << 20;
  n.gpu_milli_left = std::move(gpu_left);
  n.model = "V100";
  return n;
}

// Two typical pods, half each: B = 1 CPU + one whole GPU, A = 1 CPU + half a GPU.
std::vector<TypicalPod> half_whole_half_share() {
  const std::vector<StudyPod> workload = {pod(1000, 1, 500), pod(1000, 1, 1000), pod(1000, 1, 500),
                                          pod(1000, 1, 1000)};
  return typical_pods(workload);
}

TEST(TypicalPods, MostFrequentShapesCovering95PercentLargerFirstOnTies) {
  const auto typical = half_whole_half_share();
  ASSERT_EQ(typical.size(), 2u);
  EXPECT_EQ(typical[0].pod.gpu_milli, 1000);  // equal counts: the larger shape first
  EXPECT_EQ(typical[1].pod.gpu_milli, 500);
  EXPECT_DOUBLE_EQ(typical[0].share, 0.5);
  // 20 pods: 15 of X, 4 of Y, 1 of Z. X alone covers 75% < 95%, X + Y 95%: Z is left out and
  // the shares renormalised over 19.
  std::vector<StudyPod> pods(15, pod(2000, 1, 1000));
  pods.insert(pods.end(), 4, pod(0, 0, 0));  // CPU-only pods count (scored as 100 millicores)
  pods.push_back(pod(8000, 8, 1000));
  const auto rule = typical_pods(pods);
  ASSERT_EQ(rule.size(), 2u);
  EXPECT_EQ(rule[1].pod.cpu_milli, 100);
  EXPECT_DOUBLE_EQ(rule[0].share, 15.0 / 19.0);
  EXPECT_DOUBLE_EQ(rule[1].share, 4.0 / 19.0);
}

TEST(Fragmentation, IdleGpuMilliTheTypicalPodsCannotUseWorkedByHand) {
  const auto typical = half_whole_half_share();
  // Z: GPUs with 600 and 1000 left, 1.5 cores. B fits (GPU 1) and leaves GPU 0's 600 as a
  // fragment: 0.5 x 600 = 300; A fits on both: 0. F(Z) = 300.
  EXPECT_DOUBLE_EQ(node_fragmentation(node(1500, {600, 1000}), typical), 300.0);
  // An idle node: 0.
  EXPECT_DOUBLE_EQ(node_fragmentation(node(8000, {1000, 1000}), typical), 0.0);
  // Z after a pod of 1 core + 500 milli on GPU 0: 100 and 1000 left, 0.5 cores: neither typical
  // pod has the CPU, so all 1100 idle milli are a fragment for both: 1100.
  EXPECT_DOUBLE_EQ(node_fragmentation(node(500, {100, 1000}), typical), 1100.0);
  // A model the typical pod excludes makes all idle GPUs a fragment for it.
  std::vector<TypicalPod> t100 = typical;
  t100[0].pod.gpu_spec = "A100";
  EXPECT_DOUBLE_EQ(node_fragmentation(node(8000, {1000, 1000}), t100), 0.5 * 2000.0);
}

TEST(Fgd, ChoosesWhereFragmentationGrowsLeastWorkedByHand) {
  const auto typical = half_whole_half_share();
  Rng rng(1);
  auto fgd = make_study_placement("fgd", StudyContext{typical, &rng});
  // Node 0 = Z (600 + 1000 milli left, 1.5 cores), node 1 = W (idle, 8 cores).
  const std::vector<StudyNode> nodes = {node(1500, {600, 1000}), node(8000, {1000, 1000})};
  const std::vector<int> candidates = {0, 1};
  const StudyPod p = pod(1000, 1, 500);
  std::vector<std::int64_t> scores;
  fgd->score(nodes, candidates, p, scores);
  // Z: F = 300 before. On GPU 0 -> (100, 1000), 0.5 cores: F = 1100 (above); on GPU 1 ->
  // (600, 500), 0.5 cores: F = 0.5 x 1100 + 0.5 x 1100 = 1100. Both: sigmoid((300 - 1100) /
  // 1000) x 100 = 31.0 -> 31.
  // W: F = 0 before. On GPU 0 -> (500, 1000), 7 cores: B leaves 500 (0.5 x 500 = 250), A fits
  // anywhere (0): F = 250; GPU 1 alike. sigmoid(-0.25) x 100 = 43.78 -> 43.
  ASSERT_EQ(scores.size(), 2u);
  EXPECT_EQ(scores[0], 31);
  EXPECT_EQ(scores[1], 43);
  EXPECT_EQ(fgd->choose_gpus(nodes[1], p), 1u);  // W's GPU 0 (GPU 1 ties; the first wins)

  // A share that fits Z's GPU 0 exactly (1 core + 600 milli) on a Z with the CPU to spare
  // (8 cores): GPU 0 -> (0, 1000): F = 0, sigmoid(0.3) x 100 = 57.4 -> 57; GPU 1 -> (600, 400):
  // B fits nowhere (0.5 x 1000 = 500), A fits GPU 0 and leaves 400 (0.5 x 400 = 200): F = 700,
  // sigmoid(-0.4) x 100 = 40.1 -> 40. GPU 0 is chosen.
  const StudyNode roomy_z = node(8000, {600, 1000});
  EXPECT_EQ(fgd->choose_gpus(roomy_z, pod(1000, 1, 600)), 1u);
  fgd->score(std::vector<StudyNode>{roomy_z}, std::vector<int>{0}, pod(1000, 1, 600), scores);
  EXPECT_EQ(scores[0], 57);
}

TEST(BestFit, PrefersTheLeastFreeAfterThePodThenNormalises) {
  Rng rng(1);
  auto best_fit = make_study_placement("best_fit", StudyContext{{}, &rng});
  const std::vector<StudyNode> nodes = {node(1500, {600, 1000}), node(8000, {1000, 1000})};
  std::vector<std::int64_t> scores;
  best_fit->score(nodes, std::vector<int>{0, 1}, pod(1000, 1, 500), scores);
  // Z: 1 - (500/128000 + 1100/8000) / 2 = 0.92930 -> 92; W: 1 - (7000/128000 + 1500/8000) / 2
  // = 0.87891 -> 87; normalised over [87, 92]: 100 and 0. (FGD chose W above.)
  EXPECT_EQ(scores, (std::vector<std::int64_t>{100, 0}));
  EXPECT_EQ(best_fit->choose_gpus(nodes[0], pod(1000, 1, 500)), 1u);  // the tightest GPU that fits
}

TEST(GpuPacking, SharedGpusThenUsedNodesThenIdleNodes) {
  Rng rng(1);
  auto packing = make_study_placement("gpu_packing", StudyContext{{}, &rng});
  const std::vector<StudyNode> nodes = {node(8000, {1000, 1000, 1000, 1000}), node(8000, {0, 1000}),
                                        node(8000, {600, 1000})};
  std::vector<std::int64_t> scores;
  packing->score(nodes, std::vector<int>{0, 1, 2}, pod(1000, 1, 500), scores);
  // Idle 4-GPU node: max(33 - 4, 4) = 29; a used node whose free GPU is needed: max(50 - 1,
  // 33) = 49; a shared GPU with 60% free: max(100 - 60 / 10, 50) = 94.
  EXPECT_EQ(scores, (std::vector<std::int64_t>{29, 49, 94}));
}

TEST(GpuClustering, PodsOfAKindTogether) {
  Rng rng(1);
  auto clustering = make_study_placement("gpu_clustering", StudyContext{{}, &rng});
  StudyNode shared = node(8000, {1000, 1000});
  place_on(shared, pod(0, 1, 300), 1u);  // a share on GPU 0: affinity {share: 1}, 1700 free
  StudyNode whole = node(8000, {0, 1000});
  whole.affinity = {{"1-gpu", 1}};
  const std::vector<StudyNode> nodes = {node(8000, {1000, 1000}), shared, whole};
  std::vector<std::int64_t> scores;
  clustering->score(nodes, std::vector<int>{0, 1, 2}, pod(1000, 1, 200), scores);
  // 25 x (8000 - free) / 8000 in integers (free 2000, 1700, 1000: 18, 19, 21), plus 25 (no GPU
  // pod yet), 75 (only shares there), 0 (only other kinds).
  EXPECT_EQ(scores, (std::vector<std::int64_t>{43, 94, 21}));
}

TEST(DotProduct, OneMinusTheAlignmentOverTheLargestNode) {
  Rng rng(1);
  auto dot = make_study_placement("dot_product", StudyContext{{}, &rng});
  const std::vector<StudyNode> nodes = {node(64000, {1000, 1000}), node(32000, {500, 0})};
  std::vector<std::int64_t> scores;
  dot->score(nodes, std::vector<int>{0, 1}, pod(16000, 1, 500), scores);
  // Node (CPU, GPU) over (128 cores, 8000 milli) . pod's, halved; score 100 x (1 - that):
  // (0.5 x 0.125 + 0.25 x 0.0625) / 2 = 0.0390625 -> 96; (0.25 x 0.125 + 0.0625 x 0.0625) / 2 =
  // 0.017578 -> 98.
  EXPECT_EQ(scores, (std::vector<std::int64_t>{96, 98}));
}

TEST(ModelAdmits, AlternativesAndEmptySpecs) {
  EXPECT_TRUE(model_admits("", "V100"));
  EXPECT_TRUE(model_admits("P100|V100", "V100"));
  EXPECT_FALSE(model_admits("P100|T4", "V100"));
  EXPECT_FALSE(model_admits("V100", ""));
  EXPECT_TRUE(model_admits("|", "V100"));  // no model named: any
}

NodeList two_nodes() {
  std::istringstream in(
      "sn,cpu_milli,memory_mib,gpu,model\n"
      "n0,4000,16384,2,V100\n"
      "n1,4000,16384,1,T4\n");
  return read_openb_node_list(in, "nodes.csv");
}

JobSpec job(const std::string& id, double cpus, int gpus, int milli, const std::string& spec = "") {
  JobSpec j;
  j.id = id;
  j.cpus = cpus;
  j.num_gpus = gpus;
  j.gpu_milli = milli;
  j.gpu_spec = spec;
  return j;
}

TEST(RunPlacementStudy, OnePlacementPerPodUnplaceableDroppedAndCounted) {
  const NodeList nodes = two_nodes();
  const std::vector<JobSpec> jobs = {job("a", 1, 1, 1000, "T4"), job("b", 1, 2, 1000),
                                     job("c", 1, 1, 500), job("d", 1, 1, 1000)};
  StudyOptions options;
  options.placement = "best_fit";
  const StudyRun run = run_placement_study(nodes, jobs, options);
  const auto& records = run.result.jobs;
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].node, 1);  // only the T4 node admits it
  EXPECT_EQ(records[0].gpu_mask, 1);
  EXPECT_EQ(records[1].node, 0);  // both V100s
  EXPECT_EQ(records[1].gpu_mask, 3);
  EXPECT_TRUE(records[2].rejected);  // no GPU left anywhere: dropped
  EXPECT_TRUE(records[3].rejected);
  EXPECT_EQ(run.result.metrics.rejected, 2u);
  EXPECT_DOUBLE_EQ(run.result.metrics.unplaced_share, 1500.0 / 4500.0);
  ASSERT_EQ(run.result.samples.size(), 4u);
  EXPECT_DOUBLE_EQ(run.result.samples[1].time, 1.0);  // 3000 of 3000 milli arrived
  EXPECT_DOUBLE_EQ(run.result.samples[3].alloc_ratio, 1.0);
  EXPECT_DOUBLE_EQ(run.result.samples[3].unallocated_share, 0.0);
}

TEST(RunPlacementStudy, ShuffleAndInflationAreSeededAndReachTheTarget) {
  const NodeList nodes = two_nodes();
  const std::vector<JobSpec> jobs = {job("a", 0.1, 1, 200), job("b", 0.1, 1, 300),
                                     job("c", 0.1, 0, 0)};
  StudyOptions options;
  options.placement = "fgd";
  options.shuffle = true;
  options.inflate_to = 1.5;
  options.seed = 7;
  const StudyRun first = run_placement_study(nodes, jobs, options);
  const StudyRun again = run_placement_study(nodes, jobs, options);
  EXPECT_EQ(first.workload_index, again.workload_index);
  ASSERT_GT(first.workload_index.size(), 3u);
  const double arrived = first.result.samples.back().time;
  EXPECT_LE(arrived, 1.5);
  EXPECT_GT(arrived, 1.5 - 0.3 / 3.0 - 1e-12);  // stops within one pod's share of the target
  for (std::size_t i = 0; i < first.result.jobs.size(); ++i) {
    EXPECT_EQ(first.result.jobs[i].node, again.result.jobs[i].node);
    EXPECT_EQ(first.result.jobs[i].gpu_mask, again.result.jobs[i].gpu_mask);
  }
}

TEST(NodeList, BadValuesNameFileLineAndField) {
  std::istringstream in("sn,cpu_milli,memory_mib,gpu,model\nn0,4000,16384,2,V100\nn1,x,1,1,T4\n");
  try {
    read_openb_node_list(in, "nodes.csv");
    ADD_FAILURE() << "expected an InputError";
  } catch (const InputError& error) {
    EXPECT_EQ(error.file(), "nodes.csv");
    EXPECT_EQ(error.line(), 3u);
    EXPECT_EQ(error.field(), "cpu_milli");
  }
}

TEST(OpenbReader, CountsDroppedAndChangedRowsAndKeepsEveryPodForTheStudy) {
  const std::string text =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n"
      "p0,1000,100,1,500,,LS,Running,0,100,10\n"
      "p1,1000,100,0,0,,LS,Running,0,100,10\n"
      "p2,1000,100,1,1000,,LS,Pending,5,,\n"
      "p3,1000,100,1,1000,V100|P100,LS,Failed,5,50,6\n";
  std::istringstream in(text);
  const Workload replay = read_openb(in, "pods.csv", ReaderOptions{});
  ASSERT_EQ(replay.jobs.size(), 2u);
  EXPECT_EQ(replay.jobs[0].gpu_milli, 500);  // kept on the job, run on a whole GPU
  EXPECT_EQ(replay.filtered_rows, 2u);
  ASSERT_EQ(replay.row_changes.size(), 4u);  // share, CPU-only, never scheduled, alternatives
  std::size_t dropped = 0;
  for (const auto& change : replay.row_changes) dropped += change.dropped ? change.rows : 0;
  EXPECT_EQ(dropped, 2u);

  ReaderOptions study;
  study.every_pod = true;
  study.failed_pods = FailedPods::kDrop;
  std::istringstream again(text);
  const Workload every = read_openb(again, "pods.csv", study);
  ASSERT_EQ(every.jobs.size(), 3u);  // the Failed pod dropped, the CPU and Pending pods kept
  EXPECT_EQ(every.jobs[1].num_gpus, 0);
  EXPECT_EQ(every.jobs[2].gpu_spec, "");
}

TEST(OpenbReader, CensoredPodsRunToTheTracesLastTimeWhenAsked) {
  const std::string text =
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n"
      "p0,1000,100,1,1000,,LS,Running,0,,10\n"
      "p1,1000,100,1,1000,,LS,Succeeded,0,400,20\n";
  std::istringstream dropped_in(text);
  EXPECT_EQ(read_openb(dropped_in, "pods.csv", ReaderOptions{}).jobs.size(), 1u);
  ReaderOptions to_end;
  to_end.censored_pods = CensoredPods::kRunToEnd;
  std::istringstream in(text);
  const Workload w = read_openb(in, "pods.csv", to_end);
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_DOUBLE_EQ(w.jobs[0].duration, 390.0);  // until 400, the trace's last time
  ASSERT_EQ(w.row_changes.size(), 1u);
  EXPECT_FALSE(w.row_changes[0].dropped);
}

TEST(StudyConfig, TimeScaleScalesArrivalsOfATrace) {
  const auto dir = std::filesystem::temp_directory_path() / "clustersim_study_time_scale";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "jobs.csv") << "job_id,submit_time,num_gpus,duration\na,0,1,10\nb,100,1,10\n";
  const std::string text =
      "[cluster]\nnodes = 1\n[workload]\ntrace = \"jobs.csv\"\ntime_scale = 0.25\n";
  const Workload w = load_workload(parse_run_config(text, "c.toml", dir.string()));
  ASSERT_EQ(w.jobs.size(), 2u);
  EXPECT_DOUBLE_EQ(w.jobs[1].submit_time, 25.0);
  EXPECT_DOUBLE_EQ(w.jobs[1].duration, 10.0);
  std::filesystem::remove_all(dir);
}

TEST(StudyConfig, TargetLoadSetsTheTimeScale) {
  const auto dir = std::filesystem::temp_directory_path() / "clustersim_target_load";
  std::filesystem::create_directories(dir);
  // GPU-seconds asked: 1 x 10 + 2 x 5 + 1 x 20 = 40; on 2 GPUs over arrivals 0..20 the offered
  // load is 40 / (2 x 20) = 1, so a target of 0.5 doubles the arrival times.
  std::ofstream(dir / "jobs.csv") << "job_id,submit_time,num_gpus,duration\n"
                                     "a,0,1,10\nb,10,2,5\nc,20,1,20\n";
  const std::string cluster = "[cluster]\nnodes = 1\ngpus_per_node = 2\n";
  const Workload w = load_workload(parse_run_config(
      cluster + "[workload]\ntrace = \"jobs.csv\"\ntarget_load = 0.5\n", "c.toml", dir.string()));
  ASSERT_EQ(w.jobs.size(), 3u);
  EXPECT_DOUBLE_EQ(w.jobs[1].submit_time, 20.0);
  EXPECT_DOUBLE_EQ(w.jobs[2].submit_time, 40.0);
  EXPECT_DOUBLE_EQ(w.jobs[2].duration, 20.0);
  try {
    parse_run_config(cluster +
                         "[workload]\ntrace = \"jobs.csv\"\ntarget_load = 0.5\n"
                         "time_scale = 2.0\n",
                     "c.toml", dir.string());
    ADD_FAILURE() << "target_load with time_scale accepted";
  } catch (const InputError& error) {
    EXPECT_EQ(error.field(), "workload.target_load");
  }
  // A generator's arrival rate is its own `load`: neither scaling applies to it.
  for (const std::string key : {"time_scale = 0.5", "target_load = 0.5"}) {
    try {
      parse_run_config(cluster + "[workload]\ngenerator = \"philly\"\n" + key + "\n", "c.toml",
                       dir.string());
      ADD_FAILURE() << key << " accepted with a generator";
    } catch (const InputError& error) {
      EXPECT_EQ(error.field(), "workload." + key.substr(0, key.find(' '))) << error.what();
      EXPECT_EQ(error.line(), 6u) << error.what();
    }
  }
  std::filesystem::remove_all(dir);
}

TEST(StudyConfig, RefusesSettingsThatCannotAct) {
  const auto field_refused = [](const std::vector<std::string>& overrides) -> std::string {
    try {
      parse_run_config(default_config_text(), "c.toml", ".", overrides);
    } catch (const InputError& error) {
      return error.field();
    }
    return "(accepted)";
  };
  EXPECT_EQ(field_refused({"scheduler.placement=\"fgd\""}), "scheduler.placement");
  EXPECT_EQ(field_refused({"workload.departures=\"none\""}), "workload.departures");
  EXPECT_EQ(field_refused({}), "(accepted)");
  // The study's other keys cannot act in time: warned, naming them.
  const RunConfig in_time =
      parse_run_config(default_config_text(), "c.toml", ".",
                       {"workload.inflate_to=1.3", "workload.arrival_order=\"shuffle\"",
                        "workload.on_unplaceable=\"drop\""});
  std::vector<std::string> warned;
  for (const ConfigWarning& warning : config_warnings(in_time)) warned.push_back(warning.key);
  EXPECT_EQ(warned, (std::vector<std::string>{"workload.on_unplaceable", "workload.arrival_order",
                                              "workload.inflate_to"}));
}

// The study's experiment on the real node list and default pod list (../shared, beside the
// checkout): FGD leaves fewer GPUs unallocated than best fit at 130% arrived demand.
TEST(StudyOnOpenb, FgdBeatsBestFitOnTheDefaultTrace) {
  const auto dir = std::filesystem::path(CLUSTERSIM_SHARED_DIR) / "traces" / "alibaba-gpu-v2023";
  if (!std::filesystem::exists(dir / "openb_pod_list_default.csv"))
    GTEST_SKIP() << "no ../shared/traces/alibaba-gpu-v2023 (the openb traces)";
  const NodeList nodes = read_openb_node_list((dir / "openb_node_list_gpu_node.csv").string());
  ReaderOptions every;
  every.every_pod = true;
  const Workload pods =
      read_trace((dir / "openb_pod_list_default.csv").string(), TraceFormat::kOpenb, every);
  StudyOptions options;
  options.shuffle = true;
  options.inflate_to = 1.3;
  options.seed = 42;
  options.placement = "fgd";
  const double fgd =
      run_placement_study(nodes, pods.jobs, options).result.samples.back().unallocated_share;
  options.placement = "best_fit";
  const double best_fit =
      run_placement_study(nodes, pods.jobs, options).result.samples.back().unallocated_share;
  EXPECT_LT(fgd, best_fit);
  EXPECT_LT(fgd, 0.06);  // the study: 4.6% (its seeds)
}

}  // namespace
}  // namespace clustersim

namespace clustersim {
namespace {

// The gpushare100 pod list replayed in time on its node list (../shared, beside the checkout):
// with [sharing] its GPU shares share GPUs, so the GPU-seconds replayed are the trace's shares'
// (about 54.5 M), not whole GPUs' (about 116.7 M), and no row is changed; CPU-only pods run.
TEST(ReplayOnOpenb, SharesReplayTheTracesGpuSeconds) {
  const auto dir = std::filesystem::path(CLUSTERSIM_SHARED_DIR) / "traces" / "alibaba-gpu-v2023";
  if (!std::filesystem::exists(dir / "openb_pod_list_gpushare100.csv"))
    GTEST_SKIP() << "no ../shared/traces/alibaba-gpu-v2023 (the openb traces)";
  const std::string text =
      "[cluster]\nnode_list = \"" + (dir / "openb_node_list_gpu_node.csv").string() +
      "\"\n[workload]\ntrace = \"" + (dir / "openb_pod_list_gpushare100.csv").string() +
      "\"\nformat = \"openb\"\ncensored_pods = \"run_to_end\"\n"
      "[scheduler]\npolicy = \"fifo\"\nplacement = \"best_fit\"\n";
  const auto run = [&](const std::vector<std::string>& overrides) {
    const RunConfig config = parse_run_config(text, "c.toml", ".", overrides);
    return simulate_config(config, std::make_shared<Workload>(load_workload(config)));
  };
  const ConfigRun whole = run({});
  const ConfigRun shared = run({"sharing.interference=\"none\"", "workload.cpu_only_pods=\"run\""});
  EXPECT_GT(whole.result.metrics.trace_rows_changed, 5000u);
  EXPECT_EQ(shared.result.metrics.trace_rows_changed, 0u);
  EXPECT_NEAR(whole.result.metrics.gpu_seconds / 1e6, 116.7, 0.1);
  EXPECT_NEAR(shared.result.metrics.gpu_seconds / 1e6, 54.5, 0.1);
  // The CPU-only pods (1,088 listed, some never scheduled) are jobs now.
  EXPECT_GT(shared.result.metrics.jobs, whole.result.metrics.jobs + 1000);
}

}  // namespace
}  // namespace clustersim
