// The isolated LLM iteration model (clustersim/llm.h): one job computed by hand from the
// documented formulas, and the fit on NVIDIA's NeMo 24.07 DGX-H100 FP8 step times
// (../shared/reference; skipped when absent).
#include "clustersim/llm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/error.h"
#include "clustersim/simulation.h"
#include "clustersim/simulator.h"
#include "clustersim/workload.h"
#include "test_util.h"

namespace clustersim {
namespace {

// `text` holds `part` (printed when not).
::testing::AssertionResult llm_holds(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' lacks '" << part << "'";
}

TEST(LlmIteration, OneJobByHand) {
  LlmJob job;
  // hidden 1024, 4 layers, 8 heads (no GQA), MLP 4096 (GELU), vocab 1000, seq 1000.
  job.shape = {1024, 4, 8, 8, 4096, 1000, 1000, false};
  job.global_batch = 8;
  job.micro_batch = 1;
  job.precision = Precision::kBf16;
  job.tp = job.pp = job.dp = 2;
  ASSERT_EQ(check_llm_job(job, 8), "");
  const GpuPeak gpu{"toy", 1e12, 2e12, 80, 1e9};
  LlmRates rates;
  rates.efficiency = 0.5;
  rates.tp_bytes_per_s = 1e9;
  rates.pp_bytes_per_s = 1e9;
  rates.dp_bytes_per_s = 1e7;
  rates.tp_exposed = 0.5;
  rates.pp_exposed = 0.0;
  const IterationTime t = llm_iteration(job, gpu, rates);

  // Weights of a layer: attention 4 x 1024^2 = 4,194,304, MLP 2 x 1024 x 4096 = 8,388,608.
  // Per micro-batch (1,000 tokens), one layer: 6 x 12,582,912 x 1000 / 1e12 = 0.075497472 s of
  // GEMMs plus attention 6 x 1024 x 1000 x 1000 / 1e12 = 0.006144 s; the output layer
  // 6 x 1,024,000 x 1000 / 1e12 = 0.006144 s. The last stage: (2 layers + output) / (tp 2 x
  // efficiency 0.5) = 0.169426944 s; 4 micro-batches (8 / (1 x dp 2)).
  EXPECT_NEAR(t.compute_s, 4 * 0.169426944, 1e-12);
  EXPECT_NEAR(t.bubble_s, (2 - 1) / (4.0 * 1) * 0.677707776, 1e-12);
  // TP: 2 layers x 4 micro-batches x 4 collectives x 2 (1/2) x 2,048,000 bytes / 1e9.
  EXPECT_NEAR(t.tp_s, 0.065536, 1e-12);
  // PP: 2 x 4 micro-batches x 2,048,000 bytes / 1e9 (none exposed).
  EXPECT_NEAR(t.pp_s, 0.016384, 1e-12);
  // DP: (4 x 12,582,912 + 1,024,000) / (tp x pp) = 12,838,912 weights x 2 bytes, ring over 2:
  // 2 (1/2) x 25,677,824 / 1e7 = 2.5677824 s, of which the compute hides 0.677707776.
  EXPECT_NEAR(t.dp_s, 2.5677824, 1e-12);
  EXPECT_NEAR(t.exposed_comm_s, 0.5 * 0.065536 + (2.5677824 - 0.677707776), 1e-12);
  EXPECT_NEAR(t.total(), 0.677707776 + 0.169426944 + 0.032768 + 1.890074624, 1e-12);

  // FP8 moves only the layers' linear GEMMs to the FP8 peak.
  job.precision = Precision::kFp8;
  const IterationTime fp8 = llm_iteration(job, gpu, rates);
  EXPECT_NEAR(fp8.compute_s, 4 * (2 * (0.075497472 / 2 + 0.006144) + 0.006144), 1e-12);
}

TEST(LlmIteration, ChecksAndPresets) {
  LlmJob job;
  job.shape = *llm_preset("Llama 3 70B");
  EXPECT_EQ(job.shape.layers, 80);
  EXPECT_EQ(job.shape.kv_heads, 8);
  EXPECT_FALSE(llm_preset("gpt5"));
  job.global_batch = 99;
  job.micro_batch = 1;
  job.tp = 8;
  job.pp = 4;
  job.dp = 2;
  EXPECT_TRUE(llm_holds(check_llm_job(job, 64), "not a multiple of micro_batch x dp"));
  job.global_batch = 128;
  EXPECT_TRUE(llm_holds(check_llm_job(job, 32), "= 64 but the job asks for 32"));
  EXPECT_EQ(check_llm_job(job, 64), "");
  job.pp = 3;
  job.dp = 1;
  EXPECT_TRUE(llm_holds(check_llm_job(job, 24), "layers 80 is not a multiple of pp 3"));
  EXPECT_EQ(*parse_precision("FP8"), Precision::kFp8);
  EXPECT_FALSE(parse_precision("fp4"));
  ASSERT_NE(gpu_peak("H100"), nullptr);
  EXPECT_EQ(gpu_peak("h200")->memory_gb, 141);
  EXPECT_EQ(gpu_peak("v100"), nullptr);
}

// The NeMo table's pretraining rows, as the model sees them: a preset, the layout, and the
// measured step time.
struct NemoRow {
  std::string model;
  LlmJob job;
  double step_s = 0;
};

std::vector<NemoRow> nemo_rows(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  {
    std::stringstream s(line);
    std::string cell;
    while (std::getline(s, cell, ',')) header.push_back(cell);
  }
  std::vector<NemoRow> rows;
  while (std::getline(in, line)) {
    std::map<std::string, std::string> cell;
    std::stringstream s(line);
    std::string value;
    for (std::size_t i = 0; i < header.size() && std::getline(s, value, ','); ++i)
      cell[header[i]] = value;
    if (cell["task"] != "pretrain") continue;
    const auto number = [&](const char* name) {
      return cell[name].empty() ? 1 : std::stoi(cell[name]);
    };
    NemoRow row;
    row.model = cell["model"];
    const auto shape = llm_preset(row.model);
    EXPECT_TRUE(shape) << row.model;
    if (!shape) continue;
    row.job.shape = *shape;
    row.job.shape.seq_len = number("seq_len");
    row.job.global_batch = number("gbs");
    row.job.micro_batch = number("mbs");
    row.job.precision = Precision::kFp8;
    row.job.tp = number("tp");
    row.job.pp = number("pp");
    row.job.cp = number("cp");
    row.job.vp = number("vp");
    row.job.dp = number("dp");
    EXPECT_EQ(check_llm_job(row.job, number("gpus")), "") << row.model;
    row.step_s = std::stod(cell["step_time_s_derived"]);
    rows.push_back(row);
  }
  return rows;
}

// Relative errors of the model on the rows at one efficiency, on DGX-H100 (8 GPUs per NVLink
// domain, 400 Gb/s = 50 GB/s per GPU beyond it).
std::vector<double> nemo_errors(const std::vector<NemoRow>& rows, double efficiency) {
  const GpuPeak& h100 = *gpu_peak("h100");
  std::vector<double> errors;
  for (const NemoRow& row : rows) {
    const LlmRates rates = packed_llm_rates(row.job, h100, 8, 50e9, efficiency);
    errors.push_back(llm_iteration(row.job, h100, rates).total() / row.step_s - 1.0);
  }
  return errors;
}

double mean_absolute(const std::vector<double>& errors) {
  double sum = 0;
  for (double e : errors) sum += std::abs(e);
  return sum / static_cast<double>(errors.size());
}

TEST(LlmIteration, ReproducesNemoH100Fp8StepTimes) {
  const auto path = std::filesystem::path(CLUSTERSIM_SHARED_DIR) / "reference" /
                    "nemo_24.07_dgx_h100_fp8_perf.csv";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "no ../shared NeMo table";
  const std::vector<NemoRow> rows = nemo_rows(path);
  ASSERT_EQ(rows.size(), 12u);
  const double efficiency = default_llm_efficiency(*gpu_peak("h100"), Precision::kFp8);
  const std::vector<double> errors = nemo_errors(rows, efficiency);
  int within_10 = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_LE(std::abs(errors[i]), 0.20) << rows[i].model << " gpus " << rows[i].job.gpus();
    within_10 += std::abs(errors[i]) <= 0.10;
  }
  EXPECT_LE(mean_absolute(errors), 0.08);
  EXPECT_GE(within_10, 9);
  // The built-in efficiency is the fit: no efficiency on a 0.001 grid does better.
  for (int milli = 200; milli <= 900; ++milli)
    EXPECT_GE(mean_absolute(nemo_errors(rows, milli / 1000.0)) + 1e-12, mean_absolute(errors))
        << "efficiency " << milli / 1000.0;
}

// A small model whose DP all-reduce outlasts its compute: where DP crosses nodes shows.
LlmJob dp_heavy_job() {
  LlmJob job;
  job.shape = {4096, 8, 32, 32, 0, 32000, 2048, false};
  job.global_batch = 2;
  job.micro_batch = 1;
  job.precision = Precision::kBf16;
  job.tp = 4;
  job.dp = 2;
  return job;
}

// The iteration by the public model, as the rate model should see it (the [fabric] defaults).
double h100_iteration(const LlmJob& job, int gpus_per_domain) {
  const GpuPeak& h100 = *gpu_peak("h100");
  return llm_iteration(job, h100, packed_llm_rates(job, h100, gpus_per_domain, 50e9, 0.425))
      .total();
}

SimOptions two_h100_nodes(const std::string& placement, const LlmJob& llm) {
  SimOptions options = testing::small_cluster(2, 8);
  options.cluster.groups[0].gpu_type = "h100";
  options.scheduler.placement = placement;
  options.fabric.llm_jobs = std::make_shared<const LlmJobTable>(LlmJobTable{{0, llm}});
  return options;
}

TEST(LlmRateModel, PackedJobRunsItsDurationSplitOneRunsSlower) {
  const LlmJob llm = dp_heavy_job();
  ASSERT_EQ(check_llm_job(llm, 8), "");
  const std::vector<JobSpec> jobs = {testing::job("llm", 0, 8, 1000),
                                     testing::job("plain", 0, 8, 500)};
  // Consolidated: 8 GPUs on one node, as the reference: its trace duration.
  const RunResult packed = simulate(two_h100_nodes("consolidate", llm), jobs);
  EXPECT_DOUBLE_EQ(packed.jobs[0].jct, 1000);
  EXPECT_DOUBLE_EQ(packed.jobs[1].jct, 500);  // no LLM columns: today's speed
  // Spread over both nodes (4 + 4): TP stays in a node, DP crosses at 50 GB/s, not NVLink's 450.
  const RunResult spread = simulate(two_h100_nodes("spread", llm), jobs);
  const double slower = h100_iteration(llm, 4) / h100_iteration(llm, 8);
  EXPECT_GT(slower, 1.2);
  EXPECT_NEAR(spread.jobs[0].jct, 1000 * slower, 1e-6);
}

TEST(LlmRateModel, GpuTypeWithoutPeakIsAnError) {
  SimOptions options = two_h100_nodes("consolidate", dp_heavy_job());
  options.cluster.groups[0].gpu_type = "v100";
  try {
    simulate(options, {testing::job("llm", 0, 8, 1000)});
    FAIL() << "no error";
  } catch (const std::invalid_argument& error) {
    EXPECT_TRUE(llm_holds(std::string(error.what()), "GPU type 'v100' has no peak"));
  }
}

TEST(LlmCsvColumns, ReadBesideTheJobs) {
  std::istringstream in(
      "job_id,submit_time,num_gpus,duration,model,precision,tp,pp,dp,global_batch,micro_batch\n"
      "a,0,8,10,resnet50,,,,,,\n"
      "b,0,64,10,Llama3-70B,fp8,4,4,,128,1\n");
  const Workload w = read_native_csv(in, "t.csv", ReaderOptions{});
  ASSERT_EQ(w.jobs.size(), 2u);
  ASSERT_TRUE(w.llm);
  ASSERT_EQ(w.llm->size(), 1u);
  const auto& [index, llm] = w.llm->front();
  EXPECT_EQ(index, 1u);
  EXPECT_EQ(llm.shape.layers, 80);
  EXPECT_EQ(llm.dp, 4);  // 64 / (4 x 4)
  EXPECT_EQ(llm.precision, Precision::kFp8);
  // Without LLM cells no table at all.
  std::istringstream plain("job_id,submit_time,num_gpus,duration\na,0,1,5\n");
  EXPECT_FALSE(read_native_csv(plain, "p.csv", ReaderOptions{}).llm);
  const auto error_of = [](const std::string& text) -> std::string {
    std::istringstream bad(text);
    try {
      read_native_csv(bad, "bad.csv", ReaderOptions{});
    } catch (const InputError& error) {
      return error.what();
    }
    return "";
  };
  EXPECT_TRUE(llm_holds(error_of("job_id,submit_time,num_gpus,duration,model,tp,global_batch\n"
                                 "a,0,8,10,gpt5,2,16\n"),
                        "bad.csv:2: field 'model': an LLM job needs a preset model"));
  EXPECT_TRUE(llm_holds(error_of("job_id,submit_time,num_gpus,duration,model,tp,dp,global_batch\n"
                                 "a,0,8,10,llama3-8b,2,2,16\n"),
                        "bad.csv:2: field 'dp': tp x pp x dp = 4 but the job asks for 8 GPUs"));
  EXPECT_TRUE(
      llm_holds(error_of("job_id,submit_time,num_gpus,duration,model,tp\na,0,8,10,llama3-8b,2\n"),
                "bad.csv:2: field 'global_batch': missing value"));
  EXPECT_TRUE(
      llm_holds(error_of("job_id,submit_time,num_gpus,duration,model,precision,global_batch\n"
                         "a,0,8,10,llama3-8b,fp4,8\n"),
                "bad.csv:2: field 'precision': unknown precision 'fp4'"));
}

// Two leaves of two 8-GPU H100 nodes, 2:1 oversubscribed: a leaf's uplinks carry
// 2 x 8 x 50 GB/s / 2 = 400 GB/s.
SimOptions oversubscribed_leaves(const LlmJobTable& llm) {
  SimOptions options = testing::small_cluster(4, 8);
  options.cluster.groups[0].gpu_type = "h100";
  options.scheduler.placement = "spread";
  options.fabric.hosts_per_leaf = 2;
  options.fabric.leaf_oversubscription = 2.0;
  options.fabric.llm_jobs = std::make_shared<const LlmJobTable>(llm);
  return options;
}

// The DP-heavy model on 16 GPUs: TP 4 inside a node, DP 4 across nodes and leaves.
LlmJob dp_job_16() {
  LlmJob job = dp_heavy_job();
  job.dp = 4;
  job.global_batch = 4;
  return job;
}

TEST(LlmContention, TwoDpJobsShareAnOversubscribedLeafThenOneSpeedsBack) {
  const LlmJob llm = dp_job_16();
  ASSERT_EQ(check_llm_job(llm, 16), "");
  // Spread: each job 4 GPUs on each of the 4 nodes, so 8 of its GPUs behind each leaf. Alone a
  // job's 8 GPUs get 400 / 8 = 50 GB/s each, its NIC's bound: no slowdown (the reference is
  // packed: TP in a node, DP at 50 GB/s). Together 16 GPUs share 400 GB/s: 25 GB/s each.
  const GpuPeak& h100 = *gpu_peak("h100");
  LlmRates shared = packed_llm_rates(llm, h100, 8, 50e9, 0.425);
  shared.dp_bytes_per_s = 25e9;
  const double slowdown = llm_iteration(llm, h100, shared).total() / h100_iteration(llm, 8);
  EXPECT_GT(slowdown, 1.3);
  // Alone: its duration.
  const RunResult alone =
      simulate(oversubscribed_leaves({{0, llm}}), {testing::job("a", 0, 16, 1000)});
  EXPECT_NEAR(alone.jobs[0].jct, 1000, 1e-6);
  // Together from t = 0: both at 1 / slowdown; b (400 s of work) ends at 400 x slowdown, when a
  // has done 400 s of its 1000 and runs its last 600 alone at full speed.
  const RunResult both = simulate(oversubscribed_leaves({{0, llm}, {1, llm}}),
                                  {testing::job("a", 0, 16, 1000), testing::job("b", 0, 16, 400)});
  EXPECT_NEAR(both.jobs[1].jct, 400 * slowdown, 1e-6);
  EXPECT_NEAR(both.jobs[0].jct, 400 * slowdown + 600, 1e-6);
  // Without oversubscription each leaf carries 800 GB/s: 50 GB/s each, no slowdown.
  SimOptions full = oversubscribed_leaves({{0, llm}, {1, llm}});
  full.fabric.leaf_oversubscription = 1.0;
  const RunResult unshared =
      simulate(full, {testing::job("a", 0, 16, 1000), testing::job("b", 0, 16, 400)});
  EXPECT_NEAR(unshared.jobs[0].jct, 1000, 1e-6);
  EXPECT_NEAR(unshared.jobs[1].jct, 400, 1e-6);
}

// A config run with [fabric] over a host-to-switch map, in a folder of the test's own.
RunResult run_on_map(const std::string& map_path, int nodes, const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("clustersim_llm_" + name);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "jobs.csv")
      << "job_id,submit_time,num_gpus,duration,model,tp,pp,global_batch\n"
         "a,0,64,100,llama3-70b,8,4,64\n";
  const std::string config = "[cluster]\nnodes = " + std::to_string(nodes) +
                             "\ngpus_per_node = 8\ngpu_type = \"h100\"\n"
                             "[workload]\ntrace = \"jobs.csv\"\n"
                             "[fabric]\ntopology = \"" +
                             map_path + "\"\n";
  Simulation simulation(parse_run_config(config, (dir / "run.toml").string(), dir.string()));
  RunResult result = simulation.run();
  std::filesystem::remove_all(dir);
  return result;
}

