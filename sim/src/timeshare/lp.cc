#include "timeshare/lp.h"

#include <ClpSimplex.hpp>
#include <algorithm>
#include <limits>
#include <stdexcept>

namespace clustersim::timeshare {

TimeShareLp::TimeShareLp(const TimeShareProblem& p, const std::vector<int>* multiplicity)
    : p_(p), jobs_(p.jobs()), types_(p.types) {
  const std::size_t n = jobs_ * static_cast<std::size_t>(types_);
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
  }
  model_->dual();
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

void TimeShareLp::set_row_bounds(int row, double lower, double upper) {
  row_lower_[static_cast<std::size_t>(row)] = lower;
  row_upper_[static_cast<std::size_t>(row)] = upper;
  if (model_) {
    model_->setRowLower(row, lower);
    model_->setRowUpper(row, upper);
  }
}

double TimeShareLp::extra_value() const {
  return model_ && has_extra_ ? model_->getColSolution()[columns_.size() - 1] : 0.0;
}

double TimeShareLp::row_dual(int row) const {
  // CLP's duals are those of the minimisation it solves (the objective times the direction).
  return model_ ? -model_->getRowPrice()[row] : 0.0;
}

}  // namespace clustersim::timeshare
