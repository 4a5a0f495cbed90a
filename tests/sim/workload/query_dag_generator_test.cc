// The query_dag generator: the study's shapes, arrival rates and burstiness, Zipf popularity,
// prefix stability, bad options, and its [workload] keys.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "clustersim/config.h"
#include "clustersim/dag.h"
#include "clustersim/error.h"
#include "clustersim/generator.h"
#include "clustersim/serving_catalog.h"

namespace clustersim {
namespace {

GeneratorOptions dag_options(std::size_t queries, std::uint64_t seed = 7) {
  GeneratorOptions o;
  o.shape = "query_dag";
  o.queries = queries;
  o.seed = seed;
  return o;
}

std::vector<std::uint32_t> parents_of(const DagInfo& dag, std::uint32_t task) {
  return {dag.parents.begin() + dag.parent_begin[task],
          dag.parents.begin() + dag.parent_begin[task + 1]};
}

// Which pipeline of the catalog query q is, by its first task's id and its size; -1 if none.
int pipeline_of(const Workload& w, std::uint32_t q) {
  const DagInfo& dag = *w.dag;
  const ServingCatalog& catalog = default_serving_catalog();
  const std::uint32_t first = dag.task_begin[q];
  const std::uint32_t size = dag.task_begin[q + 1] - first;
  for (std::size_t p = 0; p < catalog.pipelines.size(); ++p) {
    const ServingPipeline& pipeline = catalog.pipelines[p];
    if (pipeline.tasks.size() != size) continue;
    bool same = true;
    for (std::uint32_t k = 0; k < size && same; ++k) {
      const PipelineTask& t = pipeline.tasks[k];
      const JobSpec& job = w.jobs[first + k];
      std::vector<std::uint32_t> expected;
      for (const std::size_t parent : t.parents)
        expected.push_back(first + static_cast<std::uint32_t>(parent));
      same = job.id == dag.query_ids[q] + "/" + t.id && job.model == catalog.models[t.model].name &&
             job.duration == t.compute_ms / 1000.0 && dag.input_mb[first + k] == t.input_mb &&
             dag.output_mb[first + k] == t.output_mb && parents_of(dag, first + k) == expected;
    }
    if (same) return static_cast<int>(p);
  }
  return -1;
}

TEST(QueryDagGenerator, CompassShapesAreTheStudysPipelines) {
  const Workload w = generate_workload(dag_options(2000));
  ASSERT_TRUE(w.dag);
  EXPECT_NO_THROW(check_dag(w));
  ASSERT_EQ(w.dag->query_count(), 2000u);
  std::vector<int> seen(4, 0);
  for (std::uint32_t q = 0; q < 2000; ++q) {
    EXPECT_EQ(w.dag->query_ids[q], std::to_string(q));
    const int p = pipeline_of(w, q);
    ASSERT_GE(p, 0) << "query " << q << " is none of the study's pipelines";
    ++seen[static_cast<std::size_t>(p)];
    if (q > 0) {
      EXPECT_GT(w.dag->arrival_time[q], w.dag->arrival_time[q - 1]);
    }
  }
  for (const int count : seen) EXPECT_GT(count, 0);
}

TEST(QueryDagGenerator, PipelinePopularityIsZipf) {
  GeneratorOptions o = dag_options(200'000);
  o.zipf_s = 1.0;
  const Workload w = generate_workload(o);
  std::vector<double> share(4, 0.0);
  for (std::uint32_t q = 0; q < 200'000; ++q)
    share[static_cast<std::size_t>(pipeline_of(w, q))] += 1.0 / 200'000;
  // Weights 1, 1/2, 1/3, 1/4 (sum 25/12): 12/25, 6/25, 4/25, 3/25. Standard error < 0.0012.
  const double expected[] = {12.0 / 25, 6.0 / 25, 4.0 / 25, 3.0 / 25};
  for (std::size_t p = 0; p < 4; ++p) EXPECT_NEAR(share[p], expected[p], 0.005) << p;
  // zipf_s = 0: uniform.
  o.zipf_s = 0.0;
  o.queries = 100'000;
  const Workload uniform = generate_workload(o);
  std::vector<double> flat(4, 0.0);
  for (std::uint32_t q = 0; q < 100'000; ++q)
    flat[static_cast<std::size_t>(pipeline_of(uniform, q))] += 1.0 / 100'000;
  for (const double s : flat) EXPECT_NEAR(s, 0.25, 0.006);
}

TEST(QueryDagGenerator, SyntheticChainsAndFanOuts) {
  GeneratorOptions o = dag_options(50'000);
  o.dag_shapes = "synthetic";
  o.chain_fraction = 0.3;
  o.max_chain = 5;
  o.max_fanout = 4;
  o.dag_models = {"vit", "opt", "nli"};
  o.zipf_s = 1.0;
  const Workload w = generate_workload(o);
  const DagInfo& dag = *w.dag;
  std::map<std::size_t, int> chain_lengths, fan_widths;
  std::map<std::string, double> model_share;
  int chains = 0;
  for (std::uint32_t q = 0; q < 50'000; ++q) {
    const std::uint32_t first = dag.task_begin[q];
    const std::uint32_t size = dag.task_begin[q + 1] - first;
    const std::uint32_t last = first + size - 1;
    const bool chain = size == 2 || parents_of(dag, last).size() == 1;
    EXPECT_TRUE(parents_of(dag, first).empty());
    EXPECT_EQ(dag.input_mb[first],
              default_serving_catalog()
                  .models[static_cast<std::size_t>(
                      default_serving_catalog().find_model(w.jobs[first].model))]
                  .input_mb);
    for (std::uint32_t t = first + 1; t <= last; ++t) {
      double inputs = 0.0;
      for (const std::uint32_t p : parents_of(dag, t)) inputs += dag.output_mb[p];
      EXPECT_EQ(dag.input_mb[t], inputs);  // a task reads what its parents hand it
      if (chain) {
        EXPECT_EQ(parents_of(dag, t), std::vector<std::uint32_t>({t - 1}));
      } else if (t < last) {
        EXPECT_EQ(parents_of(dag, t), std::vector<std::uint32_t>({first}));  // a branch
      }
    }
    if (chain) {
      ++chains;
      ++chain_lengths[size];
    } else {
      EXPECT_EQ(parents_of(dag, last).size(), size - 2u);  // the join waits for every branch
      ++fan_widths[size - 2];
    }
    for (std::uint32_t t = first; t <= last; ++t) model_share[w.jobs[t].model] += 1.0;
  }
  // A fan-out of width 2 has 4 tasks, so it is never mistaken for a chain (size 2 or one parent).
  EXPECT_NEAR(chains / 50'000.0, 0.3, 0.01);
  EXPECT_EQ(chain_lengths.size(), 4u);  // 2, 3, 4, 5
  EXPECT_EQ(chain_lengths.begin()->first, 2u);
  EXPECT_EQ(chain_lengths.rbegin()->first, 5u);
  EXPECT_EQ(fan_widths.size(), 3u);  // 2, 3, 4
  EXPECT_EQ(fan_widths.begin()->first, 2u);
  EXPECT_EQ(fan_widths.rbegin()->first, 4u);
  double tasks = 0.0;
  for (const auto& [model, count] : model_share) tasks += count;
  // Zipf over (vit, opt, nli): 6/11, 3/11, 2/11.
  EXPECT_NEAR(model_share["vit"] / tasks, 6.0 / 11, 0.005);
  EXPECT_NEAR(model_share["opt"] / tasks, 3.0 / 11, 0.005);
  EXPECT_NEAR(model_share["nli"] / tasks, 2.0 / 11, 0.005);
  EXPECT_EQ(model_share.size(), 3u);
}

// Mean and variance of the number of arrivals per `window` seconds.
std::pair<double, double> counts_per_window(const std::vector<double>& arrivals, double window) {
  const auto windows = static_cast<std::size_t>(arrivals.back() / window);
  std::vector<double> counts(windows, 0.0);
  for (const double t : arrivals) {
    const auto w = static_cast<std::size_t>(t / window);
    if (w < windows) counts[w] += 1.0;
  }
  double mean = 0.0, var = 0.0;
  for (const double c : counts) mean += c / static_cast<double>(windows);
  for (const double c : counts) var += (c - mean) * (c - mean) / static_cast<double>(windows - 1);
  return {mean, var};
}

TEST(QueryDagGenerator, PoissonArrivalsAtTheRate) {
  GeneratorOptions o = dag_options(200'000);
  o.queries_per_s = 50.0;
  const Workload w = generate_workload(o);
  const std::vector<double>& t = w.dag->arrival_time;
  // Mean gap 1/50 s (standard error 0.22%); exponential gaps: coefficient of variation 1.
  double sum = 0.0, sum2 = 0.0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double gap = t[i] - (i == 0 ? 0.0 : t[i - 1]);
    sum += gap;
    sum2 += gap * gap;
  }
  const double mean = sum / static_cast<double>(t.size());
  const double cv = std::sqrt(sum2 / static_cast<double>(t.size()) - mean * mean) / mean;
  EXPECT_NEAR(mean, 1.0 / 50, 0.01 / 50);
  EXPECT_NEAR(cv, 1.0, 0.02);
  const auto [count_mean, count_var] = counts_per_window(t, 1.0);
  EXPECT_NEAR(count_var / count_mean, 1.0, 0.1);  // Poisson: variance = mean
}

TEST(QueryDagGenerator, MmppKeepsTheMeanRateAndIsBursty) {
  GeneratorOptions o = dag_options(400'000);
  o.queries_per_s = 50.0;
  o.arrival = "mmpp";
  o.burst_factor = 10.0;
  o.burst_fraction = 0.1;
  o.burst_mean_s = 2.0;
  const Workload w = generate_workload(o);
  const std::vector<double>& t = w.dag->arrival_time;
  // ~8,000 s with ~400 bursts: the long-run rate within 5%.
  EXPECT_NEAR(static_cast<double>(t.size()) / t.back(), 50.0, 2.5);
  // Calm rate 50 / (0.9 + 0.1 x 10) = 26.3/s, bursts 263/s: counts per second are far more
  // dispersed than a Poisson process's.
  const auto [count_mean, count_var] = counts_per_window(t, 1.0);
  EXPECT_GT(count_var / count_mean, 5.0);
}

bool same_queries(const Workload& a, const Workload& b, std::size_t queries) {
  const std::uint32_t tasks = a.dag->task_begin[queries];
  if (b.dag->task_begin[queries] != tasks) return false;
  for (std::uint32_t t = 0; t < tasks; ++t) {
    const JobSpec &x = a.jobs[t], &y = b.jobs[t];
    if (x.id != y.id || x.submit_time != y.submit_time || x.duration != y.duration ||
        x.model != y.model || x.vc != y.vc || a.dag->input_mb[t] != b.dag->input_mb[t] ||
        a.dag->output_mb[t] != b.dag->output_mb[t] ||
        parents_of(*a.dag, t) != parents_of(*b.dag, t))
      return false;
  }
  return true;
}

TEST(QueryDagGenerator, PrefixStableAndReproducible) {
  for (const char* shapes : {"compass", "synthetic"}) {
    for (const char* arrival : {"poisson", "mmpp"}) {
      GeneratorOptions o = dag_options(500, 11);
      o.dag_shapes = shapes;
      o.arrival = arrival;
      o.vcs = {"a", "b"};
      const Workload small = generate_workload(o);
      o.queries = 2000;
      const Workload big = generate_workload(o);
      EXPECT_TRUE(same_queries(small, big, 500)) << shapes << " " << arrival;
      EXPECT_TRUE(same_queries(big, generate_workload(o), 2000)) << shapes << " " << arrival;
      o.seed = 12;
      EXPECT_FALSE(same_queries(big, generate_workload(o), 2000)) << shapes << " " << arrival;
    }
  }
}

TEST(QueryDagGenerator, BadOptionsAreRejected) {
  const auto expect_bad = [](auto&& edit, const std::string& words) {
    GeneratorOptions o = dag_options(10);
    edit(o);
    try {
      generate_workload(o);
      ADD_FAILURE() << "expected std::invalid_argument: " << words;
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
    }
  };
  expect_bad([](GeneratorOptions& o) { o.queries_per_s = 0.0; }, "queries_per_s");
  expect_bad([](GeneratorOptions& o) { o.arrival = "gamma"; }, "arrival");
  expect_bad(
      [](GeneratorOptions& o) {
        o.arrival = "mmpp";
        o.burst_factor = 1.0;
      },
      "burst_factor");
  expect_bad(
      [](GeneratorOptions& o) {
        o.arrival = "mmpp";
        o.burst_fraction = 1.0;
      },
      "burst_fraction");
  expect_bad([](GeneratorOptions& o) { o.zipf_s = -1.0; }, "zipf_s");
  expect_bad([](GeneratorOptions& o) { o.dag_shapes = "tree"; }, "dag_shapes");
  const auto synthetic = [](GeneratorOptions& o) { o.dag_shapes = "synthetic"; };
  expect_bad(
      [&](GeneratorOptions& o) {
        synthetic(o);
        o.max_chain = 1;
      },
      "max_chain");
  expect_bad(
      [&](GeneratorOptions& o) {
        synthetic(o);
        o.chain_fraction = 1.5;
      },
      "chain_fraction");
  expect_bad(
      [&](GeneratorOptions& o) {
        synthetic(o);
        o.dag_models = {"vit", "gpt5"};
      },
      "unknown model 'gpt5'");
  expect_bad(
      [&](GeneratorOptions& o) {
        synthetic(o);
        o.dag_models = {"resnet50"};  // a footprint but no compute time
      },
      "has no compute_ms");
  expect_bad(
      [](GeneratorOptions& o) {
        auto catalog = std::make_shared<ServingCatalog>(default_serving_catalog());
        catalog->pipelines.clear();
        o.catalog = catalog;
      },
      "has no pipelines");
}

// ---- [workload] keys ----

constexpr const char* kConfig = R"([cluster]
nodes = 2
gpus_per_node = 4

[workload]
generator = "query_dag"
queries = 300
queries_per_s = 25
arrival = "mmpp"
burst_factor = 6
burst_fraction = 0.25
burst_mean_s = 3
dag_shapes = "synthetic"
zipf_s = 1.2
chain_fraction = 0.4
max_chain = 6
max_fanout = 5
models = ["vit", "opt"]
seed = 9
)";

InputError config_error(const std::vector<std::string>& overrides,
                        const std::string& text = kConfig) {
  try {
    parse_run_config(text, "dag.toml", "", overrides);
  } catch (const InputError& error) {
    return error;
  }
  ADD_FAILURE() << "expected an InputError";
  return InputError("", 0, "", "");
}

TEST(QueryDagConfig, ParsesEveryKey) {
  const RunConfig config = parse_run_config(kConfig, "dag.toml", "");
  ASSERT_TRUE(config.workload.generator);
  const GeneratorOptions& g = *config.workload.generator;
  EXPECT_EQ(g.shape, "query_dag");
  EXPECT_EQ(g.queries, 300u);
  EXPECT_EQ(g.queries_per_s, 25.0);
  EXPECT_EQ(g.arrival, "mmpp");
  EXPECT_EQ(g.burst_factor, 6.0);
  EXPECT_EQ(g.burst_fraction, 0.25);
  EXPECT_EQ(g.burst_mean_s, 3.0);
  EXPECT_EQ(g.dag_shapes, "synthetic");
  EXPECT_EQ(g.zipf_s, 1.2);
  EXPECT_EQ(g.chain_fraction, 0.4);
  EXPECT_EQ(g.max_chain, 6);
  EXPECT_EQ(g.max_fanout, 5);
  EXPECT_EQ(g.dag_models, std::vector<std::string>({"vit", "opt"}));
  EXPECT_EQ(g.seed, 9u);
  ASSERT_TRUE(config.workload.serving_catalog);
  EXPECT_EQ(config.workload.serving_catalog->file, "profiles/serving/models.json");
  EXPECT_EQ(g.catalog, config.workload.serving_catalog);
  const Workload w = load_workload(config);
  ASSERT_TRUE(w.dag);
  EXPECT_EQ(w.dag->query_count(), 300u);
  // Simulated on the serving engine: every query completes.
  const ConfigRun run = simulate_config(config, std::make_shared<const Workload>(w));
  EXPECT_EQ(run.result.metrics.queries, 300u);
  EXPECT_EQ(run.result.metrics.jobs, w.jobs.size());
  EXPECT_GT(run.result.metrics.query_latency_p99, 0.0);

  // Defaults: Poisson arrivals of the study's pipelines.
  const RunConfig plain = parse_run_config(
      "[cluster]\nnodes = 1\n[workload]\ngenerator = \"query_dag\"\n", "plain.toml", "");
  EXPECT_EQ(plain.workload.generator->queries, 1000u);
  EXPECT_EQ(plain.workload.generator->arrival, "poisson");
  EXPECT_EQ(plain.workload.generator->dag_shapes, "compass");
  // A DAG trace gets the catalog too; other workloads get none.
  const RunConfig trace = parse_run_config(
      "[cluster]\nnodes = 1\n[workload]\ntrace = \"q.csv\"\nformat = \"dag\"\n", "t.toml", "");
  EXPECT_EQ(trace.workload.format, TraceFormat::kDag);
  EXPECT_TRUE(trace.workload.serving_catalog);
  EXPECT_FALSE(
      parse_run_config("[cluster]\nnodes = 1\n[workload]\ngenerator = \"philly\"\n", "p.toml", "")
          .workload.serving_catalog);
}

TEST(QueryDagConfig, ServingKeys) {
  const RunConfig config = parse_run_config(
      "[cluster]\nnodes = 2\ngpu_mem_gb = 32\nnet_gbps = 25\nnet_latency_us = 10\n"
      "[[cluster.node_group]]\nnodes = 1\ngpu_type = \"a100\"\n"
      "[[cluster.node_group]]\nnodes = 1\ngpu_mem_gb = 80\nnet_latency_us = 0\n"
      "[workload]\ngenerator = \"query_dag\"\nqueries = 20\n"
      "[scheduler]\ntask_placement = \"heft\"\ncache = \"compass\"\ncache_lookahead = 5\n"
      "reschedule_threshold = 2.5\ncompass_keep_joins = true\n[metrics]\nquery_slo_s = 0.75\n",
      "s.toml", "");
  const auto& groups = config.sim.cluster.groups;
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].gpu_mem_gb, 32.0);
  EXPECT_EQ(groups[1].gpu_mem_gb, 32.0);  // inherited from [cluster]
  EXPECT_EQ(groups[1].net_gbps, 25.0);
  EXPECT_EQ(groups[2].gpu_mem_gb, 80.0);
  EXPECT_EQ(groups[2].net_latency_us, 0.0);
  EXPECT_EQ(config.sim.serving.task_placement, "heft");
  EXPECT_EQ(config.sim.serving.cache, "compass");
  EXPECT_EQ(config.sim.serving.cache_lookahead, 5);
  EXPECT_EQ(config.sim.serving.reschedule_threshold, 2.5);
  EXPECT_TRUE(config.sim.serving.compass_keep_joins);
  EXPECT_EQ(config.sim.serving.query_slo_s, 0.75);
  const Workload w = load_workload(config);
  const ServingSetup setup = serving_setup(config, w);
  ASSERT_EQ(setup.groups.size(), 3u);
  EXPECT_EQ(setup.groups[0].gpu_mem_gb, 32.0);
  EXPECT_EQ(setup.groups[0].net_gbps, 25.0);
  EXPECT_EQ(setup.groups[0].net_latency_us, 10.0);
  const ServingCatalog& catalog = *config.workload.serving_catalog;
  EXPECT_EQ(setup.groups[0].h2d_gbps, catalog.gpu_defaults("generic").h2d_gbps);
  EXPECT_EQ(setup.groups[1].h2d_gbps, catalog.gpu_defaults("a100").h2d_gbps);
  // Unset: the catalog's defaults.
  const RunConfig plain = parse_run_config(
      "[cluster]\nnodes = 1\ngpu_type = \"t4\"\n[workload]\ngenerator = \"query_dag\"\n"
      "queries = 5\n",
      "p.toml", "");
  const ServingSetup defaults = serving_setup(plain, load_workload(plain));
  EXPECT_EQ(defaults.groups[0].gpu_mem_gb, catalog.gpu_defaults("t4").mem_gb);
  EXPECT_EQ(defaults.groups[0].net_gbps, catalog.network.net_gbps);
  EXPECT_EQ(defaults.groups[0].net_latency_us, catalog.network.net_latency_us);
  EXPECT_EQ(plain.sim.serving.task_placement, "compass");
  EXPECT_EQ(plain.sim.serving.cache, "lru");
  // On a training workload they would be ignored: refused, naming the key. (gpu_mem_gb acts
  // there too: GPU shares' memory.)
  for (const std::string& line :
       {std::string("[cluster]\nnodes = 1\nnet_gbps = 16\n[workload]\ngenerator = \"philly\"\n"),
        std::string("[cluster]\nnodes = 1\n[workload]\ngenerator = \"philly\"\n"
                    "[scheduler]\ncache = \"lru\"\n"),
        std::string("[cluster]\nnodes = 1\n[workload]\ngenerator = \"philly\"\n"
                    "[metrics]\nquery_slo_s = 1\n")}) {
    try {
      parse_run_config(line, "t.toml", "");
      ADD_FAILURE() << "expected an InputError for " << line;
    } catch (const InputError& error) {
      EXPECT_NE(std::string(error.what()).find("only for DAG workloads"), std::string::npos)
          << error.what();
    }
  }
}

TEST(QueryDagConfig, BadKeysAreNamed) {
  EXPECT_EQ(config_error({"workload.queries_per_s=0"}).field(), "workload.queries_per_s");
  EXPECT_EQ(config_error({"workload.queries=0"}).field(), "workload.queries");
  EXPECT_EQ(config_error({"workload.jobs=10"}).field(), "workload.jobs");
  EXPECT_EQ(config_error({"workload.arrival=gamma"}).field(), "workload.arrival");
  EXPECT_EQ(config_error({"workload.burst_factor=1"}).field(), "workload.burst_factor");
  EXPECT_EQ(config_error({"workload.burst_fraction=1"}).field(), "workload.burst_fraction");
  EXPECT_EQ(config_error({"workload.arrival=poisson"}).field(), "workload.burst_factor");
  EXPECT_EQ(config_error({"workload.zipf_s=-1"}).field(), "workload.zipf_s");
  EXPECT_EQ(config_error({"workload.max_chain=1"}).field(), "workload.max_chain");
  EXPECT_EQ(config_error({"workload.dag_shapes=compass"}).field(), "workload.chain_fraction");
  const InputError unknown = config_error({"workload.models=[\"vit\", \"gpt5\"]"});
  EXPECT_EQ(unknown.field(), "workload.models");
  EXPECT_NE(std::string(unknown.what()).find("unknown model 'gpt5'"), std::string::npos);
  EXPECT_EQ(config_error({"workload.models=[\"resnet50\"]"}).field(), "workload.models");
  EXPECT_EQ(config_error({"workload.window=[0, 10]"}).field(), "workload.window");
  const InputError missing = config_error({"workload.catalog=no/such/catalog.json"});
  EXPECT_EQ(missing.file(), "no/such/catalog.json");
  const InputError not_dag = config_error(
      {}, "[cluster]\nnodes = 1\n[workload]\ngenerator = \"philly\"\ncatalog = \"c.json\"\n");
  EXPECT_EQ(not_dag.field(), "workload.catalog");
  // The query_dag keys mean nothing to another generator: unknown keys (the first in order).
  EXPECT_EQ(config_error({"workload.generator=synergy"}).field(), "workload.arrival");
}

}  // namespace
}  // namespace clustersim
