// The allocation LP behind `opt` (after Synergy-OPT): for GPU placements already chosen, which
// CPU cores and memory per GPU each job should get to maximise the sum of the jobs' throughputs,
// each normalised by its throughput at the proportional share, subject to every node's CPU and
// memory, with no job below its proportional-share throughput. Each job chooses a convex mix of
// configurations (points of its profile's grid): the LP relaxation of picking one, and an upper
// bound on what any allocation of those placements achieves. Solved with COIN-OR CLP.
#pragma once

#include <cstdint>
#include <vector>

namespace clustersim::allocation {

struct LpConfig {
  double cpus_per_gpu = 0.0;
  double mem_gb_per_gpu = 0.0;
  double normalised_rate = 1.0;  // throughput here / throughput at the proportional share
};

struct LpJob {
  struct Share {
    std::uint32_t node;  // index into the problem's nodes
    int gpus;
  };
  std::vector<Share> shares;
  std::vector<LpConfig> configs;  // non-empty; one of them is the proportional share
};

struct LpNode {
  double cpus = 0.0;  // what the LP may hand out (capacity minus what fixed jobs hold);
  double mem_gb = 0.0;
  bool models_cpus = false;  // a dimension a node does not model is unconstrained
  bool models_mem = false;
};

struct LpSolution {
  bool optimal = false;
  double bound = 0.0;                // the LP's objective: sum of normalised throughputs
  std::vector<double> cpus_per_gpu;  // per job: the mix's mean
  std::vector<double> mem_gb_per_gpu;
  std::vector<double> weights;            // every (job, configuration) weight, job by job
  std::vector<std::size_t> first_column;  // per job: its first weight
};

// With `fair_share` false, jobs may fall below their proportional-share throughput: the bound
// then covers every allocation of the placements, not only fair ones.
LpSolution solve_allocation_lp(const std::vector<LpJob>& jobs, const std::vector<LpNode>& nodes,
                               bool fair_share = true);

}  // namespace clustersim::allocation