TEST(LlmFabric, LingjunMapLoads) {
  const auto map =
      std::filesystem::path(CLUSTERSIM_SHARED_DIR) / "traces" / "alibaba-lingjun-2023" / "topo.csv";
  if (!std::filesystem::exists(map)) GTEST_SKIP() << "no ../shared Lingjun topology";
  // 847 hosts: a 64-GPU Llama 3 70B job alone runs its duration (packed: TP in a node).
  const RunResult result = run_on_map(map.string(), 847, "lingjun");
  ASSERT_EQ(result.jobs.size(), 1u);
  EXPECT_NEAR(result.jobs[0].jct, 100, 1e-6);
}

TEST(LlmFabric, BadMapsAreClearErrors) {
  const auto dir = std::filesystem::temp_directory_path() / "clustersim_llm_bad_maps";
  std::filesystem::create_directories(dir);
  const auto error_of = [&](const std::string& text, int nodes) -> std::string {
    std::ofstream((dir / "map.csv").string()) << text;
    try {
      run_on_map((dir / "map.csv").string(), nodes, "bad");
    } catch (const InputError& error) {
      return error.what();
    }
    return "";
  };
  EXPECT_TRUE(llm_holds(error_of("ip,DSW,PSW\nh1,G,P1\n", 1),
                        "map.csv:1: field 'ASW': required column missing"));
  EXPECT_TRUE(llm_holds(error_of("ip,DSW,PSW,ASW\nh1,G,P1,S1\nh2,G,P1\n", 2),
                        "map.csv:3: row has 3 fields"));
  EXPECT_TRUE(llm_holds(error_of("ip,DSW,PSW,ASW\nh1,G,P1,S1\n", 8),
                        "field 'fabric.topology': the map has 1 hosts"));
  std::filesystem::remove_all(dir);
}

