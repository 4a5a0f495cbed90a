// The llm_era generator: prefix stability, its class mix against Acme's published cluster-wide
// figures (../shared/reference/acme/cluster_summary.csv, copied below: the test needs no file),
// valid LLM layouts that the llm rate model runs, and its keys' FILE:LINE: errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/error.h"
#include "clustersim/generator.h"
#include "clustersim/llm.h"
#include "clustersim/simulation.h"

namespace clustersim {
namespace {

GeneratorOptions llm_era(std::size_t jobs, std::uint64_t seed = 3) {
  GeneratorOptions options;
  options.shape = "llm_era";
  options.jobs = jobs;
  options.cluster_gpus = 4096;  // above every default class size: no cap
  options.load = 0.7;
  options.seed = seed;
  return options;
}

// The class a job's id names: pt, sft, ev, db.
std::string llm_era_class(const std::string& id) {
  for (const char* prefix : {"pt", "sft", "ev", "db"})
    if (id.rfind(prefix, 0) == 0) return prefix;
  return "";
}

TEST(LlmEraGenerator, DeterministicAndPrefixStable) {
  const Workload a = generate_workload(llm_era(2000));
  const Workload b = generate_workload(llm_era(2000));
  const Workload longer = generate_workload(llm_era(5000));
  ASSERT_TRUE(a.llm && longer.llm);
  for (std::size_t i = 0; i < a.jobs.size(); ++i) {
    ASSERT_EQ(a.jobs[i].id, b.jobs[i].id);
    ASSERT_EQ(a.jobs[i].submit_time, longer.jobs[i].submit_time);
    ASSERT_EQ(a.jobs[i].num_gpus, longer.jobs[i].num_gpus);
    ASSERT_EQ(a.jobs[i].duration, longer.jobs[i].duration);
    ASSERT_EQ(a.jobs[i].model, longer.jobs[i].model);
  }
  // The LLM columns of the shorter run are the longer one's first entries.
  ASSERT_LE(a.llm->size(), longer.llm->size());
  for (std::size_t i = 0; i < a.llm->size(); ++i) {
    ASSERT_EQ((*a.llm)[i].first, (*longer.llm)[i].first);
    ASSERT_EQ((*a.llm)[i].second.gpus(), (*longer.llm)[i].second.gpus());
    ASSERT_EQ((*a.llm)[i].second.global_batch, (*longer.llm)[i].second.global_batch);
  }
  EXPECT_NE(generate_workload(llm_era(2000, 4)).jobs[0].submit_time, a.jobs[0].submit_time);
}

// Acme's published figures of GPU jobs (cluster_summary.csv: avg_gpu_num, avg_run_time_gpu,
// med_run_time_gpu; med_gpu_num is 1 in both). Tolerances: 4 standard errors of N jobs, from the
// coefficients of variation of the fitted mix (scripts/llm_era_fit.py prints them: GPUs 6.23 /
// 4.68, run time 8.13 / 5.96, GPU-seconds 21.4 / 11.0; rounded up to 6.5 / 5, 8.5 / 6.5 and
// 22 / 11.5). The median: the share of jobs under it is 1/2 within 4 x sqrt(1/4 / N).
struct AcmeFigures {
  const char* cluster;
  double mean_gpus, mean_run_s, median_run_s, gpu_cv, run_cv, gpu_seconds_cv;
  std::array<double, 4> shares;  // the fit's, in % (pretrain, sft, eval, debug)
};

void expect_fits(const AcmeFigures& acme) {
  constexpr std::size_t n = 200'000;
  GeneratorOptions options = llm_era(n);
  options.llm_acme_cluster = acme.cluster;
  const Workload w = generate_workload(options);
  std::map<std::string, double> shares;
  double gpus = 0, run = 0, under_median = 0, single = 0, work = 0;
  for (const JobSpec& job : w.jobs) {
    shares[llm_era_class(job.id)] += 1.0 / n;
    gpus += job.num_gpus / double(n);
    run += job.duration / double(n);
    if (job.duration < acme.median_run_s) under_median += 1.0 / n;
    if (job.num_gpus == 1) single += 1.0 / n;
    work += job.num_gpus * job.duration;
  }
  const double root_n = std::sqrt(double(n));
  EXPECT_NEAR(gpus, acme.mean_gpus, 4 * acme.gpu_cv * acme.mean_gpus / root_n) << acme.cluster;
  EXPECT_NEAR(run, acme.mean_run_s, 4 * acme.run_cv * acme.mean_run_s / root_n) << acme.cluster;
  EXPECT_NEAR(under_median, 0.5, 4 * 0.5 / root_n) << acme.cluster;
  EXPECT_GT(single, 0.5) << acme.cluster;  // the median job has 1 GPU
  // Arrivals at load x GPUs / E[GPU-seconds]: the GPU-seconds asked per second of arrivals over
  // the GPUs is the load, within the sampled GPU-seconds' error and the N gaps' (CV 1).
  const double offered = work / w.jobs.back().submit_time / options.cluster_gpus;
  EXPECT_NEAR(offered, options.load, options.load * 4 * (acme.gpu_seconds_cv + 1) / root_n)
      << acme.cluster;
  const char* names[] = {"pt", "sft", "ev", "db"};
  for (std::size_t c = 0; c < 4; ++c) {
    const double p = acme.shares[c] / 100;
    EXPECT_NEAR(shares[names[c]], p, 4 * std::sqrt(p * (1 - p) / n)) << names[c];
  }
  EXPECT_EQ(shares[""], 0.0);
}

TEST(LlmEraGenerator, MatchesAcmesPublishedFigures) {
  expect_fits({"seren", 5.68, 1414.335, 122.0, 6.5, 8.5, 22, {1.785, 5.355, 55.716, 37.144}});
  expect_fits({"kalos", 26.77, 1259.689, 124.0, 5.0, 6.5, 11.5, {5.760, 5.760, 53.089, 35.392}});
}

TEST(LlmEraGenerator, EveryLlmJobHasAValidLayout) {
  for (int cluster_gpus : {4096, 48}) {  // 48: gangs capped at 32 GPUs, layouts still whole
    GeneratorOptions options = llm_era(20'000);
    options.cluster_gpus = cluster_gpus;
    options.llm_class_max_gpus = {8192, 256, 8, 8};
    const Workload w = generate_workload(options);
    ASSERT_TRUE(w.llm);
    std::vector<bool> has_columns(w.jobs.size(), false);
    for (const auto& [index, llm] : *w.llm) {
      const JobSpec& job = w.jobs[index];
      has_columns[index] = true;
      ASSERT_EQ(check_llm_job(llm, job.num_gpus), "") << job.id;
      ASSERT_EQ(llm.tp * llm.pp * llm.dp * llm.cp, job.num_gpus);
      ASSERT_EQ(llm.global_batch % (llm.micro_batch * llm.dp), 0);
      ASSERT_TRUE(llm_preset(job.model)) << job.model;  // the model names its preset
    }
    int largest = 0;
    for (std::size_t i = 0; i < w.jobs.size(); ++i) {
      const JobSpec& job = w.jobs[i];
      const std::string cls = llm_era_class(job.id);
      // Pretraining and SFT carry columns; evaluation and debug do not.
      ASSERT_EQ(has_columns[i], cls == "pt" || cls == "sft") << job.id;
      const int cap = cluster_gpus == 48 ? 32 : 8192;
      const int lo = std::min(cap, cls == "pt" ? 64 : cls == "sft" ? 8 : 1);
      const int hi = std::min(cap, cls == "pt" ? 8192 : cls == "sft" ? 256 : 8);
      ASSERT_GE(job.num_gpus, lo) << job.id;
      ASSERT_LE(job.num_gpus, hi) << job.id;
      largest = std::max(largest, job.num_gpus);
    }
    EXPECT_EQ(largest, cluster_gpus == 48 ? 32 : 4096);  // a 4,096-GPU cluster caps 8,192
  }
}

constexpr const char* kLlmEraConfig = R"([cluster]
nodes = 16
gpus_per_node = 8
gpu_type = "h100"

[workload]
generator = "llm_era"
jobs = 150
load = 0.6
llm_class_max_gpus = [64, 32, 8, 8]
llm_class_shares = [10, 20, 40, 30]

[fabric]
hosts_per_leaf = 2
leaf_oversubscription = 2
)";

TEST(LlmEraGenerator, RunsUnderTheLlmRateModelAndReseedsItsColumns) {
  const RunConfig config = parse_run_config(kLlmEraConfig, "llm.toml", "");
  Simulation sim(config);
  for (std::uint64_t seed : {1u, 2u}) {
    sim.reset(seed);  // a sweep's seed: a new workload, whose LLM jobs the rate model rates
    const RunResult r = sim.run();
    const Workload& w = *sim.workload();
    EXPECT_EQ(r.metrics.jobs, 150u);
    ASSERT_EQ(r.jobs.size(), 150u);
    const RunResult::Column* alone = nullptr;
    for (const RunResult::Column& c : r.job_columns)
      if (c.name == "iter_alone_s") alone = &c;
    ASSERT_TRUE(alone);
    std::size_t rated = 0;
    for (std::size_t i = 0; i < r.jobs.size(); ++i) {
      const JobSpec& job = w.jobs[r.jobs[i].index];
      const std::string cls = llm_era_class(job.id);
      ASSERT_EQ(std::isfinite(alone->values[i]), cls == "pt" || cls == "sft") << job.id;
      rated += std::isfinite(alone->values[i]) ? 1 : 0;
    }
    EXPECT_EQ(rated, w.llm->size());
    EXPECT_GE(r.metrics.contention_slowdown_mean, 1.0);
  }
}

InputError llm_era_config_error(const std::string& extra) {
  std::string text = kLlmEraConfig;
  text.insert(text.find("\n[fabric]"), extra);
  try {
    parse_run_config(text, "llm.toml", "");
  } catch (const InputError& error) {
    return error;
  }
  ADD_FAILURE() << "expected an InputError for " << extra;
  return InputError("", 0, "", "");
}

TEST(LlmEraGenerator, BadKeysAreFileLineFieldErrors) {
  // Line 13 is the one inserted before [fabric].
  const auto expect = [](const std::string& extra, const std::string& field,
                         const std::string& words) {
    const InputError e = llm_era_config_error(extra);
    EXPECT_EQ(e.file(), "llm.toml");
    EXPECT_EQ(e.line(), 13u) << extra;
    EXPECT_EQ(e.field(), field) << extra;
    EXPECT_NE(e.message().find(words), std::string::npos) << e.what();
  };
  expect("\nllm_class_sigma = [1, 1, 1]", "workload.llm_class_sigma",
         "[pretrain, sft, eval, debug]");
  expect("\nllm_class_min_gpus = [48, 8, 1, 1]", "workload.llm_class_min_gpus", "powers of two");
  expect("\nllm_class_min_gpus = [128, 8, 1, 1]", "workload.llm_class_min_gpus",
         "pretrain: min GPUs 128 > max GPUs 64");
  expect("\nllm_acme_cluster = \"helios\"", "workload.llm_acme_cluster", "seren");
  expect("\nelastic_fraction = 0.5", "workload.elastic_fraction", "fixed TP x PP x DP");
  expect("\nwindow = [10, 20]", "workload.window", "cannot grow a window");
  // philly's keys do not act on llm_era: said, not ignored.
  expect("\ndurations = \"exponential\"", "workload.durations", "");
}

}  // namespace
}  // namespace clustersim
