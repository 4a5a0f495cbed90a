// Scaling benchmark: how the cost per event grows with the cluster and with the number of jobs.
// Generated Philly-like workloads (jobs scaled to the cluster's GPUs, or a fixed cluster with
// more jobs), FIFO and Tiresias with preemption, loads 0.8 and 1.2. Each case runs in a child
// process (its peak memory is its own) and is repeated; the best simulation CPU time is kept.
// Prints ns/event, events/s, rounds and bytes per job, then the ratios the project's targets
// name (sim/README.md, "Performance").
//
//   clustersim_scaling_bench [--repeat 3] [--quick] [--nodes 64,512,4096,12500]
//                            [--jobs 10000,100000,1000000,2000000] [--policies fifo,tiresias]
//                            [--loads 0.8,1.2]
//
// Policy `fifo_shares` (not run by default): FIFO with GPU sharing ([sharing] constant 0.9),
// every other single-GPU job asking for a share (250, 500 or 750 thousandths in turn).
#include <time.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "bench_util.h"
#include "clustersim/generator.h"
#include "clustersim/options.h"
#include "clustersim/simulator.h"

namespace {

using namespace clustersim;
using bench::split;

struct Case {
  int nodes;
  std::size_t jobs;
  std::string policy;
  double load;
};

struct Measured {
  double cpu_s = 0;  // simulate() only, thread CPU time
  std::uint64_t events = 0, rounds = 0, preemptions = 0;
  double peak_mb = 0;  // whole process: workload, engine and results
  bool ok = false;
};

double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

// 8-GPU nodes, 64 cores and 512 GB each, 16 nodes per rack; consolidate placement; checkpoint
// and restore of 30 s under Tiresias (as clustersim_bench).
SimOptions options_for(const Case& c) {
  SimOptions options;
  NodeGroupSpec group;
  group.nodes = c.nodes;
  group.gpus_per_node = 8;
  group.cpus_per_node = 64;
  group.mem_gb_per_node = 512;
  options.cluster.groups.push_back(group);
  options.cluster.nodes_per_rack = 16;
  options.scheduler.policy = c.policy == "fifo_shares" ? "fifo" : c.policy;
  if (c.policy == "fifo_shares") {
    options.sharing.interference = Interference::kConstant;
    options.sharing.constant_factor = 0.9;
  }
  options.scheduler.placement = "consolidate";
  options.scheduler.lease_s = 300;
  if (c.policy != "fifo") options.scheduler.checkpoint_s = options.scheduler.restore_s = 30;
  options.penalty = {0.9, 0.8};
  options.sample_interval_s = 3600;
  options.record_samples = false;
  return options;
}

Measured run_case(const Case& c) {
  Measured m;
  double peak_mb = 0;
  const bool ok = bench::run_in_child(
      [&] {
        Measured out;
        const SimOptions options = options_for(c);
        GeneratorOptions generator;
        generator.jobs = c.jobs;
        generator.load = c.load;
        generator.cluster_gpus = options.cluster.total_gpus();
        generator.seed = 7;
        Workload workload = generate_workload(generator);
        if (c.policy == "fifo_shares")
          for (std::size_t i = 0; i < workload.jobs.size(); i += 2)
            if (workload.jobs[i].num_gpus == 1)
              workload.jobs[i].gpu_milli = 250 * (1 + static_cast<int>(i / 2 % 3));
        const double start = thread_cpu_seconds();
        const RunResult result = simulate(options, workload.jobs);
        out.cpu_s = thread_cpu_seconds() - start;
        out.events = result.metrics.events;
        out.rounds = result.metrics.rounds;
        out.preemptions = result.metrics.preemptions;
        out.ok = result.metrics.jobs == c.jobs;
        return out;
      },
      m, peak_mb);
  m.ok = m.ok && ok;
  m.peak_mb = peak_mb;
  return m;
}

}  // namespace

