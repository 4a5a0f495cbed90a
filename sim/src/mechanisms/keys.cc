// [mechanisms] keys, one block per mechanism (each block to move next to its mechanism).
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "clustersim/mechanisms.h"
#include "clustersim/simulator.h"
#include "options/declare.h"

namespace clustersim::options {

namespace {

KeyBuilder key(KeyRegistry& keys, const std::string& component, std::string name, auto ref) {
  return field<SimOptions>(keys, "mechanisms." + std::move(name), ref)
      .component("mechanism " + component)
      .training_only();
}

// ---- Preemption ----
void declare_preemption_keys(KeyRegistry& keys) {
  key(
      keys, "preemption", "preempt_on_arrival",
      [](auto& o) -> auto& { return o.mechanisms.preempt_on_arrival; })
      .doc(
          "With `honor_priority` on a preemptive policy: a higher-priority arrival evicts "
          "lower-priority jobs at once, not at the next lease.");
}

// ---- Migration and defragmentation ----
void declare_migration_keys(KeyRegistry& keys) {
  using Migration = MechanismOptions::Migration;
  choice<SimOptions>(
      keys, "mechanisms.migration", [](auto& o) -> auto& { return o.mechanisms.migration; },
      std::vector<std::pair<std::string, Migration>>{{"off", Migration::kOff},
                                                     {"on_demand", Migration::kOnDemand},
                                                     {"periodic", Migration::kPeriodic}})
      .component("mechanism migration")
      .training_only()
      .doc(
          "`on_demand`: move running jobs when the queue's head fits only after moves, and "
          "compact when more than `defrag_threshold` of the GPUs are fragmented; `periodic`: "
          "also compact every `defrag_period_s`. Fewest, then cheapest, moves "
          "([`sim/README.md`](sim/README.md#mechanisms)).");
  key(
      keys, "migration", "defrag_threshold",
      [](auto& o) -> auto& { return o.mechanisms.defrag_threshold; })
      .range(0.0, 1.0)
      .doc(
          "Compact when more than this fraction of the cluster's GPUs are fragmented (0: only "
          "for a blocked queue head).");
  key(
      keys, "migration", "defrag_period_s",
      [](auto& o) -> auto& { return o.mechanisms.defrag_period_s; })
      .range(1e-3, 1e12)
      .doc("With `migration = \"periodic\"`: compact every this many seconds.");
  key(
      keys, "migration", "defrag_max_moves",
      [](auto& o) -> auto& { return o.mechanisms.defrag_max_moves; })
      .range(1, 1 << 20)
      .doc("At most this many moves per defragmentation pass.");
}

// ---- Elastic jobs ----
void declare_elastic_keys(KeyRegistry& keys) {
  key(
      keys, "elastic", "elastic", [](auto& o) -> auto& { return o.mechanisms.elastic; })
      .doc(
          "Jobs with `min_gpus < max_gpus` shrink to admit jobs ranked before them and grow "
          "into idle GPUs.");
  key(
      keys, "elastic", "parallel_fraction",
      [](auto& o) -> auto& { return o.mechanisms.parallel_fraction; })
      .range(0.0, 1.0)
      .doc(
          "Elastic speed-up with g GPUs by Amdahl's law, 1 / ((1 - p) + p / g), for models "
          "without a `[mechanisms.scaling]` table.");
  custom(keys, "mechanisms.scaling", KeyType::kTable)
      .component("mechanism elastic")
      .training_only()
      .default_note("none")
      .check_target<SimOptions>([](const SimOptions& o) -> std::string {
        for (const auto& [model, points] : o.mechanisms.scaling) {
          if (points.empty()) return "model '" + model + "': expected [[GPUs, speed-up], ...]";
          for (std::size_t i = 0; i < points.size(); ++i)
            if (points[i].first < 1 || !(points[i].second > 0.0) ||
                !std::isfinite(points[i].second) ||
                (i > 0 && points[i].first <= points[i - 1].first))
              return "model '" + model +
                     "': expected [GPUs, speed-up] pairs: GPUs >= 1 ascending, speed-ups > 0";
        }
        return "";
      })
      .doc(
          "`[mechanisms.scaling] MODEL = [[gpus, speedup], ...]`: a model's speed-up with that "
          "many GPUs, relative to 1 GPU (GPUs >= 1 ascending, speed-ups > 0; interpolated "
          "linearly, flat beyond the ends), instead of Amdahl's law.");
}

// ---- Failures and checkpoints ----
void declare_failure_keys(KeyRegistry& keys) {
  key(
      keys, "failures", "mtbf_h", [](auto& o) -> auto& { return o.mechanisms.mtbf_h; })
      .range(0.0, 1e12)
      .doc("Node failures: each node's mean time between failures, hours (0 = none generated).");
  using FailureModel = MechanismOptions::FailureModel;
  choice<SimOptions>(
      keys, "mechanisms.failure_model", [](auto& o) -> auto& { return o.mechanisms.failure_model; },
      std::vector<std::pair<std::string, FailureModel>>{{"exponential", FailureModel::kExponential},
                                                        {"weibull", FailureModel::kWeibull}})
      .component("mechanism failures")
      .training_only()
      .doc("Up-times between a node's failures: `exponential` or `weibull`, with mean `mtbf_h`.");
  key(
      keys, "failures", "weibull_shape",
      [](auto& o) -> auto& { return o.mechanisms.weibull_shape; })
      .range(1e-3, 1e3)
      .doc("Weibull k (< 1: infant mortality), scaled to the MTBF.");
  key(
      keys, "failures", "repair_h", [](auto& o) -> auto& { return o.mechanisms.repair_h; })
      .range(0.0, 1e12)
      .doc("A failed node is down this long, hours.");
  custom(keys, "mechanisms.failure_trace", KeyType::kPath)
      .component("mechanism failures")
      .training_only()
      .default_note("none")
      .check_target<SimOptions>([](const SimOptions& o) -> std::string {
        const auto nodes = static_cast<std::uint32_t>(o.cluster.total_nodes());
        for (const NodeOutage& outage : o.mechanisms.failure_trace)
          if (outage.node >= nodes || !(outage.down >= 0.0) || !(outage.up > outage.down) ||
              !std::isfinite(outage.up))
            return "an outage needs a node of the cluster and 0 <= down < up";
        return "";
      })
      .doc(
          "A CSV of node outages `node,down,up` (node: an index from 0 or `GROUP/K`; seconds on "
          "the workload's clock), replayed with the generated failures, if any.");
}

void declare_checkpoint_keys(KeyRegistry& keys) {
  key(
      keys, "checkpoints", "checkpoint_interval_s",
      [](auto& o) -> auto& { return o.mechanisms.checkpoint_interval_s; })
      .range(0.0, 1e12)
      .doc(
          "A running job saves after every this many seconds of running (its CSV "
          "`checkpoint_interval_s` wins); a failure rolls it back to its last save.");
}

// ---- What transitions cost ----
// <kind>_model, <kind>_s (checkpoint and restore: [scheduler] checkpoint_s and restore_s),
// <kind>_gbps, <kind>_samples.
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
    key(
        keys, "costs",
        kind + "_s", [cost](auto& o) -> auto& { return (o.mechanisms.*cost).seconds; })
        .range(0.0, 1e12)
        .doc("Seconds of a " + kind + " (the `constant` model, and the fixed part of `size`).");
  }
  key(
      keys, "costs", kind + "_gbps", [cost](auto& o) -> auto& { return (o.mechanisms.*cost).gbps; })
      .range(1e-9, 1e12)
      .doc("GB/s at which the `size` model moves a checkpoint.");
  key(
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

void declare_transition_cost_keys(KeyRegistry& keys) {
  declare_cost_keys(keys, "checkpoint", &MechanismOptions::checkpoint_cost);
  declare_cost_keys(keys, "restore", &MechanismOptions::restore_cost);
  declare_cost_keys(keys, "migration", &MechanismOptions::migration_cost);
  declare_cost_keys(keys, "resize", &MechanismOptions::resize_cost);
  key(
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

}  // namespace

void declare_mechanism_keys(KeyRegistry& keys) {
  declare_preemption_keys(keys);
  declare_migration_keys(keys);
  declare_elastic_keys(keys);
  declare_failure_keys(keys);
  declare_checkpoint_keys(keys);
  declare_transition_cost_keys(keys);
}

}  // namespace clustersim::options