TEST(LlmFabric, DomainsLargerThanANodeAreCheckedWithTheirLine) {
  // 4-GPU GB200 nodes; line 6 is fabric.scale_up_gpus.
  const auto error_of = [](int nodes, const std::string& fabric) -> std::string {
    const std::string config = "[cluster]\nnodes = " + std::to_string(nodes) +
                               "\ngpus_per_node = 4\ngpu_type = \"gb200\"\n[fabric]\n" + fabric +
                               "[workload]\ngenerator = \"philly\"\n";
    try {
      parse_run_config(config, "run.toml", ".");
    } catch (const InputError& error) {
      return error.what();
    }
    return "";
  };
  EXPECT_TRUE(llm_holds(error_of(20, "scale_up_gpus = 72\n"),
                        "run.toml:6: field 'fabric.scale_up_gpus': nodes 18-19 hold 8 GPUs, not a "
                        "whole domain of 72"));
  EXPECT_TRUE(llm_holds(error_of(36, "scale_up_gpus = 6\n"),
                        "run.toml:6: field 'fabric.scale_up_gpus': 6 is not a multiple of node "
                        "0's 4 GPUs"));
  EXPECT_TRUE(llm_holds(error_of(36, "scale_up_gpus = 72\nhosts_per_leaf = 16\n"),
                        "the scale-up domain of nodes 15 and 16 spans two leaf switches"));
  EXPECT_EQ(error_of(36, "scale_up_gpus = 72\nhosts_per_leaf = 18\n"), "");
  EXPECT_EQ(error_of(3, "scale_up_gpus = 4\n"), "");  // a node is a domain: as before
}