int main(int argc, char** argv) {
  // The config keys' registry (options.h) is built once per process, as a front end's config
  // parsing builds it before any simulation: not a cost of each case's simulate().
  simulator_keys();
  std::string nodes_list = "64,256,512,4096,12500", jobs_list = "10000,100000,1000000,2000000";
  std::string policies = "fifo,tiresias", loads = "0.8,1.2";
  int repeat = 3;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--quick") {
      nodes_list = "64,256,512";
      jobs_list = "10000,100000";
      repeat = 1;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr,
                   "usage: %s [--repeat N] [--quick] [--nodes ...] [--jobs ...] [--policies ...] "
                   "[--loads ...]\n",
                   argv[0]);
      return 2;
    }
    const std::string value = argv[++i];
    if (flag == "--repeat")
      repeat = std::max(1, std::stoi(value));
    else if (flag == "--nodes")
      nodes_list = value;
    else if (flag == "--jobs")
      jobs_list = value;
    else if (flag == "--policies")
      policies = value;
    else if (flag == "--loads")
      loads = value;
    else {
      std::fprintf(stderr, "unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  // Cluster scaling: 80 jobs per node (1M jobs on 12,500 nodes). Job scaling: 256 nodes.
  std::vector<Case> cases;
  for (const auto& load : split(loads))
    for (const auto& policy : split(policies)) {
      for (const auto& nodes : split(nodes_list))
        cases.push_back({std::stoi(nodes), static_cast<std::size_t>(80 * std::stoi(nodes)), policy,
                         std::stod(load)});
      for (const auto& jobs : split(jobs_list))
        cases.push_back({256, static_cast<std::size_t>(std::stoul(jobs)), policy, std::stod(load)});
    }
  std::printf("one core per case; best simulate() CPU time of %d; peak memory of the process\n",
              repeat);
  std::printf("%-5s %-8s %-6s %-9s %8s %9s %10s %9s %9s %9s\n", "load", "policy", "nodes", "jobs",
              "sim_s", "ns/event", "Mevents/s", "rounds", "peak_MB", "B/job");
  std::map<std::tuple<std::string, double, int, std::size_t>, double> ns_per_event;
  int failures = 0;
  for (const Case& c : cases) {
    if (ns_per_event.count({c.policy, c.load, c.nodes, c.jobs})) continue;
    Measured best;
    for (int r = 0; r < repeat; ++r) {
      Measured m = run_case(c);
      if (!m.ok) {
        best = m;
        break;
      }
      if (!best.ok || m.cpu_s < best.cpu_s) best = m;
    }
    if (!best.ok) {
      std::printf("%-5.2f %-8s %-6d %-9zu failed\n", c.load, c.policy.c_str(), c.nodes, c.jobs);
      ++failures;
      continue;
    }
    const double ns = 1e9 * best.cpu_s / static_cast<double>(best.events);
    ns_per_event[{c.policy, c.load, c.nodes, c.jobs}] = ns;
    std::printf("%-5.2f %-8s %-6d %-9zu %8.3f %9.0f %10.2f %9llu %9.1f %9.0f\n", c.load,
                c.policy.c_str(), c.nodes, c.jobs, best.cpu_s, ns, 1e3 / ns,
                static_cast<unsigned long long>(best.rounds), best.peak_mb,
                best.peak_mb * 1048576.0 / static_cast<double>(c.jobs));
    std::fflush(stdout);
  }
  // The targets' ratios, where both cases ran.
  std::printf("\nratios (targets: 4096 vs 256 nodes <= 1.5; 2M vs 100k jobs at load 1.2 <= 1.3)\n");
  for (const auto& load : split(loads))
    for (const auto& policy : split(policies)) {
      const double l = std::stod(load);
      const auto get = [&](int nodes, std::size_t jobs) {
        auto it = ns_per_event.find({policy, l, nodes, jobs});
        return it == ns_per_event.end() ? 0.0 : it->second;
      };
      const double a = get(4096, 80 * 4096), b = get(256, 80 * 256);
      if (a > 0 && b > 0)
        std::printf("%-8s load %.1f: ns/event 4096 nodes / 256 nodes = %.2f\n", policy.c_str(), l,
                    a / b);
      const double c2 = get(256, 2000000), c1 = get(256, 100000);
      if (c2 > 0 && c1 > 0)
        std::printf("%-8s load %.1f: ns/event 2M jobs / 100k jobs = %.2f\n", policy.c_str(), l,
                    c2 / c1);
    }
  return failures == 0 ? 0 : 1;
}
