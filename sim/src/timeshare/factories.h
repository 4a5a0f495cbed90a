// One solver per policy file (time_share.h); registry.cc maps names to them.
#pragma once

#include "clustersim/time_share.h"

namespace clustersim::timeshare {

class TimeShareLp;

// Throughputs as the policy sees them: the problem's (perf), or, heterogeneity-agnostic, each
// job's throughput on its fastest type on every type it can run on (all 1 for max-min).
std::vector<double> agnostic_throughputs(const TimeShareProblem& problem, bool ones);

TimeShare max_min_fairness(const TimeShareProblem& problem, bool perf);
TimeShare max_sum_throughput(const TimeShareProblem& problem);
TimeShare min_total_duration(const TimeShareProblem& problem, bool perf);
TimeShare finish_time_fairness(const TimeShareProblem& problem, bool perf);
TimeShare isolated(const TimeShareProblem& problem);
TimeShare fifo_perf(const TimeShareProblem& problem);
// The tie-break's objectives (time_share.h), per X column, 0 where thr[j][t] = 0. Second stage:
// k_j thr[j][t], each job's throughput as the policy sees it, weighted. Third stage: agnostic
// (`real` given), k_j real[j][t] / (what the policy sees per step/s) (the same sum at the real
// speeds); perf, -k_j / m_j (m_j: the job's fastest throughput): its time at a price.
std::vector<double> tie_break_objective(int types, const std::vector<double>& thr,
                                        const std::vector<double>& k);
std::vector<double> tie_break_third(int types, const std::vector<double>& thr,
                                    const std::vector<double>* real, const std::vector<double>& k);
// Stages 2 and 3 on `lp`, whose previous objective is already kept (fix_objective, or bounds):
// each stage's optimum is kept for the next; `out.x` takes the allocation of the last stage that
// solved, `out.lps` the LPs solved in all (`stage` carries the count in).
void run_tie_break_stages(TimeShareLp& lp, const std::vector<double>& second,
                          const std::vector<double>& third, TimeShare& stage, TimeShare& out);

// Isolated throughput of each job (its throughput under `isolated`).
std::vector<double> isolated_throughputs(const TimeShareProblem& problem);

}  // namespace clustersim::timeshare