// ---- SimAI-format collective tables ([fabric] collective_table) ------------------------------

// A small table in a folder of the test's own: two sizes (1e6, 3e7 bytes); inside a domain
// 0.4 -> 0.8, across 2 servers 0.2 -> 0.8, across 4 0.1 -> (empty: 1); a "Multi" column not read;
// small messages 10 us for 2 ranks, 20 us for up to 8.
std::filesystem::path write_collective_tables(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("clustersim_collectives_" + name);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "nvlink_ratio.csv") << "Size,1 Node(NVLinkx),2Node-16GPU(NIC ),Multi 16\n"
                                             "1000000,0.4,0.5,7\n30000000,0.8,0.5,7\n";
  std::ofstream(dir / "nic_ratio.csv")
      << "Size,1 Node(NVLinkx),2Node-16GPU(NIC ),4Node-32GPU(NIC),Multi 16\n"
         "1000000,0.4,0.2,0.1,7\n30000000,0.8,0.8,,7\n";
  std::ofstream(dir / "small_msg_collective_time.csv") << "nranks,time_ns\n2,10000\n8,20000\n";
  return dir;
}

// The table `collective_table = path` reads (a config parsed in `dir`).
std::shared_ptr<const CollectiveTable> collective_table_of(const std::string& path) {
  const RunConfig config =
      parse_run_config("[cluster]\nnodes = 2\n[fabric]\ncollective_table = \"" + path +
                           "\"\n[workload]\ngenerator = \"philly\"\n",
                       "run.toml", ".");
  return config.sim.fabric.collectives;
}

