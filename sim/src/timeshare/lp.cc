#include "timeshare/lp.h"

#include <ClpSimplex.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "timeshare/price_crash.h"

namespace clustersim::timeshare {

namespace {
thread_local bool crash_enabled = true;
}  // namespace

void TimeShareLp::set_crash_enabled(bool enabled) { crash_enabled = enabled; }

TimeShareLp::TimeShareLp(const TimeShareProblem& p, const std::vector<int>* multiplicity)
    : jobs_(p.jobs()), types_(p.types) {
  const std::size_t n = jobs_ * static_cast<std::size_t>(types_);
  policy_row_.assign(jobs_, -1);
  columns_.resize(n);
  column_lower_.assign(n, 0.0);
  column_upper_.assign(n, 1.0);
  objective_.assign(n, 0.0);
  // Rows 0..jobs-1: sum_t X[j][t] <= 1; then one per type: sum_j gpus_j X[j][t] <= cap_t.
  for (std::size_t j = 0; j < jobs_; ++j) {
    for (int t = 0; t < types_; ++t) {
      const std::size_t c = j * static_cast<std::size_t>(types_) + static_cast<std::size_t>(t);
      columns_[c].push_back({static_cast<int>(j), 1.0});
      const double copies = multiplicity ? (*multiplicity)[j] : 1.0;
      columns_[c].push_back({static_cast<int>(jobs_) + t, copies * p.gpus[j]});
      if (!(p.throughput[c] > 0.0)) column_upper_[c] = 0.0;
    }
    row_lower_.push_back(-std::numeric_limits<double>::max());
    row_upper_.push_back(1.0);
  }
  for (int t = 0; t < types_; ++t) {
    row_lower_.push_back(-std::numeric_limits<double>::max());
    row_upper_.push_back(p.capacity[static_cast<std::size_t>(t)]);
  }
}

TimeShareLp::~TimeShareLp() = default;

void TimeShareLp::set_extra(double lower, double upper, double objective) {
  if (!has_extra_) columns_.emplace_back();
  has_extra_ = true;
  column_lower_.resize(columns_.size());
  column_upper_.resize(columns_.size());
  objective_.resize(columns_.size());
  column_lower_.back() = lower;
  column_upper_.back() = upper;
  objective_.back() = objective;
}

int TimeShareLp::add_job_row(std::size_t job, const std::vector<double>& coefficients, double extra,
                             double lower, double upper) {
  const int row = static_cast<int>(row_lower_.size());
  for (int t = 0; t < types_; ++t) {
    const double value = coefficients[static_cast<std::size_t>(t)];
    if (value != 0.0)
      columns_[job * static_cast<std::size_t>(types_) + static_cast<std::size_t>(t)].push_back(
          {row, value});
  }
  if (extra != 0.0) {
    if (!has_extra_) throw std::logic_error("time share LP: no extra column");
    columns_.back().push_back({row, extra});
  }
  row_lower_.push_back(lower);
  row_upper_.push_back(upper);
  policy_row_[job] = policy_row_[job] == -1 ? row : -2;
  return row;
}

void TimeShareLp::set_x_objective(std::size_t job, int type, double objective) {
  objective_[job * static_cast<std::size_t>(types_) + static_cast<std::size_t>(type)] = objective;
}

bool TimeShareLp::maximise(TimeShare& out) {
  if (!model_) {
    std::vector<CoinBigIndex> start{0};
    std::vector<int> index;
    std::vector<double> value;
    for (const auto& column : columns_) {
      for (const auto& [row, v] : column) {
        index.push_back(row);
        value.push_back(v);
      }
      start.push_back(static_cast<CoinBigIndex>(index.size()));
    }
    model_ = std::make_unique<ClpSimplex>();
    model_->setLogLevel(0);
    model_->loadProblem(static_cast<int>(columns_.size()), static_cast<int>(row_lower_.size()),
                        start.data(), index.data(), value.data(), column_lower_.data(),
                        column_upper_.data(), objective_.data(), row_lower_.data(),
                        row_upper_.data());
    model_->setOptimizationDirection(-1.0);
    crashed_ = crash_enabled && crash();
    model_->dual();
    if (crashed_ && !model_->isProvenOptimal()) {
      model_->allSlackBasis(true);
      model_->dual();
    }
  } else {
    model_->dual();
  }
  ++out.lps;
  out.optimal = false;
  if (!model_->isProvenOptimal()) return false;
  const double* solution = model_->getColSolution();
  const std::size_t n = jobs_ * static_cast<std::size_t>(types_);
  out.x.assign(n, 0.0);
  for (std::size_t c = 0; c < n; ++c) out.x[c] = std::clamp(solution[c], 0.0, 1.0);
  out.objective = model_->objectiveValue();
  out.optimal = true;
  return true;
}

bool TimeShareLp::crash() {
  // The form: the extra column alone in the objective (maximised), every policy row a lower
  // bound `a . X_j + e z >= lower` (e <= 0) of one job, and the extra column in no other row.
  if (!has_extra_ || !(objective_.back() > 0.0)) return false;
  const std::size_t n = jobs_ * static_cast<std::size_t>(types_);
  for (std::size_t c = 0; c < n; ++c)
    if (objective_[c] != 0.0) return false;
  PriceCrashInput in;
  in.types = types_;
  in.capacity.assign(row_upper_.begin() + static_cast<std::ptrdiff_t>(jobs_),
                     row_upper_.begin() + static_cast<std::ptrdiff_t>(jobs_) + types_);
  in.a.assign(n, 0.0);
  in.use.assign(n, 0.0);
  in.alpha.assign(jobs_, 0.0);
  in.beta.assign(jobs_, 0.0);
  in.has_row.assign(jobs_, 0);
  in.objective = objective_.back();
  in.z_lower = column_lower_.back() < -1e29 ? -std::numeric_limits<double>::infinity()
                                            : column_lower_.back();
  std::vector<int> job_of_row(row_lower_.size(), -1);
  for (std::size_t j = 0; j < jobs_; ++j) {
    const int row = policy_row_[j];
    if (row == -2) return false;
    if (row < 0) continue;
    if (row_upper_[static_cast<std::size_t>(row)] < 1e29) return false;
    in.has_row[j] = 1;
    in.alpha[j] = row_lower_[static_cast<std::size_t>(row)];
    job_of_row[static_cast<std::size_t>(row)] = static_cast<int>(j);
  }
  const auto cap_row = static_cast<int>(jobs_);
  for (std::size_t c = 0; c < n; ++c) {
    const std::size_t j = c / static_cast<std::size_t>(types_);
    for (const auto& [row, v] : columns_[c]) {
      if (row >= cap_row && row < cap_row + types_) {
        in.use[c] = v;
      } else if (row == policy_row_[j] && column_upper_[c] > 0.0) {
        if (v < 0.0) return false;
        in.a[c] = v;
      } else if (row != static_cast<int>(j) && row != policy_row_[j]) {
        return false;
      }
    }
  }
  for (const auto& [row, v] : columns_.back()) {
    const int j = job_of_row[static_cast<std::size_t>(row)];
    if (j < 0 || v > 0.0) return false;
    in.beta[static_cast<std::size_t>(j)] = -v;
  }
  PriceCrash crash;
  if (!price_crash(in, crash)) return false;

  // Statuses (CLP's row status is the row activity's: at its lower or upper bound, or basic).
  ClpSimplex& m = *model_;
  for (std::size_t c = 0; c < columns_.size(); ++c)
    m.setColumnStatus(static_cast<int>(c), ClpSimplex::atLowerBound);
  m.setColumnStatus(static_cast<int>(columns_.size() - 1), ClpSimplex::basic);  // z
  for (int t = 0; t < types_; ++t)
    m.setRowStatus(cap_row + t, crash.price[static_cast<std::size_t>(t)] > 0.0
                                    ? ClpSimplex::atUpperBound
                                    : ClpSimplex::basic);
  const auto column = [&](std::size_t j, int t) {
    return static_cast<int>(j * static_cast<std::size_t>(types_) + static_cast<std::size_t>(t));
  };
  for (std::size_t j = 0; j < jobs_; ++j) {
    const int time = static_cast<int>(j);
    const int policy = policy_row_[j];
    switch (crash.start[j]) {
      case JobStart::kIdle:
        m.setRowStatus(time, ClpSimplex::basic);
        if (policy >= 0) m.setRowStatus(policy, ClpSimplex::basic);
        break;
      case JobStart::kOne:
        m.setColumnStatus(column(j, crash.first[j]), ClpSimplex::basic);
        m.setRowStatus(time, ClpSimplex::basic);
        m.setRowStatus(policy, ClpSimplex::atLowerBound);
        break;
      case JobStart::kTwo:
        m.setColumnStatus(column(j, crash.first[j]), ClpSimplex::basic);
        m.setColumnStatus(column(j, crash.second[j]), ClpSimplex::basic);
        m.setRowStatus(time, ClpSimplex::atUpperBound);
        m.setRowStatus(policy, ClpSimplex::atLowerBound);
        break;
      case JobStart::kShort:
        if (crash.first[j] >= 0) {
          m.setColumnStatus(column(j, crash.first[j]), ClpSimplex::basic);
          m.setRowStatus(time, ClpSimplex::atUpperBound);
        } else {
          m.setRowStatus(time, ClpSimplex::basic);
        }
        m.setRowStatus(policy, ClpSimplex::basic);
        break;
    }
  }
  for (const auto& [j, t] : crash.split) m.setColumnStatus(column(j, t), ClpSimplex::basic);
  return true;
}

void TimeShareLp::set_row_bounds(int row, double lower, double upper) {
  row_lower_[static_cast<std::size_t>(row)] = lower;
  row_upper_[static_cast<std::size_t>(row)] = upper;
  if (model_) {
    model_->setRowLower(row, lower);
    model_->setRowUpper(row, upper);
  }
}

void TimeShareLp::set_extra_lower(double lower) {
  if (!has_extra_) throw std::logic_error("time share LP: no extra column");
  column_lower_.back() = lower;
  if (model_) model_->setColumnLower(static_cast<int>(columns_.size() - 1), lower);
}

void TimeShareLp::fix_objective(double tolerance) {
  if (!model_ || !model_->isProvenOptimal())
    throw std::logic_error("time share LP: fix_objective needs an optimal solve");
  const double optimum = model_->objectiveValue();
  const double floor = optimum - tolerance * std::fabs(optimum);
  std::vector<int> index;
  std::vector<double> value;
  for (std::size_t c = 0; c < columns_.size(); ++c)
    if (objective_[c] != 0.0) {
      index.push_back(static_cast<int>(c));
      value.push_back(objective_[c]);
    }
  if (index.empty()) return;
  if (index.size() == 1 && value[0] > 0.0) {
    const auto c = static_cast<std::size_t>(index[0]);
    column_lower_[c] = std::max(column_lower_[c], floor / value[0]);
    model_->setColumnLower(index[0], column_lower_[c]);
    return;
  }
  const int row = static_cast<int>(row_lower_.size());
  for (std::size_t i = 0; i < index.size(); ++i)
    columns_[static_cast<std::size_t>(index[i])].push_back({row, value[i]});
  row_lower_.push_back(floor);
  row_upper_.push_back(std::numeric_limits<double>::max());
  model_->addRow(static_cast<int>(index.size()), index.data(), value.data(), floor, COIN_DBL_MAX);
  model_->setRowStatus(row, ClpSimplex::basic);
}

bool TimeShareLp::reoptimise(const std::vector<double>& objective, TimeShare& out) {
  const std::size_t n = jobs_ * static_cast<std::size_t>(types_);
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    objective_[c] = c < n ? objective[c] : 0.0;
    model_->setObjectiveCoefficient(static_cast<int>(c), objective_[c]);
  }
  model_->primal();
  ++out.lps;
  if (!model_->isProvenOptimal()) return false;
  const double* solution = model_->getColSolution();
  out.x.assign(n, 0.0);
  for (std::size_t c = 0; c < n; ++c) out.x[c] = std::clamp(solution[c], 0.0, 1.0);
  return true;
}

double TimeShareLp::extra_value() const {
  return model_ && has_extra_ ? model_->getColSolution()[columns_.size() - 1] : 0.0;
}

double TimeShareLp::row_dual(int row) const {
  // CLP's duals are those of the minimisation it solves (the objective times the direction).
  return model_ ? -model_->getRowPrice()[row] : 0.0;
}

}  // namespace clustersim::timeshare
