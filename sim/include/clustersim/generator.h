// Synthetic workload generator: Poisson arrivals at a target load, Philly-shaped GPU demand and
// duration distributions, a model mix. Reproducible from a seed on every platform (it uses its
// own RNG and inverse-CDF sampling, not <random>'s implementation-defined distributions).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "clustersim/job.h"

namespace clustersim {

struct GeneratorOptions {
  std::string shape = "philly";  // distribution family; only "philly" for now
  std::size_t jobs = 1000;
  double load = 0.8;         // offered GPU-seconds per second over cluster GPUs
  int cluster_gpus = 64;     // capacity the load refers to
  int max_gpus_per_job = 0;  // 0 = no cap (else demands above it are clamped)
  std::uint64_t seed = 1;
  std::vector<std::string> vcs;  // jobs are spread over these VCs uniformly; empty = none
};

Workload generate_workload(const GeneratorOptions& options);

// Mean GPU-seconds of one generated job (used to turn `load` into an arrival rate).
double generator_mean_gpu_seconds(const GeneratorOptions& options);

}  // namespace clustersim