TEST(CollectiveTable, ReadByHandAndAppliedToTpAndDp) {
  const auto dir = write_collective_tables("hand");
  const auto table = collective_table_of(dir.string());
  ASSERT_TRUE(table);
  // Columns divided by their last row: inside 0.5 -> 1, 2 servers 0.25 -> 1, 4 servers 0.1 -> 1.
  EXPECT_DOUBLE_EQ(table->efficiency(true, 1, 1e6), 0.5);
  EXPECT_DOUBLE_EQ(table->efficiency(true, 1, 15.5e6), 0.75);  // half way
  EXPECT_DOUBLE_EQ(table->efficiency(false, 2, 15.5e6), 0.625);
  EXPECT_DOUBLE_EQ(table->efficiency(false, 3, 1e6), 0.1);   // the 4-server column
  EXPECT_DOUBLE_EQ(table->efficiency(false, 64, 5e8), 1.0);  // the last column, the last row
  EXPECT_DOUBLE_EQ(table->efficiency(true, 1, 10), 0.5);     // below the first row: its value
  EXPECT_DOUBLE_EQ(table->small_message_time(2), 10e-6);
  EXPECT_DOUBLE_EQ(table->small_message_time(4), 20e-6);
  EXPECT_DOUBLE_EQ(table->small_message_time(64), 20e-6);

  // OneJobByHand's job: TP 2 collectives of 2,048,000 bytes inside a domain, DP 2 of
  // 25,677,824 bytes across 2 servers.
  LlmJob job;
  job.shape = {1024, 4, 8, 8, 4096, 1000, 1000, false};
  job.global_batch = 8;
  job.tp = job.pp = job.dp = 2;
  const GpuPeak gpu{"toy", 1e12, 2e12, 80, 1e9};
  LlmRates rates;
  rates.efficiency = 0.5;
  rates.tp_bytes_per_s = rates.pp_bytes_per_s = 1e9;
  rates.dp_bytes_per_s = 1e7;
  rates.dp_inside_domain = false;
  rates.dp_servers = 2;
  const IterationTime full = llm_iteration(job, gpu, rates);
  rates.collectives = table.get();
  const IterationTime tabled = llm_iteration(job, gpu, rates);
  const double tp_efficiency = 0.5 + (2'048'000 - 1e6) / 29e6 * 0.5;
  const double dp_efficiency = 0.25 + (25'677'824 - 1e6) / 29e6 * 0.75;
  EXPECT_NEAR(tabled.tp_s, 0.065536 / tp_efficiency, 1e-12);
  EXPECT_NEAR(tabled.dp_s, 2.5677824 / dp_efficiency, 1e-12);
  EXPECT_EQ(tabled.pp_s, full.pp_s);  // pipeline sends are not collectives
  EXPECT_EQ(tabled.compute_s, full.compute_s);
  // Sequences of 100 tokens: 204,800-byte TP collectives, under 1 MiB: 10 us each for 2 ranks,
  // 2 layers x 4 micro-batches x 4 of them.
  job.shape.seq_len = 100;
  EXPECT_NEAR(llm_iteration(job, gpu, rates).tp_s, 32 * 10e-6, 1e-15);
  // One file: its one-server column inside, its others across; no small-message times.
  const auto one = collective_table_of((dir / "nic_ratio.csv").string());
  EXPECT_DOUBLE_EQ(one->efficiency(false, 2, 1e6), 0.25);
  EXPECT_TRUE(one->small_message_s.empty());
  std::filesystem::remove_all(dir);
}

