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

}  // namespace
}  // namespace clustersim
