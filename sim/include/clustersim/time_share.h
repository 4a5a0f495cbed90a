// Gavel's policy family (Narayanan et al., OSDI'20; stanford-futuredata/gavel, scheduler/
// policies/) as allocations over jobs x GPU types: X[j][t] is the fraction of time job j should
// run on GPUs of type t. Each policy is a function of the active jobs' throughputs on each type
// (steps/s of the whole job; 0 = cannot run there), their GPU counts (scale factors), priority
// weights and progress, and each type's GPU count; the LPs are solved with COIN-OR CLP.
// Constraints, as Gavel's: X >= 0; sum_t X[j][t] <= 1 (a job runs on one type at a time);
// sum_j gpus_j X[j][t] <= capacity_t; X[j][t] = 0 where the job cannot run.
//
//   max_min_fairness_perf   max min_j sum_t gpus_j thr[j][t] X[j][t] / (w_j prop_j), prop_j = the
//                           job's throughput with every type shared equally (cap_t / G each)
//   max_min_fairness        the same with every throughput 1 (heterogeneity-agnostic)
//   max_sum_throughput_perf max sum_j sum_t thr[j][t] X[j][t] / sum_t thr[j][t]
//   min_total_duration_perf min T: every job finishes its remaining steps within T at its rate;
//                           solved exactly as one LP in s = 1/T (Gavel bisects on T)
//   min_total_duration      the same with each job's throughput on its fastest type everywhere
//   finish_time_fairness_perf  min max_j rho_j, rho_j = (elapsed_j + remaining_j / thr_j(X)) /
//                           isolated_j (isolated: its whole work at its isolated throughput);
//                           to within 1e-6 relative: one LP per trial rho (re-solved from the
//                           last basis), each giving an achieved rho and a dual cut below it
//   finish_time_fairness    the same with each job's throughput on its fastest type everywhere
//   isolated                each job gets cap_t / n of each type (scaled so that it fits)
//   fifo_perf               jobs in arrival order each take their fastest type with room
//                           (Gavel's FIFO in "perf" mode), X = 1 there
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace clustersim {

struct TimeShareProblem {
  int types = 0;
  std::vector<int> capacity;        // GPUs of each type
  std::vector<double> throughput;   // jobs x types, row-major: steps/s of the whole job
  std::vector<int> gpus;            // each job's GPU count (scale factor)
  std::vector<double> weight;       // priority weights (> 0); empty: all 1
  std::vector<double> remaining;    // steps left (min_total_duration, finish_time_fairness)
  std::vector<double> elapsed;      // seconds since arrival (finish_time_fairness)
  std::vector<double> total_steps;  // whole work (finish_time_fairness's isolated time)
  std::size_t jobs() const { return gpus.size(); }
};

struct TimeShare {
  bool optimal = false;
  std::vector<double> x;  // jobs x types, row-major
  double objective = 0.0;
  int lps = 0;  // LPs solved
};

// Solves `policy` (one of time_share_policy_names()). Throws std::invalid_argument for an
// unknown policy or inconsistent sizes.
TimeShare solve_time_share(std::string_view policy, const TimeShareProblem& problem);
std::vector<std::string> time_share_policy_names();
bool is_time_share_policy(std::string_view policy);

}  // namespace clustersim
