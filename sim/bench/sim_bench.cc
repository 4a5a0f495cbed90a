// Simulator throughput benchmark: generated Philly-like workloads on a 2,048-GPU cluster under
// FIFO, under Tiresias with preemption, and under Tiresias with preemption and on-demand migration
// (`tiresias+migration`: jobs kept on their fewest nodes for up to 30 min, defragmentation when
// the head needs room or 5% of the GPUs are fragmented; target 100k jobs in < 2 s too). Each case
// runs in a child process so that its peak memory (max RSS) is its own. Prints jobs/s, events/s and
// peak memory, and the ratio of each case's time and memory to the project's targets.
//
// Load 0.8 is the usual study point; 1.2 overloads the cluster so queues grow without bound
// (the worst case for the scheduler's data structures).
//
//   clustersim_bench [--jobs 10000,100000,1000000] [--policies fifo,tiresias,tiresias+migration]
//                    [--loads 0.8,1.2]
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_util.h"
#include "clustersim/config.h"
#include "clustersim/generator.h"
#include "clustersim/simulator.h"

namespace {

using namespace clustersim;
using bench::split;

struct CaseResult {
  double generate_s = 0, simulate_s = 0;
  std::uint64_t events = 0, rounds = 0, preemptions = 0, jobs = 0, migrations = 0;
  double gpu_util = 0;
};

SimOptions bench_options(std::string policy) {
  const std::string with_migration = "+migration";
  const bool migration = policy.size() > with_migration.size() &&
                         policy.compare(policy.size() - with_migration.size(),
                                        with_migration.size(), with_migration) == 0;
  if (migration) policy.resize(policy.size() - with_migration.size());
  SimOptions options;
  NodeGroupSpec group;
  group.nodes = 256;
  group.gpus_per_node = 8;
  group.cpus_per_node = 64;
  group.mem_gb_per_node = 512;
  options.cluster.groups.push_back(group);
  options.cluster.nodes_per_rack = 16;
  options.scheduler.policy = policy;
  options.scheduler.placement = "consolidate";
  options.scheduler.lease_s = 300;
  if (policy != "fifo") {
    options.scheduler.checkpoint_s = 30;
    options.scheduler.restore_s = 30;
  }
  options.penalty = {0.9, 0.8};
  if (migration) {
    options.scheduler.strict_locality = true;
    options.scheduler.locality_relax_s = 1800;
    options.mechanisms.migration = MechanismOptions::Migration::kOnDemand;
    options.mechanisms.defrag_threshold = 0.05;
  }
  options.sample_interval_s = 3600;
  return options;
}

CaseResult run_case(std::size_t jobs, const std::string& policy, double load) {
  using clock = std::chrono::steady_clock;
  CaseResult result;
  SimOptions options = bench_options(policy);
  GeneratorOptions generator;
  generator.jobs = jobs;
  generator.load = load;
  generator.cluster_gpus = options.cluster.total_gpus();
  generator.seed = 7;
  auto t0 = clock::now();
  Workload workload = generate_workload(generator);
  auto t1 = clock::now();
  RunResult run = simulate(options, workload.jobs);
  auto t2 = clock::now();
  result.generate_s = std::chrono::duration<double>(t1 - t0).count();
  result.simulate_s = std::chrono::duration<double>(t2 - t1).count();
  result.events = run.metrics.events;
  result.rounds = run.metrics.rounds;
  result.preemptions = run.metrics.preemptions;
  result.migrations = run.metrics.migrations;
  result.jobs = run.metrics.jobs;
  result.gpu_util = run.metrics.gpu_util;
  return result;
}

// The Synergy setting (sweep/examples/synergy/grid.toml): 128 V100 GPUs, 24 cores and 500 GB per
// 8-GPU server, FIFO, 9 single-GPU jobs/hour, metrics over a 1,000-job window; one allocation
// mechanism. Runs through the same path as `clustersim run` (config, profiles, window extension).
CaseResult run_synergy_case(const std::string& mechanism) {
  using clock = std::chrono::steady_clock;
  const std::string text = std::string(R"([cluster]
nodes = 16
gpus_per_node = 8
gpu_type = "v100"
cpus_per_node = 24
mem_gb_per_node = 500
storage_mbps_per_node = 500
[workload]
generator = "synergy"
jobs_per_hour = 9
window = [1000, 1999]
[scheduler]
policy = "fifo"
allocation = ")") + mechanism +
                           R"("
[throughput]
model = "profile"
profiles = ")" + CLUSTERSIM_SOURCE_DIR +
                           R"(/profiles/v100"
[metrics]
sample_interval_s = 3600
)";
  CaseResult result;
  const RunConfig config = parse_run_config(text, "synergy-bench", "");
  auto t0 = clock::now();
  auto workload = std::make_shared<const Workload>(load_workload(config));
  auto t1 = clock::now();
  const ConfigRun run = simulate_config(config, workload);
  auto t2 = clock::now();
  result.generate_s = std::chrono::duration<double>(t1 - t0).count();
  result.simulate_s = std::chrono::duration<double>(t2 - t1).count();
  result.events = run.result.metrics.events;
  result.jobs = run.workload->jobs.size();
  result.gpu_util = run.result.metrics.jct_mean / 3600.0;  // reported as JCT (h) below
  return result;
}

}  // namespace

