// Serving engine throughput: the Compass study's query pipelines (query_dag generator, about 4
// tasks a query) on servers of one GPU with 8 GB of model cache, under each task placement. Each
// case runs in a child process so that its peak memory (max RSS) is its own. Prints tasks/s,
// events/s, the run's p99 query latency and GPU utilisation (a sanity check that the cluster is
// loaded, not idle or drowning), and peak memory. The target: 1M tasks in seconds on one core.
//
//   clustersim_serving_bench [--tasks 1000000] [--servers 128] [--queries-per-s 40]
//                            [--placements compass,heft,least_loaded,round_robin,model_affinity]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "clustersim/config.h"

namespace {

using namespace clustersim;

struct CaseResult {
  double generate_s = 0, simulate_s = 0;
  std::uint64_t tasks = 0, queries = 0, events = 0, loads = 0;
  double p99 = 0, gpu_util = 0;
};

CaseResult run_case(const std::string& placement, std::size_t tasks, int servers, double rate) {
  // The study's pipelines average 3.9 tasks a query (Zipf popularity): ask for enough queries.
  const std::size_t queries = tasks * 10 / 39 + 1;
  const std::string text = "[cluster]\nnodes = " + std::to_string(servers) +
                           "\ngpus_per_node = 1\ngpu_mem_gb = 8\n[workload]\n"
                           "generator = \"query_dag\"\nqueries = " +
                           std::to_string(queries) + "\nqueries_per_s = " + std::to_string(rate) +
                           "\n[scheduler]\ntask_placement = \"" + placement +
                           "\"\ncache = \"compass\"\n";
  const RunConfig config = parse_run_config(text, "serving_bench", "");
  CaseResult r;
  const auto t0 = std::chrono::steady_clock::now();
  auto workload = std::make_shared<const Workload>(load_workload(config));
  const auto t1 = std::chrono::steady_clock::now();
  const ConfigRun run = simulate_config(config, workload);
  const auto t2 = std::chrono::steady_clock::now();
  r.generate_s = std::chrono::duration<double>(t1 - t0).count();
  r.simulate_s = std::chrono::duration<double>(t2 - t1).count();
  r.tasks = run.result.metrics.jobs;
  r.queries = run.result.metrics.queries;
  r.events = run.result.metrics.events;
  r.loads = run.result.metrics.model_loads;
  r.p99 = run.result.metrics.query_latency_p99;
  r.gpu_util = run.result.metrics.gpu_util;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t tasks = 1000000;
  int servers = 128;
  double rate = 40.0;
  std::vector<std::string> placements = {"compass", "heft", "least_loaded", "round_robin",
                                         "model_affinity"};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--tasks"))
      tasks = std::stoul(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--servers"))
      servers = std::stoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--queries-per-s"))
      rate = std::stod(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--placements"))
      placements = bench::split(argv[i + 1]);
    else {
      std::fprintf(stderr, "unknown option %s\n", argv[i]);
      return 2;
    }
  }
  std::printf("%-15s %9s %8s %8s %10s %12s %12s %9s %8s %8s\n", "placement", "tasks", "gen_s",
              "sim_s", "tasks/s", "events/s", "loads", "p99_s", "gpu_util", "peak_MB");
  int failures = 0;
  for (const std::string& placement : placements) {
    CaseResult r;
    double peak_mb = 0;
    if (!bench::run_in_child([&] { return run_case(placement, tasks, servers, rate); }, r,
                             peak_mb)) {
      std::printf("%-15s failed\n", placement.c_str());
      ++failures;
      continue;
    }
    std::printf("%-15s %9llu %8.2f %8.2f %10.0f %12.0f %12llu %9.3f %8.3f %8.0f\n",
                placement.c_str(), static_cast<unsigned long long>(r.tasks), r.generate_s,
                r.simulate_s, static_cast<double>(r.tasks) / r.simulate_s,
                static_cast<double>(r.events) / r.simulate_s,
                static_cast<unsigned long long>(r.loads), r.p99, r.gpu_util, peak_mb);
  }
  return failures ? 1 : 0;
}
