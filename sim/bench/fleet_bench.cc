// Fleet speed (issue 44, item 6): the same generated jobs on a fleet of `--clusters` clusters of
// `--gpus` GPUs each (least_loaded router, fleet.h) and on one cluster of all those GPUs. FIFO,
// 8-GPU nodes, consolidate placement; the jobs are generated for the big cluster's GPUs at
// `--load`. Prints each run's wall time and the fleet's ratio to the single cluster's.
//
//   clustersim_fleet_bench [--clusters 10] [--gpus 1000] [--jobs 100000] [--load 0.8]
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

#include "clustersim/fleet.h"
#include "clustersim/generator.h"
#include "clustersim/options.h"
#include "clustersim/simulator.h"

namespace {

using namespace clustersim;

ClusterSpec cluster_of(int gpus) {
  ClusterSpec cluster;
  NodeGroupSpec group;
  group.nodes = gpus / 8;
  group.gpus_per_node = 8;
  cluster.groups.push_back(group);
  cluster.nodes_per_rack = 16;
  return cluster;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The process's CPU seconds: on a shared, loaded machine the wall times wander with the other
// processes, the CPU time much less.
double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

}  // namespace

int main(int argc, char** argv) {
  simulator_keys();  // built once per process, as a front end does
  int clusters = 10, gpus = 1000;
  std::size_t jobs = 100000;
  double load = 0.8;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--clusters")
      clusters = std::stoi(value);
    else if (flag == "--gpus")
      gpus = std::stoi(value);
    else if (flag == "--jobs")
      jobs = std::stoull(value);
    else if (flag == "--load")
      load = std::stod(value);
    else {
      std::fprintf(stderr, "usage: %s [--clusters N] [--gpus N] [--jobs N] [--load X]\n", argv[0]);
      return 2;
    }
  }
  SimOptions options;
  options.cluster = cluster_of(clusters * gpus);
  options.scheduler.placement = "consolidate";
  options.sample_interval_s = 3600;
  options.record_samples = false;
  GeneratorOptions generator;
  generator.jobs = jobs;
  generator.load = load;
  generator.cluster_gpus = options.cluster.total_gpus();
  generator.seed = 7;
  const Workload workload = generate_workload(generator);

  auto start = std::chrono::steady_clock::now();
  double cpu_start = cpu_seconds();
  const RunResult one = simulate(options, workload.jobs);
  const double one_s = seconds_since(start), one_cpu = cpu_seconds() - cpu_start;

  FleetSpec fleet;
  fleet.regions = {{"region", 0.0, {}, 0.0, 0.0}};
  for (int c = 0; c < clusters; ++c) {
    std::string name = "c";
    name += std::to_string(c);  // not "c" + ...: GCC 12's false -Wrestrict (bug 105651)
    fleet.clusters.push_back({name, "region", cluster_of(gpus)});
  }
  start = std::chrono::steady_clock::now();
  cpu_start = cpu_seconds();
  const FleetResult many = simulate_fleet(fleet, options, workload.jobs);
  const double fleet_s = seconds_since(start), fleet_cpu = cpu_seconds() - cpu_start;

  std::printf("one cluster of %d GPUs: %.2f s, %llu events, jct_mean %.0f s, queue_mean %.0f s\n",
              options.cluster.total_gpus(), one_s,
              static_cast<unsigned long long>(one.metrics.events), one.metrics.jct_mean,
              one.metrics.queue_mean);
  // (A fleet run as one Simulation counts its events; cluster by cluster it reports none.)
  std::printf("fleet of %d x %d GPUs:  %.2f s, %llu events, jct_mean %.0f s, queue_mean %.0f s\n",
              clusters, cluster_of(gpus).total_gpus(), fleet_s,
              static_cast<unsigned long long>(many.fleet.metrics.events),
              many.fleet.metrics.jct_mean, many.fleet.metrics.queue_mean);
  std::printf("fleet / one: %.2fx wall, %.2fx CPU (%.2f s vs %.2f s) (%zu jobs, load %.2f)\n",
              fleet_s / one_s, fleet_cpu / one_cpu, fleet_cpu, one_cpu, jobs, load);
  return 0;
}