TEST(CollectiveTable, RunsThroughTheRateModelAndBadTablesAreClearErrors) {
  const auto dir = write_collective_tables("sim");
  SimOptions options = two_h100_nodes("spread", dp_heavy_job());
  options.fabric.collectives = collective_table_of(dir.string());
  const RunResult r = simulate(options, {testing::job("llm", 0, 8, 1000)});
  const GpuPeak& h100 = *gpu_peak("h100");
  // Spread 4 + 4: TP 4 inside a node, DP across the two (the rate model's packed rates at 4).
  LlmRates rates = packed_llm_rates(dp_heavy_job(), h100, 4, 50e9, 0.425);
  rates.collectives = options.fabric.collectives.get();
  double iter_s = 0;
  for (const RunResult::Column& column : r.job_columns)
    if (column.name == "iter_s") iter_s = column.values[0];
  EXPECT_DOUBLE_EQ(iter_s, llm_iteration(dp_heavy_job(), h100, rates).total());
  const auto error_of = [&](const std::string& text) -> std::string {
    std::ofstream(dir / "bad.csv") << text;
    try {
      collective_table_of((dir / "bad.csv").string());
    } catch (const InputError& error) {
      return error.what();
    }
    return "";
  };
  EXPECT_TRUE(
      llm_holds(error_of("Bytes,1 Node\n1,1\n"), "bad.csv:1: field 'Bytes': expected Size"));
  EXPECT_TRUE(
      llm_holds(error_of("Size,1 Node\n5,1\n4,1\n"), "bad.csv:3: field 'Size': sizes must"));
  EXPECT_TRUE(llm_holds(error_of("Size,1 Node\n5,x\n"), "bad.csv:2: field '1 Node': expected a"));
  EXPECT_TRUE(llm_holds(error_of("Size,2Node\n5,1\n"), "no one-server column"));
  std::filesystem::remove_all(dir);
}

