// Small builders shared by the core tests.
#pragma once

#include <string>
#include <vector>

#include "clustersim/simulator.h"

namespace clustersim::testing {

inline SimOptions small_cluster(int nodes, int gpus_per_node, int nodes_per_rack = 32) {
  SimOptions options;
  NodeGroupSpec group;
  group.nodes = nodes;
  group.gpus_per_node = gpus_per_node;
  options.cluster.groups.push_back(group);
  options.cluster.nodes_per_rack = nodes_per_rack;
  options.sample_interval_s = 0;
  options.check_invariants = true;
  return options;
}

// "j" + std::to_string(i), spelt so that GCC 12 does not raise its false -Wrestrict alarm on
// operator+(const char*, std::string&&) (GCC bug 105651).
inline std::string numbered(const char* prefix, std::size_t i) {
  std::string id(prefix);
  id += std::to_string(i);
  return id;
}

// The field an ImpossibleJobError names when `jobs` are simulated ("" if none is thrown).
inline std::string refused_field(const SimOptions& options, const std::vector<JobSpec>& jobs) {
  try {
    simulate(options, jobs);
  } catch (const ImpossibleJobError& error) {
    return error.field();
  }
  return "";
}

inline JobSpec job(const std::string& id, Time submit, int gpus, double duration,
                   const std::string& vc = "") {
  JobSpec spec;
  spec.id = id;
  spec.submit_time = submit;
  spec.num_gpus = gpus;
  spec.duration = duration;
  spec.vc = vc;
  return spec;
}

// A one-GPU job of `model` whose length is `steps` training steps (the throughput model's
// steps per second decide its duration).
inline JobSpec stepped(const std::string& id, Time submit, const std::string& model, double steps) {
  JobSpec spec = job(id, submit, 1, /*duration: any > 0, steps decide*/ 1.0);
  spec.model = model;
  spec.steps = steps;
  return spec;
}

}  // namespace clustersim::testing

#include <cmath>

#include "clustersim/random.h"

namespace clustersim::testing {

// A random workload: Poisson arrivals, GPU counts from `gpu_choices`, exponential durations.
inline std::vector<JobSpec> random_jobs(std::size_t count, double mean_interarrival,
                                        double mean_duration, const std::vector<int>& gpu_choices,
                                        std::uint64_t seed,
                                        const std::vector<std::string>& vcs = {}) {
  Rng rng(seed);
  std::vector<JobSpec> jobs;
  Time t = 0;
  for (std::size_t i = 0; i < count; ++i) {
    t += -mean_interarrival * std::log1p(-rng.uniform());
    const int gpus = gpu_choices[rng.below(gpu_choices.size())];
    const double duration = 1.0 + -mean_duration * std::log1p(-rng.uniform());
    jobs.push_back(
        job(numbered("j", i), t, gpus, duration, vcs.empty() ? "" : vcs[rng.below(vcs.size())]));
  }
  return jobs;
}

}  // namespace clustersim::testing
