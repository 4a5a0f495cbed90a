#include "core/overheads.h"

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "clustersim/profile.h"
#include "options/declare.h"

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

namespace clustersim::options {

// ---- What transitions cost ----
// <kind>_model, <kind>_s (checkpoint and restore: [scheduler] checkpoint_s and restore_s),
// <kind>_gbps, <kind>_samples.
namespace {

void declare_cost_keys(KeyRegistry& keys, const std::string& kind,
                       OverheadCost MechanismOptions::*cost) {
  const bool restarts = kind == "migration" || kind == "resize";
  using Model = OverheadCost::Model;
  std::vector<std::pair<std::string, Model>> models = {
      {"constant", Model::kConstant}, {"size", Model::kSize}, {"empirical", Model::kEmpirical}};
  if (restarts) models.emplace_back("save_restore", Model::kSaveRestore);
  const std::string seconds = restarts ? "`" + kind + "_s`" : "`[scheduler] " + kind + "_s`";
  auto model = choice<SimOptions>(
                   keys, "mechanisms." + kind + "_model",
                   [cost](auto& o) -> auto& { return (o.mechanisms.*cost).model; }, models)
                   .component("mechanism costs")
                   .training_only();
  model.doc("What a " + kind + " costs: `constant` (" + seconds + "), `size` (" + seconds +
            " + the job's checkpoint GB / `" + kind + "_gbps`), `empirical` (a seeded draw from `" +
            kind + "_samples`)" +
            (restarts ? ", `save_restore` (the job's checkpoint cost plus its restore cost)" : "") +
            ".");
  if (restarts)
    model.default_note("`\"save_restore\"`; `\"constant\"` when `" + kind + "_s` is set");
  if (restarts) {
    mechanism_key(
        keys, "costs",
        kind + "_s", [cost](auto& o) -> auto& { return (o.mechanisms.*cost).seconds; })
        .range(0.0, 1e12)
        .doc("Seconds of a " + kind + " (the `constant` model, and the fixed part of `size`).");
  }
  mechanism_key(
      keys, "costs", kind + "_gbps", [cost](auto& o) -> auto& { return (o.mechanisms.*cost).gbps; })
      .range(1e-9, 1e12)
      .doc("GB/s at which the `size` model moves a checkpoint.");
  mechanism_key(
      keys, "costs",
      kind + "_samples", [cost](auto& o) -> auto& { return (o.mechanisms.*cost).samples; })
      .expected("a list of seconds")
      .default_note("none")
      .check([](const OptionValue& value) -> std::string {
        const auto& samples = std::get<std::vector<double>>(value);
        if (samples.empty()) return "expected a list of seconds";
        for (double sample : samples)
          if (!(sample >= 0.0) || !std::isfinite(sample)) return "expected seconds >= 0";
        return "";
      })
      .check_target<SimOptions>([cost](const SimOptions& o) -> std::string {
        const OverheadCost& c = o.mechanisms.*cost;
        if (c.model == Model::kEmpirical && c.samples.empty())
          return "the empirical model draws from these: set them";
        return "";
      })
      .doc(
          "Seconds the `empirical` model draws from (uniformly, from a seeded stream of its "
          "own).");
}

}  // namespace

void declare_transition_cost_keys(KeyRegistry& keys) {
  declare_cost_keys(keys, "checkpoint", &MechanismOptions::checkpoint_cost);
  declare_cost_keys(keys, "restore", &MechanismOptions::restore_cost);
  declare_cost_keys(keys, "migration", &MechanismOptions::migration_cost);
  declare_cost_keys(keys, "resize", &MechanismOptions::resize_cost);
  mechanism_key(
      keys, "costs", "default_checkpoint_gb",
      [](auto& o) -> auto& { return o.mechanisms.default_checkpoint_gb; })
      .range(0.0, 1e9)
      .doc(
          "Checkpoint size (GB) for the `size` model, of models without their own (in "
          "`[mechanisms.checkpoint_gb]` or a profile's `checkpoint_gb`).");
  custom(keys, "mechanisms.checkpoint_gb", KeyType::kTable)
      .component("mechanism costs")
      .training_only()
      .default_note("profiles' `checkpoint_gb`")
      .doc(
          "`[mechanisms.checkpoint_gb] MODEL = GB`: checkpoint sizes for the `size` model (each "
          "in [0, 1e+09]), over the profiles' `checkpoint_gb`.");
}

}  // namespace clustersim::options
