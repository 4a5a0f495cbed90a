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
//
// The tie-break (TimeShareProblem::tie_break; [scheduler] tie_break). The six max-min, finish-time
// fairness and min-total-duration LPs have optima that are far from unique (min_total_duration
// pins only the last job to finish; max-min only the worst-off jobs; the agnostic forms do not
// see which type a job's time is on), and which optimal vertex CLP returns depends on where the
// simplex starts (the slack basis or price_crash.h's). With the tie-break on, a second,
// lexicographic stage picks one allocation among the optimal ones: the policy's objective is kept
// within kTieBreakTolerance (1e-7, relative) of its optimum, which keeps the stage feasible to
// CLP's tolerances, and then
//   min_total_duration[_perf], finish_time_fairness[_perf]: max sum_j sum_t thr[j][t] X[j][t] /
//       remaining_j, the sum of the jobs' rates of progress (1 / the time each job's remaining
//       steps take at its rate): every job runs as fast as the capacity the optimum leaves
//       allows instead of idling towards the makespan or its rho, and the capacity left over
//       goes first to the jobs nearest to finishing (per GPU-second), which is what shortens
//       mean JCT; the weights differ between jobs of one kind (their remaining steps do), so
//       every job's rate is pinned, even among jobs of one kind (nothing left: weight 0);
//   max_min_fairness[_perf]: max the sum of the jobs' normalised throughputs (the quantities the
//       LP's min is over, sum_t gpus_j thr[j][t] X[j][t] / (w_j prop_j)): Pareto-efficient
//       among the max-min-fair allocations (no job can gain without another losing), one LP
//       where Gavel's water-filling variant (max_min_fairness_water_filling.py) re-solves the
//       max-min for the non-bottleneck jobs after finding them with a MILP per level.
// A third stage keeps the second's objective within the same tolerance and pins what the second
// leaves open. The second fixes each job's rate (its throughput), but jobs of one speed ratio
// (one kind) can still trade types at equal rates: one takes more of a slow type, the other
// more of a fast one. Perf forms: minimise sum_j k_j m_j sum_t X[j][t] (m_j: the job's fastest
// throughput; k_j: its second-stage weight, 1 / remaining_j, resp. gpus_j / (w_j prop_j) for
// max-min), a price on time, so the jobs nearest to finishing take their rate on their fastest
// types; agnostic forms: the second stage's sum with the jobs' real throughputs (per
// type), which only splits each job's time (fixed agnostically) over the types, by real speed.
// Each stage starts from the last stage's optimal basis (primal simplex: only the objective and
// one bound or row changed), so the tie-break costs a fraction of the first solve. With the
// tie-break off, the first optimal vertex is returned, as before.
// max_sum_throughput_perf, isolated and fifo_perf have no tie-break.
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
  bool tie_break = true;            // the lexicographic second stage (above)
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
// The policies with a tie-break (above): the max-min, finish-time fairness and min total
// duration LPs, agnostic and _perf.
std::vector<std::string> time_share_tie_break_policies();
// The relative tolerance to which each tie-break stage keeps the last stage's optimum.
inline constexpr double kTieBreakTolerance = 1e-7;

}  // namespace clustersim
