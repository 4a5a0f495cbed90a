#include "throughput/sharing_interference.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace clustersim::internal {

namespace {
const std::string kAnyModel = "*";  // a pair table's entry for any model
}  // namespace

// The pair table by model index: each job's model gets an index, and the factor of every pair
// of the models seen is resolved once (the most specific entry: both models, then the job's
// beside any, then any beside the other's; NaN: none).
void SharingInterference::jobs_loaded(std::size_t from) {
  const std::size_t n = view_->jobs().size();
  colocated_since_.resize(n, 0.0);
  colocated_with_.resize(n, 0);
  colocated_seconds_.resize(n, 0.0);
  if (sharing_.interference != Interference::kTable) return;
  const std::size_t known = model_names_.size();
  table_model_.resize(n, 0);
  for (std::size_t i = from; i < n; ++i) {
    const std::string& model = view_->jobs()[i].spec->model;
    const auto [at, added] =
        model_index_.try_emplace(model, static_cast<std::uint32_t>(model_names_.size()));
    if (added) model_names_.push_back(model);
    table_model_[i] = at->second;
  }
  const std::size_t m = model_names_.size();
  if (m == known) return;
  const auto find = [&](const std::string& a, const std::string& b) -> const double* {
    for (const auto& [models, factor] : sharing_.pairs)
      if (models.first == a && models.second == b) return &factor;
    return nullptr;
  };
  pair_factors_.assign(m * m, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t a = 0; a < m; ++a)
    for (std::size_t b = 0; b < m; ++b)
      for (const auto& [x, y] :
           {std::pair<const std::string&, const std::string&>{model_names_[a], model_names_[b]},
            {model_names_[a], kAnyModel},
            {kAnyModel, model_names_[b]},
            {kAnyModel, kAnyModel}})
        if (const double* factor = find(x, y)) {
          pair_factors_[a * m + b] = *factor;
          break;
        }
}

double SharingInterference::factor(std::uint32_t index) {
  const std::span<const JobState> jobs = view_->jobs();
  if (jobs[index].milli == 0) return 1.0;  // a whole GPU, CPU-only, a MIG slice: isolated
  const Grant& mine = view_->grants_of(index).front();
  double rate = 1.0;
  int others = 0;
  for (std::uint32_t other : view_->holders_on(mine.node)) {
    if (other == index || jobs[other].milli == 0) continue;
    if (view_->grants_of(other).front().gpu != mine.gpu) continue;
    ++others;
    switch (*sharing_.interference) {
      case Interference::kNone:
        break;
      case Interference::kConstant:
        rate *= *sharing_.constant_factor;
        break;
      case Interference::kTable:
        rate *= pair_factor(index, other);
        break;
    }
  }
  fold_colocation(index, others);
  return rate;
}

void SharingInterference::take_affected(std::vector<std::uint32_t>& out) {
  for (const auto& [node, gpu] : touched_gpus_)
    for (std::uint32_t index : view_->holders_on(node))
      if (view_->jobs()[index].milli != 0 && view_->grants_of(index).front().gpu == gpu)
        out.push_back(index);
  touched_gpus_.clear();
}

void SharingInterference::on_released(std::uint32_t job) {
  if (view_->jobs()[job].milli != 0) fold_colocation(job, 0);
}

void SharingInterference::report(std::span<JobRecord> records, RunMetrics& metrics) const {
  (void)metrics;
  for (std::size_t i = 0; i < records.size(); ++i)
    records[i].colocated_seconds = colocated_seconds_[i];
}

double SharingInterference::pair_factor(std::uint32_t job, std::uint32_t other) const {
  const std::size_t m = model_names_.size();
  const double factor = pair_factors_[table_model_[job] * m + table_model_[other]];
  if (std::isnan(factor)) {
    const JobSpec& a = *view_->jobs()[job].spec;
    const JobSpec& b = *view_->jobs()[other].spec;
    throw std::invalid_argument("sharing.table: no factor for model '" + a.model +
                                "' beside model '" + b.model + "' (nor a \"*\" entry): jobs '" +
                                a.id + "' and '" + b.id + "' share a GPU");
  }
  return factor;
}

void SharingInterference::fold_colocation(std::uint32_t index, int others) {
  const Time now = view_->now();
  if (colocated_with_[index] > 0) colocated_seconds_[index] += now - colocated_since_[index];
  colocated_since_[index] = now;
  colocated_with_[index] = others;
}

}  // namespace clustersim::internal