TEST(CollectiveTable, SimAiTablesByHand) {
  const auto dir = std::filesystem::path(CLUSTERSIM_SHARED_DIR) / "reference" / "simai";
  if (!std::filesystem::exists(dir / "nic_ratio.csv")) GTEST_SKIP() << "no ../shared SimAI tables";
  const auto table = collective_table_of(dir.string());
  // nvlink_ratio.csv's one-node column: 0.45 at 16 MiB, 0.81 at 16 GiB; 0.55 at 32 MiB and 0.65
  // at 64 MiB, so 0.6 at 48 MiB.
  EXPECT_DOUBLE_EQ(table->efficiency(true, 1, 16777216), 0.45 / 0.81);
  EXPECT_NEAR(table->efficiency(true, 1, 50331648), 0.6 / 0.81, 1e-12);
  // nic_ratio.csv: 8 servers (64 GPUs) at 1 GiB 0.9, at 16 GiB 0.96; 5 servers read the 8's.
  EXPECT_DOUBLE_EQ(table->efficiency(false, 8, 1073741824), 0.9 / 0.96);
  EXPECT_DOUBLE_EQ(table->efficiency(false, 5, 1073741824), 0.9 / 0.96);
  // 128 servers at 16 MiB: 0.0087 / 0.919175; beyond 128: the same column.
  EXPECT_DOUBLE_EQ(table->efficiency(false, 500, 16777216), 0.0087 / 0.919175);
  EXPECT_EQ(table->servers, (std::vector<int>{2, 4, 8, 16, 32, 64, 128}));
  // small_msg_collective_time.csv: 16 ranks 66 us.
  EXPECT_DOUBLE_EQ(table->small_message_time(16), 66e-6);
}

}  // namespace
}  // namespace clustersim
