// The LP shared by Gavel's policies (time_share.h): columns X[j][t] (then any extra columns),
// rows: each job's time (<= 1), each type's capacity, then the policy's own rows. Built as a
// column-major sparse matrix and solved by CLP's dual simplex. The first solve starts, where
// the LP has price_crash.h's form (one policy row per job over its X and the extra column, the
// extra column alone in the objective), from the basis of the capacity rows' Lagrangian prices
// (else, or if that solve fails, from the slack basis). The loaded model is kept: after
// set_row_bounds, maximise re-solves from the last optimal basis (dual simplex; only the bounds
// changed, so that basis stays dual feasible). The tie-break's stages (time_share.h) follow an
// optimal maximise: fix_objective keeps the objective near its optimum, reoptimise maximises
// another one from the basis reached (primal simplex; only the objective changed, so that basis
// stays primal feasible).
#pragma once

#include <memory>
#include <vector>

#include "clustersim/time_share.h"

class ClpSimplex;

namespace clustersim::timeshare {

class TimeShareLp {
 public:
  // Base rows (job time, type capacity) over the X columns; X[j][t] fixed at 0 where thr = 0.
  // With `multiplicity`, row j stands for that many identical jobs (classes: each copy gets
  // X[j][*], so a type's capacity row counts multiplicity x GPUs).
  explicit TimeShareLp(const TimeShareProblem& problem,
                       const std::vector<int>* multiplicity = nullptr);
  ~TimeShareLp();
  TimeShareLp(const TimeShareLp&) = delete;
  TimeShareLp& operator=(const TimeShareLp&) = delete;
  // A row `lower <= sum(coefficients . X[j][*]) + extra_coefficient * extra <= upper` for job
  // j (the policy's per-job row); returns its index.
  int add_job_row(std::size_t job, const std::vector<double>& coefficients, double extra,
                  double lower, double upper);
  // One extra column (z, s, ...) with bounds and objective coefficient.
  void set_extra(double lower, double upper, double objective);
  void set_x_objective(std::size_t job, int type, double objective);
  // Maximises; false when not proven optimal. Fills x (clipped to [0, 1]) and the objective.
  bool maximise(TimeShare& out);
  // Changes a row's bounds (also in the loaded model, for the next maximise).
  void set_row_bounds(int row, double lower, double upper);
  // The extra column's lower bound (also in the loaded model).
  void set_extra_lower(double lower);
  // After an optimal maximise: the objective just maximised, c . x, may from now on lose at most
  // `tolerance` x |its optimum| (a lower bound on the extra column where the objective is that
  // column alone, as in every LP policy's first stage; else a new row over the objective's
  // columns, whose slack enters the basis).
  void fix_objective(double tolerance);
  // Replaces the objective by `objective` (per X column, jobs x types; the extra column's becomes
  // 0) and maximises it from the current basis with CLP's primal simplex. Fills out.x as maximise
  // does (out.objective is left alone: it stays the policy's); false when not proven optimal.
  bool reoptimise(const std::vector<double>& objective, TimeShare& out);
  // After an optimal maximise: the extra column's value and a row's dual value (the objective's
  // rate of change per unit of the row's bound, >= 0 for a binding >= row of a maximisation).
  double extra_value() const;
  double row_dual(int row) const;
  // Whether the first maximise started from the price crash's basis (for tests and the bench).
  bool crashed() const { return crashed_; }
  // Off: every first solve starts from the slack basis (the code path before the crash; tests
  // compare the two). Per thread; on by default.
  static void set_crash_enabled(bool enabled);

 private:
  std::size_t jobs_ = 0;
  int types_ = 0;
  // Per column: (row, value) entries.
  std::vector<std::vector<std::pair<int, double>>> columns_;
  std::vector<double> column_lower_, column_upper_, objective_;
  std::vector<double> row_lower_, row_upper_;
  bool has_extra_ = false;
  std::vector<int> policy_row_;  // per job: its add_job_row row (-1: none; -2: several)
  bool crashed_ = false;
  std::unique_ptr<ClpSimplex> model_;
  // Sets the loaded model's basis from price_crash.h; false where the LP has another form.
  bool crash();
};

}  // namespace clustersim::timeshare
