#include "core/overheads.h"

#include <cmath>
#include <numeric>
#include <stdexcept>

#include "clustersim/profile.h"

namespace clustersim {

std::string_view overhead_kind_name(OverheadKind kind) {
  switch (kind) {
    case OverheadKind::kCheckpoint:
      return "checkpoint";
    case OverheadKind::kRestore:
      return "restore";
    case OverheadKind::kMigration:
      return "migration";
    case OverheadKind::kResize:
      return "resize";
    case OverheadKind::kRealloc:
      return "realloc";
  }
  return "?";
}

namespace internal {

namespace {

void validate(const OverheadCost& cost, OverheadKind kind) {
  const std::string name(overhead_kind_name(kind));
  if (!(cost.seconds >= 0.0) || !std::isfinite(cost.seconds))
    throw std::invalid_argument("mechanisms: " + name + " seconds must be >= 0");
  if (cost.model == OverheadCost::Model::kSize && !(cost.gbps > 0.0))
    throw std::invalid_argument("mechanisms." + name + "_gbps must be > 0");
  if (cost.model == OverheadCost::Model::kEmpirical) {
    if (cost.samples.empty())
      throw std::invalid_argument("mechanisms." + name + "_samples must not be empty");
    for (double sample : cost.samples)
      if (!(sample >= 0.0) || !std::isfinite(sample))
        throw std::invalid_argument("mechanisms." + name + "_samples must be >= 0");
  }
  if (cost.model == OverheadCost::Model::kSaveRestore &&
      (kind == OverheadKind::kCheckpoint || kind == OverheadKind::kRestore))
    throw std::invalid_argument("mechanisms: a " + name + " cannot cost a save plus a restore");
}

}  // namespace

OverheadModel::OverheadModel(const SimOptions& options, std::uint64_t seed)
    : mechanisms_(options.mechanisms), rng_(seed) {
  const auto& m = options.mechanisms;
  costs_[static_cast<int>(OverheadKind::kCheckpoint)] = m.checkpoint_cost;
  costs_[static_cast<int>(OverheadKind::kCheckpoint)].seconds = options.scheduler.checkpoint_s;
  costs_[static_cast<int>(OverheadKind::kRestore)] = m.restore_cost;
  costs_[static_cast<int>(OverheadKind::kRestore)].seconds = options.scheduler.restore_s;
  costs_[static_cast<int>(OverheadKind::kMigration)] = m.migration_cost;
  costs_[static_cast<int>(OverheadKind::kResize)] = m.resize_cost;
  costs_[static_cast<int>(OverheadKind::kRealloc)].seconds = options.scheduler.realloc_s;
  for (int k = 0; k < kOverheadKinds; ++k) validate(costs_[k], static_cast<OverheadKind>(k));
  if (!(m.default_checkpoint_gb >= 0.0))
    throw std::invalid_argument("mechanisms.default_checkpoint_gb must be >= 0");
  for (const auto& [model, gb] : m.checkpoint_gb)
    if (!(gb >= 0.0) || !std::isfinite(gb))
      throw std::invalid_argument("mechanisms.checkpoint_gb." + model + " must be >= 0");
}

void OverheadModel::load(std::size_t jobs) {
  bool sized = false;
  for (const auto& cost : costs_) sized = sized || cost.model == OverheadCost::Model::kSize;
  if (sized) checkpoint_gb_.resize(jobs, -1.0);
}

double OverheadModel::checkpoint_gb(std::uint32_t job, const JobSpec& spec) const {
  double& cached = checkpoint_gb_[job];
  if (cached < 0.0) {
    const auto found = mechanisms_.checkpoint_gb.find(normalize_model_name(spec.model));
    cached = found != mechanisms_.checkpoint_gb.end() ? found->second
                                                      : mechanisms_.default_checkpoint_gb;
  }
  return cached;
}

double OverheadModel::cost(const OverheadCost& cost, std::uint32_t job, const JobSpec& spec,
                           Rng* rng) const {
  switch (cost.model) {
    case OverheadCost::Model::kConstant:
      return cost.seconds;
    case OverheadCost::Model::kSize:
      return cost.seconds + checkpoint_gb(job, spec) / cost.gbps;
    case OverheadCost::Model::kEmpirical:
      if (rng) return cost.samples[rng->below(cost.samples.size())];
      return std::accumulate(cost.samples.begin(), cost.samples.end(), 0.0) /
             static_cast<double>(cost.samples.size());
    case OverheadCost::Model::kSaveRestore: {
      const auto& save = costs_[static_cast<int>(OverheadKind::kCheckpoint)];
      const auto& restore = costs_[static_cast<int>(OverheadKind::kRestore)];
      const double saving = this->cost(save, job, spec, rng);
      return cost.seconds + saving + this->cost(restore, job, spec, rng);
    }
  }
  return 0.0;
}

double OverheadModel::seconds(OverheadKind kind, std::uint32_t job, const JobSpec& spec) {
  return cost(costs_[static_cast<int>(kind)], job, spec, &rng_);
}

bool OverheadModel::certainly_zero(OverheadKind kind, std::uint32_t job,
                                   const JobSpec& spec) const {
  const OverheadCost& cost = costs_[static_cast<int>(kind)];
  switch (cost.model) {
    case OverheadCost::Model::kEmpirical:
      for (double sample : cost.samples)
        if (sample != 0.0) return false;
      return true;
    case OverheadCost::Model::kSaveRestore:
      return cost.seconds == 0.0 && certainly_zero(OverheadKind::kCheckpoint, job, spec) &&
             certainly_zero(OverheadKind::kRestore, job, spec);
    default:
      return this->cost(cost, job, spec, nullptr) == 0.0;
  }
}

double OverheadModel::expected_seconds(OverheadKind kind, std::uint32_t job,
                                       const JobSpec& spec) const {
  return cost(costs_[static_cast<int>(kind)], job, spec, nullptr);
}

}  // namespace internal
}  // namespace clustersim