int main(int argc, char** argv) {
  std::string jobs_list = "10000,100000,1000000", policies = "fifo,tiresias,tiresias+migration";
  std::string loads = "0.8,1.2";
  std::string mechanisms = "proportional,greedy,tune";
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--synergy")) {
      mechanisms = argv[i + 1];
    } else if (!std::strcmp(argv[i], "--jobs")) {
      jobs_list = argv[i + 1];
    } else if (!std::strcmp(argv[i], "--policies")) {
      policies = argv[i + 1];
    } else if (!std::strcmp(argv[i], "--loads")) {
      loads = argv[i + 1];
    } else {
      std::fprintf(stderr,
                   "usage: %s [--jobs N,N] [--policies P,P] [--loads X,X] [--synergy M,M]\n",
                   argv[0]);
      return 2;
    }
  }
  std::printf("cluster: 256 nodes x 8 GPUs (2,048 GPUs), 16 nodes/rack; one core per case\n");
  std::printf("%-5s %-9s %-18s %8s %8s %12s %12s %9s %8s %8s %7s %10s %10s\n", "load", "jobs",
              "policy", "gen_s", "sim_s", "jobs/s", "events/s", "peak_MB", "preempt", "migrate",
              "util", "time/tgt", "mem/tgt");
  int failures = 0;
  for (const auto& load_text : split(loads)) {
    const double load = std::stod(load_text);
    for (const auto& policy : split(policies)) {
      for (const auto& jobs_text : split(jobs_list)) {
        const std::size_t jobs = std::stoul(jobs_text);
        CaseResult result;
        double peak_mb = 0;
        if (!bench::run_in_child([&] { return run_case(jobs, policy, load); }, result, peak_mb)) {
          std::printf("%-5.2f %-9zu %-18s failed\n", load, jobs, policy.c_str());
          ++failures;
          continue;
        }
        const double total_s = result.generate_s + result.simulate_s;
        // Targets: 100k jobs in < 2 s, 1M jobs in < 30 s and < 1 GB (smaller: the 100k rate).
        const double time_target =
            jobs >= 1000000 ? 30.0 : 2.0 * static_cast<double>(jobs) / 100000.0;
        std::printf(
            "%-5.2f %-9zu %-18s %8.3f %8.3f %12.0f %12.0f %9.1f %8llu %8llu %7.3f %10.2f %10.2f\n",
            load, jobs, policy.c_str(), result.generate_s, result.simulate_s,
            jobs / result.simulate_s, result.events / result.simulate_s, peak_mb,
            static_cast<unsigned long long>(result.preemptions),
            static_cast<unsigned long long>(result.migrations), result.gpu_util,
            total_s / time_target, peak_mb / 1024.0);
        std::fflush(stdout);
      }
    }
  }
  // Allocation mechanisms in the Synergy setting (target: tune well under a second).
  std::printf("\nsynergy setting: 128 GPUs, FIFO, 9 jobs/h, 1,000-job window; one core per case\n");
  std::printf("%-13s %9s %8s %8s %12s %9s %10s\n", "allocation", "jobs_sim", "gen_s", "sim_s",
              "events/s", "peak_MB", "jct_mean_h");
  for (const auto& mechanism : split(mechanisms)) {
    CaseResult result;
    double peak_mb = 0;
    if (!bench::run_in_child([&] { return run_synergy_case(mechanism); }, result, peak_mb)) {
      std::printf("%-13s failed\n", mechanism.c_str());
      ++failures;
      continue;
    }
    std::printf("%-13s %9llu %8.3f %8.3f %12.0f %9.1f %10.2f\n", mechanism.c_str(),
                static_cast<unsigned long long>(result.jobs), result.generate_s, result.simulate_s,
                result.events / result.simulate_s, peak_mb, result.gpu_util);
    std::fflush(stdout);
  }
  return failures == 0 ? 0 : 1;
}
