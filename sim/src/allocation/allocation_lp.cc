#include "allocation/allocation_lp.h"

#include <ClpSimplex.hpp>
#include <algorithm>
#include <limits>

namespace clustersim::allocation {

LpSolution solve_allocation_lp(const std::vector<LpJob>& jobs, const std::vector<LpNode>& nodes,
                               bool fair_share) {
  LpSolution solution;
  if (jobs.empty()) {
    solution.optimal = true;
    return solution;
  }
  constexpr double kInf = std::numeric_limits<double>::infinity();
  // Rows: per job, the convexity row (sum of weights = 1) and the fairness row (normalised rate
  // >= 1); per node, a CPU row and a memory row.
  const int job_rows = static_cast<int>(jobs.size()) * 2;
  const int rows = job_rows + static_cast<int>(nodes.size()) * 2;
  std::vector<double> row_lower(static_cast<std::size_t>(rows)),
      row_upper(static_cast<std::size_t>(rows));
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    row_lower[2 * j] = row_upper[2 * j] = 1.0;
    row_lower[2 * j + 1] = fair_share ? 1.0 : -kInf;
    row_upper[2 * j + 1] = kInf;
  }
  for (std::size_t n = 0; n < nodes.size(); ++n) {
    const std::size_t r = static_cast<std::size_t>(job_rows) + 2 * n;
    row_lower[r] = row_lower[r + 1] = -kInf;
    row_upper[r] = nodes[n].models_cpus ? nodes[n].cpus : kInf;
    row_upper[r + 1] = nodes[n].models_mem ? nodes[n].mem_gb : kInf;
  }
  // Columns (column-major): one per (job, configuration).
  std::vector<CoinBigIndex> start{0};
  std::vector<int> index;
  std::vector<double> value, objective, column_lower, column_upper;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    for (const LpConfig& config : jobs[j].configs) {
      index.push_back(static_cast<int>(2 * j));
      value.push_back(1.0);
      index.push_back(static_cast<int>(2 * j + 1));
      value.push_back(config.normalised_rate);
      for (const LpJob::Share& share : jobs[j].shares) {
        const int r = job_rows + static_cast<int>(2 * share.node);
        if (nodes[share.node].models_cpus && config.cpus_per_gpu != 0.0) {
          index.push_back(r);
          value.push_back(config.cpus_per_gpu * share.gpus);
        }
        if (nodes[share.node].models_mem && config.mem_gb_per_gpu != 0.0) {
          index.push_back(r + 1);
          value.push_back(config.mem_gb_per_gpu * share.gpus);
        }
      }
      start.push_back(static_cast<CoinBigIndex>(index.size()));
      objective.push_back(config.normalised_rate);
      column_lower.push_back(0.0);
      column_upper.push_back(1.0);
    }
  }
  ClpSimplex model;
  model.setLogLevel(0);
  model.loadProblem(static_cast<int>(objective.size()), rows, start.data(), index.data(),
                    value.data(), column_lower.data(), column_upper.data(), objective.data(),
                    row_lower.data(), row_upper.data());
  model.setOptimizationDirection(-1.0);  // maximise
  model.dual();
  if (!model.isProvenOptimal()) return solution;
  solution.optimal = true;
  solution.bound = model.objectiveValue();
  const double* weights = model.getColSolution();
  std::size_t column = 0;
  solution.weights.assign(weights, weights + objective.size());
  for (const LpJob& job : jobs) {
    solution.first_column.push_back(column);
    double cpus = 0.0, mem = 0.0;
    for (const LpConfig& config : job.configs) {
      const double w = std::max(0.0, weights[column++]);
      cpus += w * config.cpus_per_gpu;
      mem += w * config.mem_gb_per_gpu;
    }
    solution.cpus_per_gpu.push_back(cpus);
    solution.mem_gb_per_gpu.push_back(mem);
  }
  return solution;
}

}  // namespace clustersim::allocation
